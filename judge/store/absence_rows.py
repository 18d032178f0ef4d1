"""Periods players declared absent (SET ABSENCE): no deadline of their game falls inside one."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database


def absence_rows(db: Database, game_id: int, after: str) -> list[dict[str, Any]]:
    """The game's absences that end after ``after`` (ISO UTC), with the player each belongs to."""
    return list(
        db.query(
            "select * from absences where game_id = ? and ends > ? order by starts, id",
            [game_id, after],
        )
    )


def days_declared(db: Database, game_id: int, player_id: int, year: int) -> int:
    rows = list(
        db.query(
            "select coalesce(sum(days), 0) as n from absences where game_id = ? and player_id = ? and year = ?",
            [game_id, player_id, year],
        )
    )
    return int(rows[0]["n"])


def add_absence(db: Database, row: dict[str, Any]) -> None:
    db.table("absences").insert(row)


def clear_absences(db: Database, game_id: int, player_id: int, after: str) -> int:
    """Withdraw the player's absences that have not begun by ``after``; return how many."""
    cursor = db.execute(
        "delete from absences where game_id = ? and player_id = ? and starts > ?", [game_id, player_id, after]
    )
    return int(cursor.rowcount)


def drop_player_absences(db: Database, player_id: int) -> None:
    """Every absence of a seat (its player is replaced: the new one declares their own)."""
    db.execute("delete from absences where player_id = ?", [player_id])
