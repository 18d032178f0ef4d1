"""Draw proposals and their votes, one proposal per game and turn."""

from __future__ import annotations

import json
from typing import Any

from sqlite_utils import Database

from judge.store.statuses import DrawStatus


def proposal(db: Database, game_id: int, turn: str) -> dict[str, Any] | None:
    """The proposal of ``turn`` (open or not): proposer, votes (a dict), status, the powers it names (a list, None
    for all survivors); None when there is none."""
    rows = list(db.query("select * from draws where game_id = ? and phase = ?", [game_id, turn]))
    if not rows:
        return None
    row = rows[0]
    named = json.loads(row["powers"]) if row.get("powers") else None
    return {**row, "votes": json.loads(row["votes"] or "{}"), "status": DrawStatus(row["status"]), "powers": named}


def propose(db: Database, game_id: int, turn: str, proposer: str, powers: list[str] | None = None) -> None:
    """A proposal of ``turn``; ``powers``: the powers the draw is among (None: every power still in the game)."""
    db.table("draws").insert(
        {
            "game_id": game_id,
            "phase": turn,
            "proposer": proposer,
            "votes": json.dumps({proposer: "accept"}),
            "status": DrawStatus.OPEN,
            "powers": json.dumps(powers) if powers is not None else None,
        }
    )


def record_votes(db: Database, game_id: int, turn: str, votes: dict[str, str], status: DrawStatus) -> None:
    db.table("draws").update((game_id, turn), {"votes": json.dumps(votes), "status": status})


def lapse_open(db: Database, game_id: int, except_turn: str | None = None) -> None:
    """Open proposals lapse (all of the game's, or all but the one of ``except_turn``)."""
    db.execute(
        "update draws set status = ? where game_id = ? and status = ? and phase != ?",
        [DrawStatus.LAPSED, game_id, DrawStatus.OPEN, except_turn or ""],
    )
