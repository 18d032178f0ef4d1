"""Which judge wrote a database: its migrations against the ones this judge knows, the judge version that applied
each, and the refusal of a database a newer judge wrote.

A database whose ``_sqlite_migrations`` names a migration this judge does not know was brought up to date by a newer
judge. This judge refuses it, whatever the command: it would read and write the newer forms with the older meanings
(an order acknowledged and stored in the old form, then voided by the newer judge). Since ``m012_judge_versions``
every migration applied is recorded with the version of the judge that applied it, so the refusal names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlite_utils import Database

from judge import __version__
from judge.store.schema import KNOWN, migrations
from judge.timeutil import iso_utc


class NewerDatabase(Exception):
    """The database was written by a newer judge; the message says which, and what to do."""


@dataclass(frozen=True)
class SchemaState:
    """What the database holds against what this judge knows."""

    applied: tuple[str, ...]  # the judge's migrations applied, in the order they were
    pending: tuple[str, ...]  # the migrations this judge would apply, in order
    unknown: tuple[str, ...]  # applied migrations this judge does not know: a newer judge applied them
    versions: dict[str, str]  # migration -> the judge version that applied it (m012 on)

    @property
    def fresh(self) -> bool:
        """No migration applied yet: a new, empty database."""
        return not self.applied

    @property
    def last(self) -> str | None:
        return self.applied[-1] if self.applied else None

    @property
    def written_by(self) -> str | None:
        """The version of the judge that applied the newest migration, when it was recorded."""
        return self.versions.get(self.last) if self.last else None

    def label(self) -> str:
        """The schema in a few words, for a file name or a line: ``0.2.0-m013`` or ``m011`` (no version kept)."""
        if self.last is None:
            return "empty"
        short = self.last.split("_", 1)[0]
        return f"{self.written_by}-{short}" if self.written_by else short


def schema_state(db: Database) -> SchemaState:
    applied = tuple(m.name for m in migrations.applied(db))
    known = set(KNOWN)
    versions: dict[str, str] = {}
    if db["judge_versions"].exists():  # written before m012: no versions kept
        versions = {r["migration"]: r["judge_version"] for r in db.query("select * from judge_versions")}
    return SchemaState(
        applied=applied,
        pending=tuple(name for name in KNOWN if name not in set(applied)),
        unknown=tuple(name for name in applied if name not in known),
        versions=versions,
    )


def refusal(state: SchemaState, where: str) -> str:
    """The one line that refuses a database a newer judge wrote."""
    newer = sorted({state.versions[n] for n in state.unknown if n in state.versions})
    by = f"judge {', '.join(newer)}" if newer else "a newer judge"
    names = ", ".join(state.unknown)
    return (
        f"{where} was written by {by} (its schema has {names}, which judge {__version__} does not know): "
        f"upgrade the judge to {newer[-1] if newer else 'that version'} or later, or restore the backup taken "
        f"before the upgrade (docs/deploy.md, 'Upgrading and rolling back')"
    )


def refuse_newer(db: Database, where: str) -> SchemaState:
    """The database's state; raises NewerDatabase when a newer judge wrote it."""
    state = schema_state(db)
    if state.unknown:
        raise NewerDatabase(refusal(state, where))
    return state


def record_applied(db: Database, names: tuple[str, ...], now: datetime) -> None:
    """Record this judge's version against the migrations it has just applied (in the same transaction)."""
    for name in names:
        db.execute(
            "insert or replace into judge_versions (migration, judge_version, applied_at) values (?, ?, ?)",
            [name, __version__, iso_utc(now)],
        )
