"""Keeping the database bounded: pruning old mail bodies and records, and the size of every table.

What is pruned, and when (``[judge]`` settings): the body and HTML of mail sent (or failed) more than
``mail_retention_days`` ago (default 30), while its record moves to ``mail_log`` (recipient, subject, Message-ID,
status, times); map pictures once no mail waiting to be sent carries them (``judge map GAME PHASE`` draws one
again); records of handled mail, used OpenPGP signatures, sign-on failures and quarantined mail older than
``handled_retention_days`` (default 90). Games, phases, orders and the event log are never pruned.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlite_utils import Database

from judge.store.db import write
from judge.store.statuses import OutboxStatus
from judge.timeutil import iso_utc


@dataclass(frozen=True)
class Pruned:
    mail_bodies: int
    pictures: int
    handled: int
    signon_failures: int
    quarantine: int
    signatures: int = 0


def prune(db: Database, now: datetime, *, mail_days: float = 30, handled_days: float = 90) -> Pruned:
    mail_cutoff = iso_utc(now - timedelta(days=mail_days))
    handled_cutoff = iso_utc(now - timedelta(days=handled_days))
    with write(db):
        # the record moves to mail_log and the row with its body leaves the outbox: deleting the oldest rows frees
        # whole pages for reuse, where emptying the bodies in place would leave every page mostly empty. The newest
        # row always stays, so that outbox ids are never given out twice.
        old = (
            "from outbox where ((status = ? and sent_at < ?) or (status = ? and created_at < ?)) "
            "and id < (select max(id) from outbox)"
        )
        old_params = [OutboxStatus.SENT, mail_cutoff, OutboxStatus.FAILED, mail_cutoff]
        db.execute(
            "insert into mail_log (outbox_id, to_addr, subject, message_id, status, created_at, sent_at, "
            "attempts, last_error, game_id, in_reply_to) select id, to_addr, subject, message_id, status, "
            f"created_at, sent_at, attempts, last_error, game_id, in_reply_to {old}",
            old_params,
        )
        bodies = db.execute(f"delete {old}", old_params).rowcount
        # a map is kept while a mail that carries it waits to be sent; after that `judge map GAME PHASE` draws it
        pictures = db.execute(
            "delete from pictures where id not in (select picture_id from outbox where picture_id is not null "
            "and status in (?, ?))",
            [OutboxStatus.QUEUED, OutboxStatus.SENDING],
        ).rowcount
        db.execute(
            "update outbox set picture_id = null where picture_id is not null "
            "and picture_id not in (select id from pictures)"
        )
        handled = db.execute("delete from messages where received_at < ?", [handled_cutoff]).rowcount
        failures = db.execute("delete from signon_failures where at < ?", [handled_cutoff]).rowcount
        quarantine = db.execute("delete from quarantine where at < ?", [handled_cutoff]).rowcount
        # a used signature is kept as long as handled mail is: longer than max_mail_age_days (the configuration
        # checks it), past which a signature is refused for its age before its digest is looked at
        signatures = db.execute("delete from used_signatures where at < ?", [handled_cutoff]).rowcount
    return Pruned(bodies, pictures, handled, failures, quarantine, signatures)


def table_sizes(db: Database) -> list[tuple[str, int, int]]:
    """(table, rows, bytes on disk including its indexes), largest first."""
    pages: dict[str, int] = {}
    owner = {
        r["name"]: r["tbl_name"]
        for r in db.query("select name, tbl_name from sqlite_master where type in ('table', 'index')")
    }
    try:
        for r in db.query("select name, sum(pgsize) as size from dbstat group by name"):
            table = owner.get(r["name"], r["name"])
            pages[table] = pages.get(table, 0) + int(r["size"])
    except sqlite3.OperationalError:  # an SQLite built without the dbstat table: rows only
        pass
    out = []
    for table in db.table_names():
        rows = db.execute(f'select count(*) from "{table}"').fetchone()[0]
        out.append((table, int(rows), pages.get(table, 0)))
    return sorted(out, key=lambda t: (-t[2], t[0]))
