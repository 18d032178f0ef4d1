"""Who owes what in the current phase: the powers with orders to give, the players still silent, who is still in."""

from __future__ import annotations

from sqlite_utils import Database

from judge.game.records import (
    Game,
    Player,
    orders_of,
)
from judge.rules.adjustments import adjustment_delta, can_build_somewhere
from judge.rules.board import Position
from judge.rules.phase import Step


def owing_powers(game: Game) -> set[str]:
    """Powers that have orders to give in the current phase."""
    pos = game.position
    if pos is None:
        return set()
    step = pos.phase.step
    if step is Step.MOVEMENT:
        return {u.power for u in pos.units.values()}
    if step is Step.RETREAT:
        return {d.unit.power for d in pos.dislodged.values()}
    return {
        p
        for p in game.variant.powers
        if (d := adjustment_delta(game.variant, pos, p)) < 0 or (d > 0 and can_build_somewhere(game.variant, pos, p))
    }


def late_players(db: Database, game: Game, seats: list[Player]) -> list[Player]:
    owing = owing_powers(game)
    given = orders_of(db, game.id, game.phase or "")
    return [p for p in seats if p.active and p.power in owing and not given.get(p.power)]


def has_presence(pos: Position, power: str | None) -> bool:
    return power is not None and (any(u.power == power for u in pos.units.values()) or power in pos.owners.values())
