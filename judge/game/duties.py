"""Who owes what in the current phase: the powers with orders to give, the players still silent, who is still in."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database

from judge.game.records import (
    Game,
    Player,
    given_orders,
    orders_of,
)
from judge.game.settings import Resolve
from judge.rules.adjustments import adjustment_delta, can_build_somewhere, free_build_sites
from judge.rules.board import Position
from judge.rules.orders import Waive
from judge.rules.parse import OrderError
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


NOTHING_OWED: dict[str, Any] = {"units": [], "builds": 0, "removals": 0, "ready": False}


def owed(db: Database, game: Game, player: Player) -> dict[str, Any]:
    """What ``player`` still owes in the current phase, as a reminder lists it: the units without an order (movement,
    retreats), the builds or removals not yet given, and READY when the game waits for it; every key is there, and
    nothing is owed when no value is true."""
    pos = game.position
    if pos is None or not player.active or player.power not in owing_powers(game):
        return dict(NOTHING_OWED)
    power, geo, step = player.power, game.variant.geo, pos.phase.step
    given = [
        g.order for g in given_orders(db, game, pos.phase.code).get(power, []) if not isinstance(g.order, OrderError)
    ]
    covered = {geo.loc_province[o.loc] for o in given if not isinstance(o, Waive)}
    out: dict[str, Any] = dict(NOTHING_OWED)
    if step is Step.MOVEMENT:
        units = [u for prov, u in pos.units.items() if u.power == power and prov not in covered]
        out["units"] = sorted(f"{u.kind.value} {geo.loc_names[u.loc]}" for u in units)
    elif step is Step.RETREAT:
        units = [d.unit for prov, d in pos.dislodged.items() if d.unit.power == power and prov not in covered]
        out["units"] = sorted(f"{u.kind.value} {geo.loc_names[u.loc]}" for u in units)
    else:
        delta = adjustment_delta(game.variant, pos, power)
        if delta < 0:
            out["removals"] = max(0, -delta - len(given))
        else:
            free = len(free_build_sites(game.variant, pos, power))
            out["builds"] = max(0, min(delta, free) - len(given))
    if game.settings.resolve is Resolve.READY and not player.ready:
        out["ready"] = True
    return out


def has_presence(pos: Position, power: str | None) -> bool:
    return power is not None and (any(u.power == power for u in pos.units.values()) or power in pos.owners.values())


def orders_complete(db: Database, game: Game, power: str) -> bool:
    """Whether ``power`` has a complete set of valid orders in for the current phase: an order for every unit (every
    dislodged unit in a retreat phase), or as many removals as it owes, or as many builds and waives as it owes and
    has free home centres for. Orders are stored only when valid on arrival, typed as they were read then."""
    pos = game.position
    if pos is None:
        return False
    geo, step = game.variant.geo, pos.phase.step
    covered: set[int] = set()
    counted = 0
    for given in given_orders(db, game, pos.phase.code).get(power, []):
        order = given.order
        if isinstance(order, OrderError):
            continue
        counted += 1
        if not isinstance(order, Waive):
            covered.add(geo.loc_province[order.loc])
    if step is Step.MOVEMENT:
        return all(prov in covered for prov, u in pos.units.items() if u.power == power)
    if step is Step.RETREAT:
        return all(prov in covered for prov, d in pos.dislodged.items() if d.unit.power == power)
    delta = adjustment_delta(game.variant, pos, power)
    if delta < 0:
        return counted >= -delta
    free = len(free_build_sites(game.variant, pos, power))
    return counted >= min(delta, free)


def waiting_on(db: Database, game: Game, seats: list[Player]) -> list[Player]:
    """The active players an early resolution still waits for, by the game's ``resolve`` setting: those who owe orders
    and have not said READY; or (``orders-in``) those who owe orders and lack a complete set, or sent SET WAIT and
    have not said READY. A power that owes nothing is never waited for."""
    owing = owing_powers(game)
    waiting = []
    for p in seats:
        if not p.active or p.power not in owing or p.ready:
            continue
        if game.settings.resolve is Resolve.ORDERS_IN and not p.wait and orders_complete(db, game, p.power):
            continue
        waiting.append(p)
    return waiting
