"""Copies of the database made with SQLite's online backup: consistent while the daemon is running or stopped.

The judge makes one before the first migration runs on a database (``open_db``), named with the schema it holds and
the judge that is about to migrate it (``judge.m011.before-0.2.0.20261204T210000Z.db``,
``judge.0.2.0-m013.before-0.3.0.<time>.db``), beside the database or in ``[judge] backup_dir``; ``judge db backup
FILE`` makes one on demand. A copy is written to a temporary name and renamed when complete, so a crash never leaves
half a backup under the final name, and it keeps the database's file mode (it holds password hashes).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from datetime import datetime
from pathlib import Path

from judge import __version__
from judge.store.versions import SchemaState

BUSY_TIMEOUT_S = 30.0


class BackupError(Exception):
    """A backup could not be made; the message says why (nothing was migrated)."""


def backup(source: str | Path, target: str | Path) -> Path:
    """Copy the database at ``source`` into ``target`` (a new file) with SQLite's online backup; returns ``target``.
    Raises BackupError when ``target`` exists or cannot be written."""
    source, target = Path(source), Path(target)
    if target.exists():
        raise BackupError(f"{target} exists; give another name (a backup never overwrites a file)")
    if not source.is_file():
        raise BackupError(f"there is no database at {source}")
    part = target.with_name(f".{target.name}.part")
    try:
        with (
            contextlib.closing(sqlite3.connect(source, timeout=BUSY_TIMEOUT_S)) as src,
            contextlib.closing(sqlite3.connect(part)) as dst,
        ):
            src.backup(dst)
            dst.execute("pragma journal_mode = delete")  # a stand-alone file: no -wal beside it to lose when moved
        os.chmod(part, source.stat().st_mode & 0o777)
        os.replace(part, target)
    except (OSError, sqlite3.Error) as exc:
        with contextlib.suppress(OSError):
            part.unlink()
        raise BackupError(f"cannot write the backup {target}: {exc}") from None
    return target


def backup_name(database: str | Path, state: SchemaState, now: datetime, folder: str | Path | None = None) -> Path:
    """Where the backup before migrating ``database`` goes: named with the schema it holds and this judge, and a new
    file."""
    db = Path(database)
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    base = f"{db.stem}.{state.label()}.before-{__version__}.{stamp}"
    place = Path(folder) if folder else db.parent
    name, n = place / f"{base}{db.suffix or '.db'}", 1
    while name.exists():  # a second try within the same second (an upgrade killed and started again at once)
        name, n = place / f"{base}-{n}{db.suffix or '.db'}", n + 1
    return name
