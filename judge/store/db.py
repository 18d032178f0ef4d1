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


def open_db(path: str | Path, *, backup_dir: str | Path | None = None) -> Database:
    """Open (creating if needed) the SQLite file at ``path`` and apply pending migrations, after a backup of a
    database that holds anything (beside it, or in ``backup_dir``). A database a newer judge wrote is refused
    (``NewerDatabase``), and so is migrating one that cannot be backed up first (``BackupError``): nothing changes."""
    from datetime import UTC, datetime

    from judge.store.backup import backup, backup_name
    from judge.store.versions import record_applied, refuse_newer

    # no sqlite-utils plugins: the judge uses none, a host's installed ones have no business in its connection, and
    # finding them (every installed distribution's entry points) costs a command some 16 ms
    db = Store(str(path), execute_plugins=False)
    try:
        db.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.conn.execute("PRAGMA foreign_keys = ON")
        where = str(path)
        state = refuse_newer(db, where)
        if where != ":memory:":
            db.enable_wal()  # kept in the file; a restored backup (journal_mode delete) gets it back here
            db.conn.execute("PRAGMA synchronous = NORMAL")  # WAL: durable at checkpoints, never corrupt
        if state.pending:
            with write(db):  # two processes opening at once: the second waits, then finds nothing to do
                state = refuse_newer(db, where)
                if state.pending:
                    now = datetime.now(UTC)
                    if not state.fresh and where != ":memory:":
                        # the committed database as it is, read beside this transaction (WAL), before any change
                        backup(path, backup_name(path, state, now, backup_dir))
                    migrations.apply(db)
                    record_applied(db, state.pending, now)
    except BaseException:
        db.conn.close()
        raise
    return db
