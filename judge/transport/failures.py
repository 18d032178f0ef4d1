"""Telling game masters about mail that could not be delivered: one digest per master, at most one an hour."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlite_utils import Database

from judge.game.settings import GameSettings
from judge.reports.outbox import send
from judge.store import write
from judge.timeutil import iso_utc, parse_iso_utc

log = logging.getLogger(__name__)

DIGEST_EVERY = timedelta(hours=1)


def report_failures(db: Database, now: datetime) -> int:
    """Queue a digest of newly failed mail to each game's master (not more than one an hour); return how many."""
    by_master: dict[str, list[dict[str, Any]]] = {}
    nobody: list[int] = []
    for row in db.query(
        "select o.id, o.to_addr, o.subject, o.last_error, o.created_at, g.name as game, "
        "g.settings from outbox o left join games g on g.id = o.game_id "
        "where o.status = 'failed' and coalesce(o.reported, 0) = 0 order by o.id"
    ):
        master = (GameSettings.from_json(row["settings"]).master or "").lower() if row["settings"] else ""
        if not master or master == row["to_addr"].lower():  # no one to tell, or the master's own mail failed
            nobody.append(row["id"])
            continue
        by_master.setdefault(master, []).append(row)
    queued = 0
    with write(db):
        if nobody:
            db.execute(f"update outbox set reported = 1 where id in ({','.join('?' * len(nobody))})", nobody)
            log.warning(
                "smtp: %d undeliverable mail(s) with no game master to tell; see judge outbox list --status failed",
                len(nobody),
            )
        for master, rows in by_master.items():
            key = f"failure_digest:{master}"
            last = list(db.query("select value from meta where key = ?", [key]))
            if last and now - parse_iso_utc(last[0]["value"]) < DIGEST_EVERY:
                continue
            failures = [
                {
                    "to": r["to_addr"],
                    "subject": r["subject"],
                    "error": r["last_error"] or "",
                    "game": r["game"],
                    "queued": r["created_at"],
                }
                for r in rows
            ]
            send(db, master, "delivery_failed", now, failures=failures)
            ids = [r["id"] for r in rows]
            db.execute(f"update outbox set reported = 1 where id in ({','.join('?' * len(ids))})", ids)
            db.table("meta").upsert({"key": key, "value": iso_utc(now)}, pk="key")
            queued += 1
    return queued
