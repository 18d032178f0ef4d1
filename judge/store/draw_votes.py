"""Draw proposals and their votes, one proposal per game and turn."""

from __future__ import annotations

import json
from typing import Any

from sqlite_utils import Database

from judge.store.statuses import DrawStatus


def proposal(db: Database, game_id: int, turn: str) -> dict[str, Any] | None:
    """The proposal of ``turn`` (open or not): proposer, votes (a dict), status; None when there is none."""
    rows = list(db.query("select * from draws where game_id = ? and phase = ?", [game_id, turn]))
    if not rows:
        return None
    return {**rows[0], "votes": json.loads(rows[0]["votes"] or "{}"), "status": DrawStatus(rows[0]["status"])}


def propose(db: Database, game_id: int, turn: str, proposer: str) -> None:
    db.table("draws").insert(
        {
            "game_id": game_id,
            "phase": turn,
            "proposer": proposer,
            "votes": json.dumps({proposer: "accept"}),
            "status": DrawStatus.OPEN,
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
