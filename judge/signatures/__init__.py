"""Signed mail: what a signature on a player's mail proves about its sender, and the judge's own signatures."""
