"""The orders each power has given for the current phase, kept as the lines it wrote."""

from __future__ import annotations

import json

from sqlite_utils import Database


def orders_of(db: Database, game_id: int, phase: str) -> dict[str, list[str]]:
    rows = db.query("select power, lines from orders where game_id = ? and phase = ?", [game_id, phase])
    return {r["power"]: json.loads(r["lines"]) for r in rows}


def set_orders(db: Database, game_id: int, phase: str, power: str, lines: list[str], at: str) -> None:
    db.execute(
        "insert into orders (game_id, phase, power, lines, updated_at) values (?, ?, ?, ?, ?) "
        "on conflict (game_id, phase, power) do update set lines = excluded.lines, "
        "updated_at = excluded.updated_at",
        [game_id, phase, power, json.dumps(lines), at],
    )
