"""The judge's SQLite store: schema (migrations) and opening a database."""

from judge.store.db import open_db

__all__ = ["open_db"]
