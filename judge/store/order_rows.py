"""The orders each power has given for the current phase: each line as the power wrote it (replies quote it) beside
the order it was read as on arrival, typed (``judge.rules.order_json``; None for a line from before m009 that could
not be read then). Nothing reads the words again to know the order."""

from __future__ import annotations

import json
from typing import Any

from sqlite_utils import Database

Given = tuple[str, dict[str, Any] | None]  # a line as written, and its typed order


def orders_of(db: Database, game_id: int, phase: str) -> dict[str, list[str]]:
    """Each power's lines as written (what it sent; the played phase keeps them so)."""
    return {power: [text for text, _ in given] for power, given in given_orders(db, game_id, phase).items()}


def given_orders(db: Database, game_id: int, phase: str) -> dict[str, list[Given]]:
    """Each power's lines with their typed orders, in the order given."""
    rows = db.query("select power, lines, typed from orders where game_id = ? and phase = ?", [game_id, phase])
    return {r["power"]: unpack(r["lines"], r["typed"]) for r in rows}


def set_orders(db: Database, game_id: int, phase: str, power: str, given: list[Given], at: str) -> None:
    db.execute(
        "insert into orders (game_id, phase, power, lines, typed, updated_at) values (?, ?, ?, ?, ?, ?) "
        "on conflict (game_id, phase, power) do update set lines = excluded.lines, typed = excluded.typed, "
        "updated_at = excluded.updated_at",
        [game_id, phase, power, *pack(given), at],
    )


def pack(given: list[Given]) -> tuple[str, str]:
    """The ``lines`` and ``typed`` columns (JSON lists, one item a line) that keep ``given``."""
    return json.dumps([text for text, _ in given]), json.dumps([typed for _, typed in given])


def unpack(lines: str, typed: str | None) -> list[Given]:
    """The lines and typed orders kept in the ``lines`` and ``typed`` columns (no typed column: none read)."""
    texts = json.loads(lines)
    return list(zip(texts, json.loads(typed) if typed is not None else [None] * len(texts), strict=True))
