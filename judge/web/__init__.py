"""The public archive: static pages of the games for the host's web server (docs/web.md)."""
