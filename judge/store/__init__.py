"""The judge's SQLite store: schema (migrations), opening a database, the one write transaction.

``is_busy``, ``open_db`` and ``write`` are taken from ``judge.store.db`` when first asked for (PEP 562), so that a
module of the store that needs no database (``statuses``) is imported without sqlite-utils: ``judge --version`` and
the parser of every command start without it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.store.db import is_busy, open_db, write

__all__ = ["is_busy", "open_db", "write"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from judge.store import db

        return getattr(db, name)
    raise AttributeError(f"module 'judge.store' has no attribute {name!r}")


def import_sqlite_utils() -> None:
    """Import sqlite-utils without numpy and pandas, when neither is imported yet.

    sqlite-utils imports numpy (and pandas) whenever they are installed, to map their number types to columns; the
    judge stores no such values, and the import costs a command line 60-100 ms and the daemon some 38 MB. Hidden
    while sqlite-utils is imported, they stay importable afterwards for whoever needs them (shapely, in the geometry
    tool). The entry points call this before anything imports the store."""
    if "sqlite_utils" in sys.modules:
        return
    hidden = [name for name in ("numpy", "pandas") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import numpy` raises ImportError meanwhile
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]
