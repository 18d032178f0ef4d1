"""Telling game masters about mail that could not be delivered: one digest per master, at most one an hour."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlite_utils import Database

from judge.game.settings import GameSettings
from judge.reports.outbox import send
from judge.store import mail_queue, write
from judge.timeutil import iso_utc, parse_iso_utc

log = logging.getLogger(__name__)

DIGEST_EVERY = timedelta(hours=1)


def report_failures(db: Database, now: datetime) -> int:
    """Queue a digest of newly failed mail to each game's master (not more than one an hour); return how many."""
    by_master: dict[str, list[dict[str, Any]]] = {}
    nobody: list[int] = []
    for row in mail_queue.unreported_failures(db):
        master = (GameSettings.from_json(row["settings"]).master or "").lower() if row["settings"] else ""
        if not master or master == row["to_addr"].lower():  # no one to tell, or the master's own mail failed
            nobody.append(row["id"])
            continue
        by_master.setdefault(master, []).append(row)
    queued = 0
    with write(db):
        if nobody:
            mail_queue.mark_reported(db, nobody)
            log.warning(
                "smtp: %d undeliverable mail(s) with no game master to tell; see judge outbox list --status failed",
                len(nobody),
            )
        for master, rows in by_master.items():
            last = mail_queue.last_digest_at(db, master)
            if last is not None and now - parse_iso_utc(last) < DIGEST_EVERY:
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
            mail_queue.mark_reported(db, [r["id"] for r in rows])
            mail_queue.set_last_digest_at(db, master, iso_utc(now))
            queued += 1
    return queued
