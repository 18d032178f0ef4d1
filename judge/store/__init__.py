"""The judge's SQLite store: schema (migrations), opening a database, the one write transaction."""

from judge.store.db import is_busy, open_db, write

__all__ = ["is_busy", "open_db", "write"]
