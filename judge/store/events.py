"""The event log: who did what to which game, when (rows are appended, never changed)."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from sqlite_utils import Database


def log_event(db: Database, game_id: int | None, at: str, sender: str, kind: str, detail: Any = None) -> None:
    """Append one event; ``detail`` is kept as JSON."""
    db.execute(
        "insert into events (game_id, at, sender, kind, detail) values (?, ?, ?, ?, ?)",
        [game_id, at, sender, kind, json.dumps(detail, ensure_ascii=False) if detail is not None else None],
    )


def events_of(db: Database, game_id: int, kind: EventKind) -> list[tuple[str, Any]]:
    """(at, detail) of a game's events of ``kind``, oldest first."""
    rows = db.query("select at, detail from events where game_id = ? and kind = ? order by id", [game_id, kind])
    return [(r["at"], json.loads(r["detail"]) if r["detail"] else None) for r in rows]


def logged_since(db: Database, kind: EventKind, sender: str, since: str) -> bool:
    """Whether an event of ``kind`` was logged for ``sender`` after ``since``."""
    return bool(list(db.query("select 1 from events where kind = ? and sender = ? and at > ?", [kind, sender, since])))


def count_since(db: Database, kind: EventKind, sender: str, since: str) -> int:
    """How many events of ``kind`` were logged for ``sender`` after ``since``."""
    row = db.execute("select count(*) from events where kind = ? and sender = ? and at > ?", [kind, sender, since])
    return int(row.fetchone()[0])


def last_logged_at(db: Database, game_id: int, kind: EventKind, sender: str) -> str | None:
    """When the last event of ``kind`` in the game was logged for ``sender`` (None: never)."""
    rows = list(
        db.query(
            "select at from events where game_id = ? and kind = ? and sender = ? order by id desc limit 1",
            [game_id, kind, sender],
        )
    )
    return rows[0]["at"] if rows else None


class EventKind(StrEnum):
    """What an event records (stored as its value)."""

    CREATE = "create"
    JOIN = "join"
    OBSERVE = "observe"
    START = "start"
    PAUSE = "pause"
    RESUME = "resume"
    REPLACE = "replace"
    EJECT = "eject"
    ROLLBACK = "rollback"
    END = "end"
    DELETE = "delete"
    SETTINGS = "settings"
    EXTENDED = "extended"  # the deadline
    SHORTENED = "shortened"
    GRACE = "grace"
    ADJUDICATE = "adjudicate"
    DRAW_PROPOSE = "draw-propose"
    DRAW_ACCEPT = "draw-accept"
    DRAW_REJECT = "draw-reject"
    DRAW = "draw"
    RESIGN = "resign"
    CONCEDE = "concede"  # a player of a two-power game gave it up: the other power won
    PASSWORD = "password"
    PRESS = "press"
    SIGNON_FAILED = "signon-failed"
    SIGNON_HELD = "signon-held"
    SIGNON_ALERT = "signon-alert"
    REPLIES_PAUSED = "replies-paused"
    INTERNAL_ERROR = "internal-error"
    ABSENCE = "absence"  # SET ABSENCE declared or withdrawn
    MASTER_PASSWORD = "master-password"  # the game master's password was set (never the password itself)
    MASTER_SIGNON_FAILED = "master-signon-failed"
    ABANDONED = "abandoned"  # a power missed abandon_after deadlines in a row: civil disorder
    EXCUSED = "excused"  # a miss excused (the excuses setting): power, phase, address
    KEY = "key"  # an OpenPGP key registered or removed for a seat (its fingerprint, never more)
    SIGNATURE_REFUSED = "signature-refused"  # a signed mail refused whole (why, and the key named)
    TAKEOVER_ASKED = "takeover-asked"  # TAKEOVER waiting for the game master's approval
    TAKEOVER_REJECTED = "takeover-rejected"
