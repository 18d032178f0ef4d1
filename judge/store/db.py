"""Opening the judge's database (WAL, foreign keys, the schema brought up to date) and its one write transaction.

Every write goes through :func:`write`, which begins ``BEGIN IMMEDIATE``: the write lock is taken before the first
read, so a transaction that reads and then writes waits (up to the busy timeout) for another writer instead of
failing at once with "database is locked" when that writer committed in between, as a deferred ``BEGIN`` does in
WAL mode. Nested, it is a savepoint inside the caller's transaction.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from judge.store.schema import migrations

BUSY_TIMEOUT_MS = 30_000  # how long a writer waits for another one before "database is locked"


@contextmanager
def write(db: Database) -> Iterator[Database]:
    """One write transaction: ``BEGIN IMMEDIATE`` … ``COMMIT`` (rolled back on any exception); a savepoint if nested."""
    conn = db.conn
    if conn.in_transaction:
        name = f"judge_{secrets.token_hex(8)}"
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield db
        except BaseException:
            if conn.in_transaction:
                conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
                conn.execute(f"RELEASE SAVEPOINT {name}")
            raise
        conn.execute(f"RELEASE SAVEPOINT {name}")
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


class Store(Database):
    """sqlite-utils' Database whose ``atomic()`` is the judge's :func:`write` (so no deferred BEGIN can slip in)."""

    @contextmanager
    def atomic(self) -> Iterator[Database]:
        with write(self) as db:
            yield db


def is_busy(exc: BaseException) -> bool:
    """A database error that passes: another writer held the lock longer than the busy timeout."""
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def open_db(path: str | Path) -> Database:
    """Open (creating if needed) the SQLite file at ``path`` and apply pending migrations."""
    db = Store(str(path))
    db.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    db.conn.execute("PRAGMA foreign_keys = ON")
    if str(path) != ":memory:":
        db.enable_wal()
        db.conn.execute("PRAGMA synchronous = NORMAL")  # WAL: durable at checkpoints, never corrupt
    if not db["_sqlite_migrations"].exists() or list(migrations.pending(db)):
        with write(db):  # two processes opening a new file at once: the second waits, then finds nothing to do
            migrations.apply(db)
    return db
