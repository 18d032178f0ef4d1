"""Adjudication of a Winter adjustment phase: builds, removals, waives and civil disorder.

A power with more centres than units may build up to the difference, one unit per owned, empty home centre; orders
beyond that are void, in the order given. A power with more units than centres removes the difference; removals it
did not order are chosen by civil disorder: the units farthest from the power's home centres go first (distance in
moves; an army may count moves across land and sea, a fleet only the moves it could make), fleets before armies at
equal distance, then in alphabetical order of the province's name (DATC v2.4, 6.J).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judge.rules.board import Position, Unit
from judge.rules.geography import Geography, UnitKind
from judge.rules.legality import check_build, own_unit
from judge.rules.orders import Build, Disband, Order, Outcome, Waive
from judge.rules.variant import Variant
from judge.rules.words import Name, Reason


@dataclass(frozen=True)
class AdjustmentOutcome:
    order_outcomes: list[tuple[Outcome, str | None, Order]]  # per submitted order, in order (void keeps the order)
    civil_disorder: list[Unit]  # units removed because the power ordered too few removals


def adjustment_delta(variant: Variant, pos: Position, power: str) -> int:
    """Builds (positive) or removals (negative) the power is due."""
    return pos.centre_count(power) - len(pos.units_of(power))


def can_build_somewhere(variant: Variant, pos: Position, power: str) -> bool:
    return any(pos.owners.get(c) == power and c not in pos.units for c in variant.home_centres(power))


def adjudicate_adjustments(
    variant: Variant, pos: Position, power: str, orders: list[Order], units: dict[int, Unit]
) -> AdjustmentOutcome:
    """Apply one power's orders to ``units`` (changed in place) and report each order's outcome."""
    geo = variant.geo
    delta = adjustment_delta(variant, pos, power)
    home = variant.home_centres(power)
    done: list[tuple[Outcome, str | None, Order]] = []
    used = 0
    removed: set[int] = set()
    for order in orders:
        if isinstance(order, (Build, Waive)):
            if delta <= 0:
                done.append((Outcome.VOID, Reason("{power} has no builds this winter", power=Name(power)), order))
                continue
            if used >= delta:
                done.append(
                    (Outcome.VOID, Reason("{power} may build only {count}", power=Name(power), count=delta), order)
                )
                continue
            if isinstance(order, Waive):
                used += 1
                done.append((Outcome.SUCCEEDS, None, order))
                continue
            checked = check_build(geo, pos, power, order, home)
            if isinstance(checked, str):
                done.append((Outcome.VOID, checked, order))
                continue
            prov = geo.loc_province[checked.loc]
            if prov in units:
                done.append(
                    (Outcome.VOID, Reason("{where} already has a build", where=geo.provinces[prov].name), order)
                )
                continue
            units[prov] = Unit(power, checked.kind, checked.loc)
            used += 1
            done.append((Outcome.SUCCEEDS, None, checked))
        elif isinstance(order, Disband):
            if delta >= 0:
                done.append(
                    (Outcome.VOID, Reason("{power} has no units to remove this winter", power=Name(power)), order)
                )
                continue
            unit = own_unit(geo, pos.units, power, order)
            if isinstance(unit, str):
                done.append((Outcome.VOID, unit, order))
                continue
            prov = geo.loc_province[unit.loc]
            if prov in removed:
                done.append((Outcome.VOID, "that unit is already removed", order))
                continue
            if len(removed) >= -delta:
                done.append(
                    (Outcome.VOID, Reason("{power} must remove only {count}", power=Name(power), count=-delta), order)
                )
                continue
            removed.add(prov)
            del units[prov]
            done.append((Outcome.SUCCEEDS, None, Disband(unit.kind, unit.loc)))
        else:
            done.append((Outcome.VOID, "only builds, removals and waives are given in an adjustment phase", order))
    disorder: list[Unit] = []
    if delta < 0 and len(removed) < -delta:
        left = [u for p, u in units.items() if u.power == power]
        far = civil_disorder_order(geo, left, list(home))
        for unit in far[: -delta - len(removed)]:
            del units[geo.loc_province[unit.loc]]
            disorder.append(unit)
    return AdjustmentOutcome(done, disorder)


def civil_disorder_order(geo: Geography, units: list[Unit], homes: list[int]) -> list[Unit]:
    """Units in the order civil disorder removes them."""
    far = len(geo.provinces) + 1

    def key(unit: Unit) -> tuple[int, int, str]:
        prov = geo.loc_province[unit.loc]
        return (
            -_distance(geo, unit, set(homes), far),
            0 if unit.kind is UnitKind.FLEET else 1,
            geo.provinces[prov].name.lower(),
        )

    return sorted(units, key=key)


def _distance(geo: Geography, unit: Unit, homes: set[int], far: int) -> int:
    """Moves from the unit to the nearest home centre: an army may cross land and sea, a fleet only its own
    moves (DATC 6.J, 2000 rules)."""
    if unit.kind is UnitKind.FLEET:
        start = unit.loc
        step = lambda loc: geo.fleet_adj[loc]  # noqa: E731
        where: Sequence[int] = geo.loc_province
    else:
        start = geo.loc_province[unit.loc]
        step = lambda prov: geo.army_adj[prov] | geo.fleet_reach[prov] | _coast_reach(geo, prov)  # noqa: E731
        where = range(len(geo.loc_names))  # province ids map to themselves
    seen = {start}
    frontier = [start]
    dist = 0
    while frontier:
        if any(where[x] in homes for x in frontier):
            return dist
        dist += 1
        nxt = []
        for x in frontier:
            for y in step(x):
                if y not in seen:
                    seen.add(y)
                    nxt.append(y)
        frontier = nxt
    return far


def _coast_reach(geo: Geography, prov: int) -> frozenset[int]:
    out: set[int] = set()
    for loc in geo.coast_locs[prov]:
        out |= geo.fleet_reach[loc]
    return frozenset(out)
