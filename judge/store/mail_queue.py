"""The outgoing mail as the store keeps it: queued messages with their fixed Message-IDs, and the board pictures kept
per game, phase and language (results mail refers to them instead of carrying a copy)."""

from __future__ import annotations

import secrets
from datetime import datetime

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
) -> None:
    """Queue one mail. Its Message-ID is fixed now (random, with the judge's domain) and kept by every retry."""
    db.execute(
        "insert into outbox (to_addr, subject, body, status, created_at, in_reply_to, game_id, attempts, "
        "html, image, picture_id, next_attempt, message_id, thread_refs) "
        "values (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)",
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
