"""The calendar events mailed to players (issue #23): one row per game, address and phase (``m020``)."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database


def event_row(db: Database, game_id: int, address: str, phase: str) -> dict[str, Any] | None:
    """The event of ``phase`` mailed to ``address`` in the game, if one was."""
    rows = list(
        db.query(
            "select * from calendar_events where game_id = ? and address = ? and phase = ?", [game_id, address, phase]
        )
    )
    return rows[0] if rows else None


def open_event(db: Database, game_id: int, address: str, after: str) -> dict[str, Any] | None:
    """The latest event mailed to ``address`` in the game that is not cancelled and whose deadline is after ``after``
    (ISO UTC), if any."""
    rows = list(
        db.query(
            "select * from calendar_events where game_id = ? and address = ? and not cancelled and deadline > ? "
            "order by deadline desc limit 1",
            [game_id, address, after],
        )
    )
    return rows[0] if rows else None


def keep_event(db: Database, row: dict[str, Any]) -> None:
    """Write one event's row as it was just mailed (a new one, or an update of the same game, address and phase)."""
    db.execute(
        "insert into calendar_events (game_id, address, phase, uid, sequence, deadline, cancelled, updated_at) "
        "values (:game_id, :address, :phase, :uid, :sequence, :deadline, :cancelled, :updated_at) "
        "on conflict (game_id, address, phase) do update set uid = excluded.uid, sequence = excluded.sequence, "
        "deadline = excluded.deadline, cancelled = excluded.cancelled, updated_at = excluded.updated_at",
        row,
    )
