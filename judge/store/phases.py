"""Played phases: the board before and after, the orders given and each order's result, in the order played."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database


def keep_phase(db: Database, game_id: int, phase: str, record: dict[str, str]) -> None:
    """Keep (or replace, after a rollback) the played ``phase``: board_before, orders, results, board_after (JSON
    texts) and adjudicated_at."""
    db.table("phases").upsert({"game_id": game_id, "phase": phase, **record}, pk=("game_id", "phase"))


def phase_codes(db: Database, game_id: int) -> list[str]:
    """The played phases' codes, first to last."""
    return [r["phase"] for r in db.query("select phase from phases where game_id = ? order by rowid", [game_id])]


def played_phases(db: Database, game_id: int, *, latest_first: bool = False) -> list[dict[str, Any]]:
    """Every played phase's row, first to last (or last to first)."""
    order = "desc" if latest_first else ""
    return list(db.query(f"select * from phases where game_id = ? order by rowid {order}", [game_id]))


def discard_phases_from(db: Database, game_id: int, phase: str) -> tuple[str, list[str]] | None:
    """Discard ``phase`` and every later one, and the orders given for them: the board before ``phase`` (JSON text)
    and the discarded codes; None (nothing changed) when ``phase`` was never played."""
    rows = list(db.query("select rowid, board_before from phases where game_id = ? and phase = ?", [game_id, phase]))
    if not rows:
        return None
    later = [
        r["phase"]
        for r in db.query(
            "select phase from phases where game_id = ? and rowid >= ? order by rowid", [game_id, rows[0]["rowid"]]
        )
    ]
    db.execute(f"delete from phases where game_id = ? and phase in ({','.join('?' * len(later))})", [game_id, *later])
    db.execute(
        "delete from orders where game_id = ? and phase not in (select phase from phases where game_id = ?)",
        [game_id, game_id],
    )
    return str(rows[0]["board_before"]), later


def played_phase(db: Database, game_id: int, phase: str) -> dict[str, Any] | None:
    """board_before, board_after and results (JSON texts) of the played ``phase`` (None: it was not played)."""
    rows = list(
        db.query(
            "select board_before, board_after, results from phases where game_id = ? and phase = ?", [game_id, phase]
        )
    )
    return rows[0] if rows else None
