"""A power's order set for the current phase: merging new orders into it, and summing it up for replies.

An order line is read once, when it arrives (``merge_orders``); the set keeps each line as written (replies quote
it) beside the order it was read as, typed, and nothing reads the words again. A new order replaces the earlier one
for the same unit; in an adjustment phase one replaces the earlier one for the same province, and WAIVEs add up.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.game import fog
from judge.game.records import Game, Player, given_orders, set_orders
from judge.i18n import T, Text
from judge.rules.adjustments import adjudicate_adjustments, adjustment_delta
from judge.rules.board import Position
from judge.rules.legality import check_order, unconvoyable_moves
from judge.rules.orders import Move, Order, Outcome, Waive, order_text
from judge.rules.parse import OrderError, parse_order
from judge.rules.phase import Step
from judge.rules.turn import Submitted
from judge.rules.visibility import imagined, visible_provinces


def _checked(game: Game, power: str, given: Order | OrderError) -> Order | str:
    """The order ``given`` means for this power in this phase, or why it is not valid (in a Fog of War game, on the
    board as the power sees it: ``_board``)."""
    assert game.position is not None
    if isinstance(given, OrderError):
        return given.reason
    return check_order(game.variant, _board(game, power, given), power, given, game.settings.rules)


def _board(game: Game, power: str, order: Order) -> Position:
    """The board ``order`` of ``power`` is checked on when it arrives: the game's, or in a Fog of War game that runs
    the one the power sees, with a unit imagined where the order names one out of its sight
    (judge.rules.visibility.imagined), so that no answer tells where another power's hidden units stand."""
    assert game.position is not None
    if not fog.fog_on(game):
        return game.position
    seen = visible_provinces(game.variant.geo, game.position, [power])
    return imagined(game.variant.geo, game.position, seen, order)


def _key(game: Game, order: Order) -> int | None:
    """The province an order is about (its unit, or the centre built in); None for a waive, which never replaces."""
    if isinstance(order, Waive):
        return None
    return game.variant.geo.loc_province[order.loc]


def _void_on_arrival(game: Game, power: str, kept: list[Submitted], order: Order) -> str | None:
    """Why ``order``, added after the ``kept`` orders, would be void when the phase is adjudicated; None if it would
    not. The rules engine's own adjudication decides (builds beyond the allowance, a build where none is due, more
    removals than owed, a second build in one centre); an army's move that no chain of fleets could carry is void."""
    assert game.position is not None
    pos, variant = game.position, game.variant
    step = pos.phase.step
    if step is Step.ADJUSTMENT:
        earlier = [o for o in (_checked(game, power, s.order) for s in kept) if not isinstance(o, str)]
        done = adjudicate_adjustments(variant, pos, power, [*earlier, order], dict(pos.units), game.settings.rules)
        outcome, reason, _ = done.order_outcomes[-1]
        return reason or "void" if outcome is Outcome.VOID else None
    if step is Step.MOVEMENT and isinstance(order, Move):
        prov = variant.geo.loc_province[order.loc]
        return unconvoyable_moves(variant.geo, _board(game, power, order), {prov: order}).get(prov)
    return None


def merge_orders(db: Database, game: Game, player: Player, text: str, now: datetime) -> Text:
    """Add one order line, as it arrives, to the player's set: it is read here, once; the response says what was
    understood or what is wrong."""
    assert game.position is not None and player.power is not None
    given = Submitted(player.power, text, parse_order(text, game.variant.geo, game.position.phase.step))
    return merge_given(db, game, player, given, now)


def merge_given(db: Database, game: Game, player: Player, given: Submitted, now: datetime) -> Text:
    """Add one order, read when it arrived (``given``: the line as written and what it was read as), to the player's
    set; the response says what was understood or what is wrong."""
    assert game.position is not None and player.power is not None
    order = _checked(game, player.power, given.order)
    if isinstance(order, str):
        return T("ERROR: {reason}", reason=order)
    phase = game.position.phase.code
    key = _key(game, order)
    kept = []
    for earlier in given_orders(db, game, phase).get(player.power, []):
        old = _checked(game, player.power, earlier.order)
        if isinstance(old, str) or key is None or _key(game, old) != key:
            kept.append(earlier)
    void = _void_on_arrival(game, player.power, kept, order)
    if void is not None:  # it would be void at the deadline: say so now, and keep the order set as it was
        return T("ERROR: {reason}", reason=void)
    set_orders(db, game, phase, player.power, [*kept, given], now)
    return T("OK: {order}", order=order_text(game.variant.geo, order, _board(game, player.power, order).units))


def order_summary(db: Database, game: Game, player: Player) -> dict[str, Any]:
    """The power's complete current order set, what still lacks orders, and its ready state."""
    assert game.position is not None and player.power is not None
    pos, geo = game.position, game.variant.geo
    orders = []
    covered: set[int] = set()
    for given in given_orders(db, game, pos.phase.code).get(player.power, []):
        order = _checked(game, player.power, given.order)
        if isinstance(order, str):
            continue
        orders.append(order_text(geo, order, _board(game, player.power, order).units))
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
