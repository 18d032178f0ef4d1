"""`judge web build`: the public archive (docs/web.md) written again, whole, from the database.

    judge web build [--dir DIR] [--base-url URL] [--config FILE] [--db PATH]

The folder and the address it is served at are the configuration's (``[web] dir``, ``[web] base_url``) unless given.
``judge serve`` keeps the archive up to date after every adjudication; this command writes every page (for a new
archive, a changed template, or a judge upgraded)."""

from __future__ import annotations

import argparse
from typing import Any

from judge.cli.common import EXIT_OK, EXIT_USAGE, CliError, open_store, settings


def add_web_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    web = sub.add_parser("web", help="the public archive of the games: static pages (docs/web.md)")
    wsub = web.add_subparsers(title="web commands", metavar="ACTION", required=True)
    build = wsub.add_parser(
        "build",
        parents=[common],
        help="write the whole archive again from the database",
        description="Write every game's page (in every language, with its phases' pictures) and the index of games "
        "into the archive's folder, from the database. The folder and the address it is served at are [web] dir "
        "and [web] base_url of the configuration unless given. Prints the index's path.",
    )
    build.add_argument("--dir", default=None, metavar="DIR", help="the archive's folder (default: [web] dir)")
    build.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="where the folder is served, for the results mails' links (default: [web] base_url)",
    )
    build.set_defaults(func=run_build)


def run_build(args: argparse.Namespace) -> int:
    from judge.web.archive import build_all

    cfg = settings(args)
    folder = args.dir or (cfg.web.dir if cfg is not None else "")
    if not folder:
        raise CliError("judge web build: no folder: set [web] dir in the configuration or give --dir DIR", EXIT_USAGE)
    base_url = args.base_url if args.base_url is not None else (cfg.web.base_url if cfg is not None else "")
    index = build_all(open_store(args), folder, base_url.rstrip("/"))
    print(index)
    return EXIT_OK


def refresh_archive(args: argparse.Namespace) -> None:
    """After a command that may have played, ended, paused or deleted a game: the archive's pages of the games
    changed, where ``[web] dir`` is set (a failure is logged, never the command's)."""
    cfg = settings(args)
    db = getattr(args, "_store", None)
    if cfg is None or not cfg.web.dir or db is None:
        return
    from judge.web.archive import refresh

    refresh(db, cfg.web.dir)
