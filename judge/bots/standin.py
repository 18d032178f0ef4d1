"""The stand-in: orders for a power nobody plays, chosen greedily from province values (judge.bots.province_values).

Movement: the units, the most promising first, each take the best destination it can reach (or stay), now and then
the next best when it is worth nearly as much (the seed decides); a destination another unit of the power already
goes to is left, so the power never bounces itself. A move into a province a unit of its own does not leave becomes
a support of that unit; units left holding support a move of their own power into a contested province, or a
threatened neighbour. No convoys. Retreats: the most valuable province the unit may retreat to that no other unit of
the power retreats to, else disband. Adjustments: builds in the most valuable free home centres (army or fleet,
whichever is worth more there), removals of the units worth least where they stand.

Every order is checked by the rules engine (``judge.rules.legality.check_order``); one it refused would become a
hold or disband (never happens: the property tests say so). The same variant, position, power and seed give the same
orders.
"""

from __future__ import annotations

import random
from functools import partial

from judge.bots.province_values import Values, values_for
from judge.rules.adjustments import adjustment_delta
from judge.rules.board import Position, Unit
from judge.rules.edition import RulesEdition
from judge.rules.geography import Geography, Terrain, UnitKind
from judge.rules.legality import check_order, retreat_options
from judge.rules.orders import Build, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove
from judge.rules.phase import Step
from judge.rules.variant import Variant

ALTERNATIVE = 0.2  # the chance of taking the next best destination when it is worth nearly as much
NEARLY = 0.9  # "nearly as much": at least this share of the better value (values may be negative: see _close)


def orders_for(
    variant: Variant, pos: Position, power: str, seed: int, edition: RulesEdition = RulesEdition.Y2000
) -> list[Order]:
    """A complete set of legal orders for ``power`` in ``pos`` by the rules ``edition``: one per unit (movement), one
    per dislodged unit (retreats), the builds it can use or the removals it owes (adjustments)."""
    rng = random.Random(f"{seed}/{pos.phase.code}/{power}")
    step = pos.phase.step
    if step is Step.MOVEMENT:
        chosen: list[Order] = list(_movement(variant, pos, power, rng))
    elif step is Step.RETREAT:
        chosen = list(_retreats(variant, pos, power))
    else:
        chosen = list(_adjustments(variant, pos, power))
    return [_checked(variant, pos, power, order, edition) for order in chosen]


def _checked(variant: Variant, pos: Position, power: str, order: Order, edition: RulesEdition) -> Order:
    checked = check_order(variant, pos, power, order, edition)
    if not isinstance(checked, str):
        return checked
    if isinstance(order, Retreat):  # pragma: no cover - the bot only retreats to the rules' own options
        return Disband(order.kind, order.loc)
    if isinstance(order, Move | SupportHold | SupportMove):  # pragma: no cover - moves and supports are checked
        return Hold(order.kind, order.loc)
    raise AssertionError(f"the stand-in gave an order the rules refuse: {checked}")  # pragma: no cover


def _options(geo: Geography, unit: Unit) -> list[int]:
    """Where the unit may go (locations; a fleet's coasts as they are), its own location first."""
    if unit.kind is UnitKind.ARMY:
        return [unit.loc, *sorted(geo.army_adj[unit.loc])]
    return [unit.loc, *sorted(geo.fleet_adj[unit.loc])]


def _close(better: float, worse: float) -> bool:
    return worse >= better - abs(better) * (1 - NEARLY)


class _Plan:
    """The power's units choosing in turn: where each goes, which support the ones that back another give."""

    def __init__(self, geo: Geography, pos: Position, values: Values) -> None:
        self.geo, self.pos, self.values = geo, pos, values
        self.target: dict[int, int] = {}  # unit location -> location it goes to (its own: stays)
        self.backing: dict[int, Order] = {}  # unit location -> its support of a unit of the power chosen before
        self.going_to: dict[int, int] = {}  # province -> location of the unit of the power that goes or stays there
        self.helped: dict[int, int] = {}  # province -> supports given to the unit going there

    def worth(self, unit: Unit, loc: int) -> float:
        prov = self.geo.loc_province[loc]
        return self.values.of(unit.kind, prov) + (self.values.keep[prov] if loc == unit.loc else 0.0)

    def free_choices(self, unit: Unit, ranked: list[int]) -> list[int]:
        """The destinations no unit of the power has taken, best first; empty when the best one is taken by a unit
        that needs help there (the unit then backs it: ``backing``)."""
        geo = self.geo
        choices: list[int] = []
        for loc in ranked:
            there = geo.loc_province[loc]
            if there not in self.going_to:
                choices.append(loc)
            elif (
                not choices
                and there != geo.loc_province[unit.loc]
                and self.values.competition[there] - self.helped.get(there, 0) > 0
            ):
                self.helped[there] = self.helped.get(there, 0) + 1
                friend = self.pos.units[geo.loc_province[self.going_to[there]]]
                self.backing[unit.loc] = (
                    SupportHold(unit.kind, unit.loc, friend.loc)
                    if geo.loc_province[friend.loc] == there
                    else SupportMove(unit.kind, unit.loc, friend.loc, self.target[friend.loc])
                )
                return []
        return choices or [unit.loc]

    def choose(self, unit: Unit, ranked: list[int], rng: random.Random) -> None:
        choices = self.free_choices(unit, ranked)
        if unit.loc in self.backing:
            choices = [unit.loc]
        pick = 0
        while (
            pick + 1 < len(choices)
            and _close(self.worth(unit, choices[pick]), self.worth(unit, choices[pick + 1]))
            and rng.random() < ALTERNATIVE
        ):
            pick += 1
        self.target[unit.loc] = choices[pick]
        self.going_to.setdefault(self.geo.loc_province[choices[pick]], unit.loc)


def _movement(variant: Variant, pos: Position, power: str, rng: random.Random) -> list[Order]:
    geo = variant.geo
    plan = _Plan(geo, pos, values_for(variant, pos, power))
    mine = sorted((u for u in pos.units.values() if u.power == power), key=lambda u: u.loc)
    ranked: dict[int, list[int]] = {}
    for unit in mine:
        options = _options(geo, unit)
        rng.shuffle(options)  # equal values fall the way the seed says
        ranked[unit.loc] = sorted(options, key=partial(_minus_worth, plan, unit))
    # the units whose best destination is worth most choose first
    mine.sort(key=lambda u: -plan.worth(u, ranked[u.loc][0]))
    for unit in mine:
        plan.choose(unit, ranked[unit.loc], rng)
    target, backing = plan.target, plan.backing
    _no_self_bounce(geo, pos, power, target)
    for src, order in list(backing.items()):  # a support of a move that was called off supports the unit staying
        if isinstance(order, SupportMove) and target.get(order.origin) != order.dest:
            kind = pos.units[geo.loc_province[src]].kind
            if geo.can_reach_province(kind, src, geo.loc_province[order.origin]):
                backing[src] = SupportHold(order.kind, order.loc, order.origin)
            else:
                del backing[src]
    return _supports(geo, pos, plan.values, target, backing)


def _minus_worth(plan: _Plan, unit: Unit, loc: int) -> float:
    return -plan.worth(unit, loc)


def _no_self_bounce(geo: Geography, pos: Position, power: str, target: dict[int, int]) -> None:
    """A move into a province a unit of the power stays in (or swaps with) would fail against itself: it stays."""
    changed = True
    while changed:
        changed = False
        going = {geo.loc_province[src]: geo.loc_province[dst] for src, dst in target.items()}
        for src, dst in sorted(target.items()):
            here, there = geo.loc_province[src], geo.loc_province[dst]
            if here == there:
                continue
            occupant = pos.units.get(there)
            if occupant is None or occupant.power != power:
                continue
            if going.get(there, there) in (there, here):
                target[src] = src
                changed = True
                break


def _supports(
    geo: Geography, pos: Position, values: Values, target: dict[int, int], backing: dict[int, Order]
) -> list[Order]:
    """The moves, and for every unit that stays: a support of a move of the power into a contested province, else of
    a threatened unit of the power next to it, else a hold."""
    orders: list[Order] = []
    support_count: dict[int, int] = {}
    moves = {
        geo.loc_province[src]: dst for src, dst in target.items() if geo.loc_province[src] != geo.loc_province[dst]
    }
    staying = [src for src, dst in sorted(target.items()) if geo.loc_province[src] == geo.loc_province[dst]]
    for src, dst in sorted(target.items()):
        if geo.loc_province[src] != geo.loc_province[dst]:
            unit = pos.units[geo.loc_province[src]]
            orders.append(Move(unit.kind, src, dst))
    for src in staying:
        if src in backing:
            orders.append(backing[src])
            there = geo.loc_province[getattr(backing[src], "dest", getattr(backing[src], "target", src))]
            support_count[there] = support_count.get(there, 0) + 1
            continue
        unit = pos.units[geo.loc_province[src]]
        order = _best_support(geo, pos, unit, values, moves, support_count)
        orders.append(order)
    return orders


def _best_support(
    geo: Geography, pos: Position, unit: Unit, values: Values, moves: dict[int, int], support_count: dict[int, int]
) -> Order:
    here = geo.loc_province[unit.loc]
    best: tuple[float, Order] | None = None
    for origin, dst in sorted(moves.items()):
        there = geo.loc_province[dst]
        if there == here or not geo.can_reach_province(unit.kind, unit.loc, there):
            continue
        need = values.competition[there] - support_count.get(there, 0)
        if need <= 0:
            continue
        worth = values.of(pos.units[origin].kind, there) + 1000 * need
        if best is None or worth > best[0]:
            best = (worth, SupportMove(unit.kind, unit.loc, pos.units[origin].loc, dst))
    if best is not None:
        order = best[1]
        assert isinstance(order, SupportMove)
        there = geo.loc_province[order.dest]
        support_count[there] = support_count.get(there, 0) + 1
        return order
    for prov in sorted(geo.provinces[p].id for p in _neighbours(geo, unit)):
        friend = pos.units.get(prov)
        if friend is None or friend.power != unit.power or prov in moves:
            continue
        if values.competition[prov] > 0:
            return SupportHold(unit.kind, unit.loc, friend.loc)
    return Hold(unit.kind, unit.loc)


def _neighbours(geo: Geography, unit: Unit) -> frozenset[int]:
    if unit.kind is UnitKind.ARMY:
        return geo.army_adj[geo.loc_province[unit.loc]]
    return geo.fleet_reach[unit.loc]


def _retreats(variant: Variant, pos: Position, power: str) -> list[Order]:
    geo = variant.geo
    values = values_for(variant, pos, power)
    taken: set[int] = set()
    orders: list[Order] = []
    for prov, dis in sorted(pos.dislodged.items()):
        if dis.unit.power != power:
            continue
        options = [o for o in retreat_options(geo, pos, prov) if geo.loc_province[o] not in taken]
        if not options:
            orders.append(Disband(dis.unit.kind, dis.unit.loc))
            continue
        best = max(options, key=lambda loc: (values.of(dis.unit.kind, geo.loc_province[loc]), -loc))
        taken.add(geo.loc_province[best])
        orders.append(Retreat(dis.unit.kind, dis.unit.loc, best))
    return orders


def _adjustments(variant: Variant, pos: Position, power: str) -> list[Order]:
    geo = variant.geo
    delta = adjustment_delta(variant, pos, power)
    if delta == 0:
        return []
    values = values_for(variant, pos, power)
    if delta < 0:
        mine = sorted(
            (u for u in pos.units.values() if u.power == power),
            key=lambda u: (values.of(u.kind, geo.loc_province[u.loc]), u.loc),
        )
        return [Disband(u.kind, u.loc) for u in mine[:-delta]]
    free = [c for c in variant.home_centres(power) if pos.owners.get(c) == power and c not in pos.units]
    builds = [_build(geo, values, c) for c in free]
    builds.sort(key=lambda b: (-b[0], b[1].loc))
    return [b for _, b in builds[:delta]]


def _build(geo: Geography, values: Values, centre: int) -> tuple[float, Build]:
    """The better unit to build in a free home centre, and what it is worth there."""
    army = (values.army[centre], Build(UnitKind.ARMY, centre))
    prov = geo.provinces[centre]
    if prov.terrain is not Terrain.COAST:
        return army
    fleets = [
        (values.fleet[centre] + 0.001 * len(geo.fleet_adj[loc]), Build(UnitKind.FLEET, loc))
        for loc in (geo.coast_locs[centre] or (centre,))
    ]
    fleet = max(fleets, key=lambda f: (f[0], -f[1].loc))
    return fleet if fleet[0] > army[0] else army
