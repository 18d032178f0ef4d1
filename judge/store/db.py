"""Opening the judge's database: WAL, foreign keys, the schema brought up to date."""

from __future__ import annotations

from pathlib import Path

from sqlite_utils import Database

from judge.store.schema import migrations


def open_db(path: str | Path) -> Database:
    """Open (creating if needed) the SQLite file at ``path`` and apply pending migrations."""
    db = Database(str(path))
    db.conn.execute("PRAGMA busy_timeout = 5000")
    db.conn.execute("PRAGMA foreign_keys = ON")
    if str(path) != ":memory:":
        db.enable_wal()
    migrations.apply(db)
    return db
