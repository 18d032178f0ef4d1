"""Diaries (kept until the game ends), postal press (kept until the next results mail) and a player's press default."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database


def add_diary(db: Database, game_id: int, power: str, phase: str, body: str, at: str) -> None:
    db.table("diaries").insert({"game_id": game_id, "power": power, "phase": phase, "body": body, "written_at": at})


def diary_rows(db: Database, game_id: int) -> list[dict[str, Any]]:
    """Every diary entry of the game, in the order written."""
    return list(db.query("select * from diaries where game_id = ? order by id", [game_id]))


def diary_count(db: Database, game_id: int, power: str) -> int:
    rows = list(db.query("select count(*) as n from diaries where game_id = ? and power = ?", [game_id, power]))
    return int(rows[0]["n"])


def add_postal(db: Database, game_id: int, power: str, grey: bool, phase: str, body: str, at: str) -> None:
    db.table("postal_press").insert(
        {
            "game_id": game_id,
            "power": power,
            "grey": int(grey),
            "phase": phase,
            "body": body,
            "written_at": at,
            "published_at": None,
        }
    )


def publish_postal(db: Database, game_id: int, at: str) -> list[dict[str, Any]]:
    """The game's postal press not yet published, in the order written, now marked published at ``at``."""
    rows = list(
        db.query("select * from postal_press where game_id = ? and published_at is null order by id", [game_id])
    )
    if rows:
        db.execute("update postal_press set published_at = ? where game_id = ? and published_at is null", [at, game_id])
    return rows


def published_postal_rows(db: Database, game_id: int) -> list[dict[str, Any]]:
    """The game's postal press already published, in the order written (``published_at``: the time of the mail)."""
    return list(
        db.query("select * from postal_press where game_id = ? and published_at is not null order by id", [game_id])
    )


def press_shade(db: Database, player_id: int) -> str | None:
    """The player's SET PRESS choice (white or grey), None when never set."""
    rows = list(db.query("select press_shade from players where id = ?", [player_id]))
    return rows[0]["press_shade"] if rows else None


def set_press_shade(db: Database, player_id: int, shade: str) -> None:
    db.execute("update players set press_shade = ? where id = ?", [shade, player_id])
