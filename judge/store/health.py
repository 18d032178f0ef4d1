"""``judge db check``: the database looked over without changing it, one finding a line.

Four findings: SQLite's integrity check, its foreign keys, the schema against the migrations this judge knows (and
which judge applied them), and mail stuck in the queue. The file is opened read-only and never migrated, so the check
runs on a database an upgrade has not touched yet (it says what the next start will apply) and on one a newer judge
wrote (it says so, where every other command refuses it).
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from sqlite_utils import Database

from judge import __version__
from judge.store.statuses import OutboxStatus
from judge.store.versions import refusal, schema_state
from judge.timeutil import iso_utc

STUCK_AFTER = timedelta(hours=1)  # mail due (or claimed by a sender) this long ago and still not sent is stuck


@dataclass(frozen=True)
class Finding:
    topic: str  # integrity | foreign keys | schema | mail queue
    ok: bool
    text: str

    def line(self) -> str:
        return f"{self.topic}: {self.text}"


def check(path: str | Path, now: datetime) -> list[Finding]:
    """The four findings on the database at ``path`` (which must exist), read-only."""
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=30)) as conn:
        db = Database(conn)
        return [_integrity(db), _foreign_keys(db), _schema(db, str(path)), _mail_queue(db, now)]


def _integrity(db: Database) -> Finding:
    rows = [r[0] for r in db.execute("pragma integrity_check").fetchall()]
    if rows == ["ok"]:
        return Finding("integrity", True, "ok")
    return Finding("integrity", False, f"{len(rows)} problems, the first: {rows[0]}")


def _foreign_keys(db: Database) -> Finding:
    rows = db.execute("pragma foreign_key_check").fetchall()
    if not rows:
        return Finding("foreign keys", True, "ok")
    counts: dict[str, int] = {}
    for table, _rowid, parent, _fk in rows:
        counts[f"{table} -> {parent}"] = counts.get(f"{table} -> {parent}", 0) + 1
    listed = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    return Finding("foreign keys", False, f"{len(rows)} rows refer to rows that are gone ({listed})")


def _schema(db: Database, where: str) -> Finding:
    state = schema_state(db)
    if state.unknown:
        return Finding("schema", False, refusal(state, where))
    if state.fresh:
        return Finding("schema", True, f"empty; judge {__version__} creates it at the first use")
    by = f"judge {state.written_by}" if state.written_by else f"a judge before {__version__} (no version kept)"
    now = f"{state.last}, applied by {by}"
    if not state.pending:
        return Finding("schema", True, f"{now}; up to date for judge {__version__}")
    return Finding(
        "schema",
        True,
        f"{now}; judge {__version__} applies {len(state.pending)} migrations at its next start, after a backup "
        f"({', '.join(state.pending)})",
    )


def _mail_queue(db: Database, now: datetime) -> Finding:
    if not db["outbox"].exists():
        return Finding("mail queue", True, "no queue yet")
    cutoff = iso_utc(now - STUCK_AFTER)
    known = [s.value for s in OutboxStatus]
    marks = ",".join("?" * len(known))
    row = db.execute(
        "select "
        "sum(status = ?), sum(status = ?), sum(status = ?), "
        f"sum(status not in ({marks}) or status is null), "
        "sum(status = ? and (next_attempt is null or next_attempt < ?)), "
        "sum(status = ? and (claimed_at is null or claimed_at < ?)), "
        "min(case when status = ? then next_attempt end) "
        "from outbox",
        [
            OutboxStatus.QUEUED,
            OutboxStatus.SENDING,
            OutboxStatus.FAILED,
            *known,
            OutboxStatus.QUEUED,
            cutoff,
            OutboxStatus.SENDING,
            cutoff,
            OutboxStatus.QUEUED,
        ],
    ).fetchone()
    queued, sending, failed, unknown, overdue, stale, oldest = (v or 0 for v in row)
    counts = f"{queued} waiting, {sending} being sent, {failed} failed"
    stuck = unknown + overdue + stale
    if not stuck:
        return Finding("mail queue", True, f"{counts}; none stuck")
    why = []
    if overdue:
        why.append(f"{overdue} due over an hour ago (the oldest due {oldest}): is the SMTP server refusing?")
    if stale:
        why.append(f"{stale} claimed by a sender over an hour ago (the next start sends them again)")
    if unknown:
        why.append(f"{unknown} with a status this judge does not know")
    return Finding("mail queue", False, f"{counts}; {stuck} stuck: " + "; ".join(why))
