"""Adjudication of a Winter adjustment phase: builds, removals, waives and civil disorder.

A power with more centres than units may build up to the difference, one unit per owned, empty home centre (or, by
the variant's ``builds`` rule, any owned, empty centre); orders
beyond that are void, in the order given. A power with more units than centres removes the difference; removals it
did not order are chosen by civil disorder: the units farthest from the power's home centres go first (distance in
moves; an army may count moves across land and sea, a fleet only the moves it could make), fleets before armies at
equal distance, then in alphabetical order of the province's name (DATC v2.4, 6.J). In the datc-3 edition (DATC v3.0,
the 2023 rule) the distance is to the nearest centre the power owns, and fleets count moves across land and sea as
armies do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from judge.rules.board import Position, Unit
from judge.rules.edition import RulesEdition
from judge.rules.geography import Geography, UnitKind
from judge.rules.legality import ADJUSTMENTS_ONLY, check_build, own_unit
from judge.rules.orders import Build, Disband, Order, Outcome, Waive
from judge.rules.variant import Builds, Variant
from judge.rules.words import Name, Reason


@dataclass(frozen=True)
class AdjustmentOutcome:
    order_outcomes: list[tuple[Outcome, str | None, Order]]  # per submitted order, in order (void keeps the order)
    civil_disorder: list[Unit]  # units removed because the power ordered too few removals


def adjustment_delta(variant: Variant, pos: Position, power: str) -> int:
    """Builds (positive) or removals (negative) the power is due."""
    return pos.centre_count(power) - len(pos.units_of(power))


def can_build_somewhere(variant: Variant, pos: Position, power: str) -> bool:
    return bool(free_build_sites(variant, pos, power))


def free_build_sites(variant: Variant, pos: Position, power: str) -> tuple[int, ...]:
    """The owned, empty centres where ``power`` may build now, by the variant's ``builds`` rule."""
    return tuple(c for c in variant.build_sites(pos.owners, power) if pos.owners.get(c) == power and c not in pos.units)


def adjudicate_adjustments(
    variant: Variant,
    pos: Position,
    power: str,
    orders: list[Order],
    units: dict[int, Unit],
    edition: RulesEdition,
) -> AdjustmentOutcome:
    """Apply one power's orders to ``units`` (changed in place) by the rules ``edition`` and report each order's
    outcome."""
    geo = variant.geo
    delta = adjustment_delta(variant, pos, power)
    home = variant.build_sites(pos.owners, power)
    done: list[tuple[Outcome, str | None, Order]] = []
    used = 0
    removed: set[int] = set()
    for order in orders:
        if isinstance(order, Build | Waive):
            entry = _build(variant, pos, power, order, (delta, used), home, units)
            if entry[0] is Outcome.SUCCEEDS:
                used += 1
        elif isinstance(order, Disband):
            entry = _remove(geo, pos, power, order, delta, removed, units)
        else:
            entry = (Outcome.VOID, ADJUSTMENTS_ONLY, order)
        done.append(entry)
    disorder: list[Unit] = []
    if delta < 0 and len(removed) < -delta:
        left = [u for p, u in units.items() if u.power == power]
        far = civil_disorder_order(geo, left, disorder_centres(variant, pos, power, edition), edition)
        for unit in far[: -delta - len(removed)]:
            del units[geo.loc_province[unit.loc]]
            disorder.append(unit)
    return AdjustmentOutcome(done, disorder)


def _build(
    variant: Variant,
    pos: Position,
    power: str,
    order: Build | Waive,
    counts: tuple[int, int],
    home: tuple[int, ...],
    units: dict[int, Unit],
) -> tuple[Outcome, str | None, Order]:
    """One build or waive, ``counts`` = (the power's adjustment, builds used so far); a build is added to ``units``."""
    geo = variant.geo
    delta, used = counts
    if delta <= 0:
        return (Outcome.VOID, Reason("{power} has no builds this winter", power=Name(power)), order)
    if used >= delta:
        return (Outcome.VOID, Reason("{power} may build only {count}", power=Name(power), count=delta), order)
    if isinstance(order, Waive):
        return (Outcome.SUCCEEDS, None, order)
    checked = check_build(geo, pos, power, order, home, variant.builds is Builds.HOME)
    if isinstance(checked, str):
        return (Outcome.VOID, checked, order)
    prov = geo.loc_province[checked.loc]
    if prov in units:
        return (Outcome.VOID, Reason("{where} already has a build", where=geo.provinces[prov].named), order)
    units[prov] = Unit(power, checked.kind, checked.loc)
    return (Outcome.SUCCEEDS, None, checked)


def _remove(
    geo: Geography,
    pos: Position,
    power: str,
    order: Disband,
    delta: int,
    removed: set[int],
    units: dict[int, Unit],
) -> tuple[Outcome, str | None, Order]:
    """One removal; a unit removed leaves ``units`` and its province joins ``removed``."""
    if delta >= 0:
        return (Outcome.VOID, Reason("{power} has no units to remove this winter", power=Name(power)), order)
    unit = own_unit(geo, pos.units, power, order)
    if isinstance(unit, str):
        return (Outcome.VOID, unit, order)
    prov = geo.loc_province[unit.loc]
    if prov in removed:
        return (Outcome.VOID, "that unit is already removed", order)
    if len(removed) >= -delta:
        return (Outcome.VOID, Reason("{power} must remove only {count}", power=Name(power), count=-delta), order)
    removed.add(prov)
    del units[prov]
    return (Outcome.SUCCEEDS, None, Disband(unit.kind, unit.loc))


def disorder_centres(variant: Variant, pos: Position, power: str, edition: RulesEdition) -> list[int]:
    """The centres civil disorder measures distance to: the variant's (home centres, or owned ones with
    ``all-homes``); in the datc-3 edition the centres the power owns."""
    if edition is RulesEdition.DATC3:
        return sorted(c for c, owner in pos.owners.items() if owner == power)
    return list(variant.removal_homes(pos.owners, power))


def civil_disorder_order(geo: Geography, units: list[Unit], homes: list[int], edition: RulesEdition) -> list[Unit]:
    """Units in the order civil disorder removes them."""
    far = len(geo.provinces) + 1
    over_all = edition is RulesEdition.DATC3  # fleets too count moves across land and sea

    def key(unit: Unit) -> tuple[int, int, str]:
        prov = geo.loc_province[unit.loc]
        return (
            -_distance(geo, unit, set(homes), far, over_all),
            0 if unit.kind is UnitKind.FLEET else 1,
            geo.provinces[prov].name.lower(),
        )

    return sorted(units, key=key)


def _distance(geo: Geography, unit: Unit, homes: set[int], far: int, over_all: bool) -> int:
    """Moves from the unit to the nearest of ``homes``: an army may cross land and sea, a fleet only its own
    moves (DATC 6.J, 2000 rules), or with ``over_all`` land and sea as an army (DATC v3.0, 2023 rules)."""

    def fleet_step(loc: int) -> Iterable[int]:
        return geo.fleet_adj[loc]

    def army_step(prov: int) -> Iterable[int]:
        return geo.army_adj[prov] | geo.fleet_reach[prov] | _coast_reach(geo, prov)

    step: Callable[[int], Iterable[int]]
    if unit.kind is UnitKind.FLEET and not over_all:
        start = unit.loc
        step = fleet_step
        where: Sequence[int] = geo.loc_province
    else:
        start = geo.loc_province[unit.loc]
        step = army_step
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
