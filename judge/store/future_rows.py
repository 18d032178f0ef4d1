"""Orders a power gave for a later phase of its game (``PHASE F1901R`` and its orders), kept as the lines it wrote
until that phase opens."""

from __future__ import annotations

import json

from sqlite_utils import Database


def future_lines(db: Database, game_id: int, phase: str, power: str) -> list[str]:
    rows = list(
        db.query(
            "select lines from future_orders where game_id = ? and phase = ? and power = ?", [game_id, phase, power]
        )
    )
    return list(json.loads(rows[0]["lines"])) if rows else []


def set_future_lines(db: Database, game_id: int, phase: str, power: str, lines: list[str], at: str) -> None:
    db.execute(
        "insert into future_orders (game_id, phase, power, lines, updated_at) values (?, ?, ?, ?, ?) "
        "on conflict (game_id, phase, power) do update set lines = excluded.lines, updated_at = excluded.updated_at",
        [game_id, phase, power, json.dumps(lines), at],
    )


def all_future_lines(db: Database, game_id: int) -> list[tuple[str, str, list[str]]]:
    """Every (phase, power, lines) kept for the game, in the order they were first given."""
    return [
        (r["phase"], r["power"], list(json.loads(r["lines"])))
        for r in db.query("select phase, power, lines from future_orders where game_id = ? order by rowid", [game_id])
    ]


def drop_future_lines(db: Database, game_id: int, phase: str, power: str) -> None:
    db.execute("delete from future_orders where game_id = ? and phase = ? and power = ?", [game_id, phase, power])


def drop_game_future_lines(db: Database, game_id: int) -> int:
    """Every order kept for a later phase of the game (a rollback makes them meaningless); return how many sets."""
    return int(db.execute("delete from future_orders where game_id = ?", [game_id]).rowcount)
