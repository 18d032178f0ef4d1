"""A power's order set for the current phase: merging new order lines into it, and summing it up for replies.

Order lines are stored as written (they are parsed again at adjudication). A new line replaces the earlier line for
the same unit; in an adjustment phase a line replaces the earlier one for the same province, and WAIVE lines add up.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.game.records import Game, Player, orders_of, set_orders
from judge.i18n import T, Text
from judge.rules.adjustments import adjudicate_adjustments, adjustment_delta
from judge.rules.legality import check_build, check_movement, check_retreat, own_unit, unconvoyable_moves
from judge.rules.orders import Build, Disband, Move, Order, Outcome, Waive, order_text
from judge.rules.parse import OrderError, parse_order
from judge.rules.phase import Step


def _checked(game: Game, power: str, text: str) -> Order | str:
    """The order a line means for this power in this phase, or why it is not valid."""
    assert game.position is not None
    pos, geo = game.position, game.variant.geo
    step = pos.phase.step
    parsed = parse_order(text, geo, step)
    if isinstance(parsed, OrderError):
        return parsed.reason
    if step is Step.MOVEMENT:
        return check_movement(geo, pos, power, parsed)
    if step is Step.RETREAT:
        return check_retreat(geo, pos, power, parsed)
    if isinstance(parsed, Build):
        return check_build(geo, pos, power, parsed, game.variant.home_centres(power))
    if isinstance(parsed, Disband):
        unit = own_unit(geo, pos.units, power, parsed)
        return unit if isinstance(unit, str) else Disband(unit.kind, unit.loc)
    if isinstance(parsed, Waive):
        return parsed
    return "only builds, removals and waives are given in an adjustment phase"


def _key(game: Game, order: Order) -> int | None:
    """The province an order is about (its unit, or the centre built in); None for a waive, which never replaces."""
    if isinstance(order, Waive):
        return None
    return game.variant.geo.loc_province[order.loc]


def _void_on_arrival(game: Game, power: str, kept: list[str], order: Order) -> str | None:
    """Why ``order``, added after the ``kept`` lines, would be void when the phase is adjudicated; None if it would
    not. The rules engine's own adjudication decides (builds beyond the allowance, a build where none is due, more
    removals than owed, a second build in one centre); an army's move that no chain of fleets could carry is void."""
    assert game.position is not None
    pos, variant = game.position, game.variant
    step = pos.phase.step
    if step is Step.ADJUSTMENT:
        earlier = [o for o in (_checked(game, power, line) for line in kept) if not isinstance(o, str)]
        done = adjudicate_adjustments(variant, pos, power, [*earlier, order], dict(pos.units))
        outcome, reason, _ = done.order_outcomes[-1]
        return reason or "void" if outcome is Outcome.VOID else None
    if step is Step.MOVEMENT and isinstance(order, Move):
        prov = variant.geo.loc_province[order.loc]
        return unconvoyable_moves(variant.geo, pos, {prov: order}).get(prov)
    return None


def merge_orders(db: Database, game: Game, player: Player, text: str, now: datetime) -> Text:
    """Add one order line to the player's set; the response says what was understood or what is wrong."""
    assert game.position is not None and player.power is not None
    order = _checked(game, player.power, text)
    if isinstance(order, str):
        return T("ERROR: {reason}", reason=order)
    phase = game.position.phase.code
    lines = orders_of(db, game.id, phase).get(player.power, [])
    key = _key(game, order)
    kept = []
    for line in lines:
        old = _checked(game, player.power, line)
        if isinstance(old, str) or key is None or _key(game, old) != key:
            kept.append(line)
    void = _void_on_arrival(game, player.power, kept, order)
    if void is not None:  # it would be void at the deadline: say so now, and keep the order set as it was
        return T("ERROR: {reason}", reason=void)
    kept.append(text)
    set_orders(db, game.id, phase, player.power, kept, now)
    return T("OK: {order}", order=order_text(game.variant.geo, order, game.position.units))


def order_summary(db: Database, game: Game, player: Player) -> dict[str, Any]:
    """The power's complete current order set, what still lacks orders, and its ready state."""
    assert game.position is not None and player.power is not None
    pos, geo = game.position, game.variant.geo
    lines = orders_of(db, game.id, pos.phase.code).get(player.power, [])
    orders = []
    covered: set[int] = set()
    for line in lines:
        order = _checked(game, player.power, line)
        if isinstance(order, str):
            continue
        orders.append(order_text(geo, order, pos.units))
        if not isinstance(order, Waive):
            covered.add(geo.loc_province[order.loc])
    step = pos.phase.step
    missing: list[str] = []
    if step is Step.MOVEMENT:
        missing = [
            f"{u.kind.value} {geo.loc_names[u.loc]}"
            for p, u in pos.units.items()
            if u.power == player.power and p not in covered
        ]
    elif step is Step.RETREAT:
        missing = [
            f"{d.unit.kind.value} {geo.loc_names[d.unit.loc]}"
            for p, d in pos.dislodged.items()
            if d.unit.power == player.power and p not in covered
        ]
    delta = adjustment_delta(game.variant, pos, player.power) if step is Step.ADJUSTMENT else 0
    return {
        "phase": pos.phase,
        "power": player.power,
        "orders": orders,
        "missing": sorted(missing),
        "ready": player.ready,
        "delta": delta,
        "given": len(orders),
    }
