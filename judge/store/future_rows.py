"""Orders a power gave for a later phase of its game (``PHASE F1901R`` and its orders), kept until that phase opens:
each line as the power wrote it beside the order it was read as on arrival, typed (``judge.rules.order_json``)."""

from __future__ import annotations

from sqlite_utils import Database

from judge.store.order_rows import Given, pack, unpack


def future_lines(db: Database, game_id: int, phase: str, power: str) -> list[Given]:
    rows = list(
        db.query(
            "select lines, typed from future_orders where game_id = ? and phase = ? and power = ?",
            [game_id, phase, power],
        )
    )
    return unpack(rows[0]["lines"], rows[0]["typed"]) if rows else []


def set_future_lines(db: Database, game_id: int, phase: str, power: str, given: list[Given], at: str) -> None:
    db.execute(
        "insert into future_orders (game_id, phase, power, lines, typed, updated_at) values (?, ?, ?, ?, ?, ?) "
        "on conflict (game_id, phase, power) do update set lines = excluded.lines, typed = excluded.typed, "
        "updated_at = excluded.updated_at",
        [game_id, phase, power, *pack(given), at],
    )


def all_future_lines(db: Database, game_id: int) -> list[tuple[str, str, list[Given]]]:
    """Every (phase, power, lines with their typed orders) kept for the game, in the order they were first given."""
    return [
        (r["phase"], r["power"], unpack(r["lines"], r["typed"]))
        for r in db.query(
            "select phase, power, lines, typed from future_orders where game_id = ? order by rowid", [game_id]
        )
    ]


def drop_future_lines(db: Database, game_id: int, phase: str, power: str) -> None:
    db.execute("delete from future_orders where game_id = ? and phase = ? and power = ?", [game_id, phase, power])


def drop_game_future_lines(db: Database, game_id: int) -> int:
    """Every order kept for a later phase of the game (a rollback makes them meaningless); return how many sets."""
    return int(db.execute("delete from future_orders where game_id = ?", [game_id]).rowcount)
