"""The event log: who did what to which game, when (rows are appended, never changed)."""

from __future__ import annotations

import json
from typing import Any

from sqlite_utils import Database


def log_event(db: Database, game_id: int | None, at: str, sender: str, kind: str, detail: Any = None) -> None:
    """Append one event; ``detail`` is kept as JSON."""
    db.execute(
        "insert into events (game_id, at, sender, kind, detail) values (?, ?, ?, ?, ?)",
        [game_id, at, sender, kind, json.dumps(detail, ensure_ascii=False) if detail is not None else None],
    )


def events_of(db: Database, game_id: int, kind: str) -> list[tuple[str, Any]]:
    """(at, detail) of a game's events of ``kind``, oldest first."""
    rows = db.query("select at, detail from events where game_id = ? and kind = ? order by id", [game_id, kind])
    return [(r["at"], json.loads(r["detail"]) if r["detail"] else None) for r in rows]
