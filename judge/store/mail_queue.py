"""The outgoing mail as the store keeps it: queued messages with their fixed Message-IDs, and the board pictures kept
per game, phase and language (results mail refers to them instead of carrying a copy)."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.store.statuses import OutboxStatus
from judge.timeutil import iso_utc


def keep_picture(db: Database, game_id: int, phase: str, language: str, png: bytes, at: str) -> int:
    """Keep (or replace) the picture of ``phase`` in ``language``; returns its row id."""
    db.execute(
        "insert into pictures (game_id, phase, language, png, created_at) values (?, ?, ?, ?, ?) "
        "on conflict (game_id, phase, language) do update set png = excluded.png, "
        "created_at = excluded.created_at",
        [game_id, phase, language, png, at],
    )
    row = list(
        db.query("select id from pictures where game_id = ? and phase = ? and language = ?", [game_id, phase, language])
    )
    return int(row[0]["id"])


def queue_mail(
    db: Database,
    to: str,
    subject: str,
    body: str,
    now: datetime,
    *,
    game_id: int | None = None,
    in_reply_to: str | None = None,
    html: str | None = None,
    image: bytes | None = None,
    picture_id: int | None = None,
    thread_refs: str | None = None,
    calendar: str | None = None,
) -> None:
    """Queue one mail. Its Message-ID is fixed now (random, with the judge's domain) and kept by every retry.
    ``calendar``: the iCalendar text of the invitation it carries."""
    db.execute(
        "insert into outbox (to_addr, subject, body, status, created_at, in_reply_to, game_id, attempts, "
        "html, image, picture_id, next_attempt, message_id, thread_refs, calendar) "
        "values (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)",
        [
            to,
            subject,
            body,
            OutboxStatus.QUEUED,
            iso_utc(now),
            in_reply_to,
            game_id,
            html,
            image,
            picture_id,
            iso_utc(now),
            new_message_id(db),
            thread_refs or None,
            calendar,
        ],
    )


def new_message_id(db: Database) -> str:
    """A globally unique Message-ID: 128 random bits at the judge's domain (or a bare token, given the domain when
    sent, while the judge's address is not yet known to this database)."""
    token = secrets.token_hex(16)
    rows = list(db.query("select value from meta where key = 'judge_address'"))
    domain = rows[0]["value"].rpartition("@")[2] if rows and rows[0]["value"] else ""
    return f"<{token}@{domain}>" if domain else token


def kept_picture(db: Database, game_id: int, phase: str, language: str) -> int | None:
    """The row id of the kept picture of ``phase`` in ``language``, if there is one."""
    rows = list(
        db.query("select id from pictures where game_id = ? and phase = ? and language = ?", [game_id, phase, language])
    )
    return int(rows[0]["id"]) if rows else None


# --- sending: claims, outcomes, retries -----------------------------------------------------------------------------


def _marks(ids: list[int]) -> str:
    return ",".join("?" * len(ids))


def requeue_claims(db: Database, claimed_before: str | None = None) -> int:
    """Put mail claimed for sending back in the queue: every claim, or those made before ``claimed_before``; returns
    how many."""
    if claimed_before is None:
        cur = db.execute(
            "update outbox set status = ?, claimed_at = null where status = ?",
            [OutboxStatus.QUEUED, OutboxStatus.SENDING],
        )
    else:
        cur = db.execute(
            "update outbox set status = ?, claimed_at = null where status = ? and claimed_at < ?",
            [OutboxStatus.QUEUED, OutboxStatus.SENDING, claimed_before],
        )
    return cur.rowcount


def due_mail(db: Database, now: str, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` queued mails due at ``now``: answers to a player's own message first, then due first, oldest
    first."""
    return list(
        db.query(
            "select * from outbox where status = ? and next_attempt <= ? "
            "order by in_reply_to is null, next_attempt, id limit ?",
            [OutboxStatus.QUEUED, now, limit],
        )
    )


def mark_claimed(db: Database, ids: list[int], at: str) -> None:
    """The mails ``ids`` are being sent (claimed at ``at``)."""
    db.execute(
        f"update outbox set status = ?, claimed_at = ?, first_attempt_at = coalesce(first_attempt_at, ?) "
        f"where id in ({_marks(ids)})",
        [OutboxStatus.SENDING, at, at, *ids],
    )


def unclaim(db: Database, ids: list[int]) -> None:
    """The claimed mails among ``ids`` go back to the queue as they were."""
    db.execute(
        f"update outbox set status = ?, claimed_at = null where status = ? and id in ({_marks(ids)})",
        [OutboxStatus.QUEUED, OutboxStatus.SENDING, *ids],
    )


def mark_sent(db: Database, outbox_id: int, at: str, message_id: str) -> None:
    db.execute(
        "update outbox set status = ?, sent_at = ?, message_id = ?, last_error = null, claimed_at = null, "
        "attempts = coalesce(attempts, 0) + 1 where id = ?",
        [OutboxStatus.SENT, at, message_id, outbox_id],
    )


def mark_failed(db: Database, outbox_id: int, reason: str, *, reported: bool = False, tried: bool = False) -> None:
    """The mail is given up for ``reason``; ``reported``: no one is to be told of it; ``tried``: a server refused
    it (that try counts in ``attempts``)."""
    if tried:
        db.execute("update outbox set attempts = coalesce(attempts, 0) + 1 where id = ?", [outbox_id])
    if reported:
        db.execute(
            "update outbox set status = ?, claimed_at = null, reported = 1, last_error = ? where id = ?",
            [OutboxStatus.FAILED, reason, outbox_id],
        )
    else:
        db.execute(
            "update outbox set status = ?, claimed_at = null, last_error = ? where id = ?",
            [OutboxStatus.FAILED, reason, outbox_id],
        )


def defer(db: Database, outbox_id: int, attempts: int, next_attempt: str, reason: str) -> None:
    """The mail was refused for now: queued again for ``next_attempt``."""
    db.execute(
        "update outbox set status = ?, claimed_at = null, attempts = ?, next_attempt = ?, last_error = ? where id = ?",
        [OutboxStatus.QUEUED, attempts, next_attempt, reason, outbox_id],
    )


def next_attempt_at(db: Database) -> str | None:
    """When the first queued mail is due (None: nothing is queued)."""
    rows = list(db.query("select min(next_attempt) as t from outbox where status = ?", [OutboxStatus.QUEUED]))
    return rows[0]["t"] if rows and rows[0]["t"] else None


def mail_waiting(db: Database) -> bool:
    """Whether any mail is queued or being sent."""
    return bool(
        list(db.query("select 1 from outbox where status in (?, ?)", [OutboxStatus.QUEUED, OutboxStatus.SENDING]))
    )


def picture_png(db: Database, picture_id: int) -> bytes | None:
    """The kept picture ``picture_id`` (None once pruned)."""
    found = list(db.query("select png from pictures where id = ?", [picture_id]))
    return found[0]["png"] if found else None


def complete_message_ids(db: Database, domain: str) -> None:
    """Mail queued before the judge's address was known carries a bare token as its Message-ID: put it at
    ``domain``."""
    db.execute(
        "update outbox set message_id = '<' || message_id || '@' || ? || '>' "
        "where status in (?, ?) and message_id not like '<%'",
        [domain, OutboxStatus.QUEUED, OutboxStatus.SENDING],
    )


def outbox_rows(db: Database, status: OutboxStatus | None = None) -> list[dict[str, Any]]:
    """Every row of the outbox (of one status), in the order queued."""
    where, params = ("where status = ?", [status]) if status else ("", [])
    return list(db.query(f"select * from outbox {where} order by id", params))


def outbox_row(db: Database, outbox_id: int) -> dict[str, Any] | None:
    """One row of the outbox, or None."""
    rows = list(db.query("select * from outbox where id = ?", [outbox_id]))
    return rows[0] if rows else None


def recent_replies(db: Database, to: str, since: str) -> list[str]:
    """When the answers to a player's message queued for ``to`` after ``since`` were queued, first to last."""
    return [
        r["created_at"]
        for r in db.query(
            "select created_at from outbox where to_addr = ? and in_reply_to is not null "
            "and created_at > ? order by created_at",
            [to, since],
        )
    ]


# --- failed mail told to game masters -------------------------------------------------------------------------------


def unreported_failures(db: Database) -> list[dict[str, Any]]:
    """Failed mail no one was told of yet, with its game's name (``game``) and settings, oldest first."""
    return list(
        db.query(
            "select o.id, o.to_addr, o.subject, o.last_error, o.created_at, g.name as game, "
            "g.settings from outbox o left join games g on g.id = o.game_id "
            "where o.status = ? and coalesce(o.reported, 0) = 0 order by o.id",
            [OutboxStatus.FAILED],
        )
    )


def mark_reported(db: Database, ids: list[int]) -> None:
    db.execute(f"update outbox set reported = 1 where id in ({_marks(ids)})", ids)


def last_digest_at(db: Database, master: str) -> str | None:
    """When the last digest of failed mail went to ``master`` (None: never)."""
    last = list(db.query("select value from meta where key = ?", [f"failure_digest:{master}"]))
    return last[0]["value"] if last else None


def set_last_digest_at(db: Database, master: str, at: str) -> None:
    db.table("meta").upsert({"key": f"failure_digest:{master}", "value": at}, pk="key")


# --- what one message queued ----------------------------------------------------------------------------------------


def last_queued_id(db: Database) -> int:
    """The id of the latest mail queued (0: none yet); what a message queues comes after it."""
    rows = list(db.query("select max(id) as m from outbox"))
    return int(rows[0]["m"] or 0)


def queued_after(db: Database, outbox_id: int) -> list[dict[str, Any]]:
    """The mail queued after ``outbox_id``, in the order queued."""
    return list(db.query("select * from outbox where id > ? order by id", [outbox_id]))
