"""How much each province is worth to one power, the way the published descriptions of rule-based bots (DumbBot's
province values) put it, written here afresh.

A supply centre owned by another power is worth attacking in proportion to that power's size; a centre of one's own
is worth defending in proportion to the largest enemy with a unit next to it; a neutral centre is worth a fixed
size. These values are then spread over the map: each round a province takes the mean of itself and its neighbours
(for an army over land, for a fleet over its moves), so a province near many valuable centres is worth going to. A
unit's choice of destination weighs the rounds (near first in the Fall, one step further in the Spring, when a
centre is taken only if the unit still stands there in the Fall), adds the power's own units next to it and takes off
the largest enemy's.

Pure: values from the variant and the position, nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.rules.board import Position
from judge.rules.geography import Geography, Terrain, UnitKind
from judge.rules.phase import Season
from judge.rules.variant import Variant

ROUNDS = 10  # how far value spreads over the map
# weights of the spread rounds: 0 is the province itself, 1 its neighbours' mean, and so on
FALL_WEIGHTS = (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1)
SPRING_WEIGHTS = (100, 1000, 30, 10, 6, 5, 4, 3, 2, 1)
# how attack and defence are weighed before the spread
FALL_ATTACK, FALL_DEFENCE = 600, 400
SPRING_ATTACK, SPRING_DEFENCE = 700, 300
STRENGTH_WEIGHT = 1000  # per own unit that could move into the province
COMPETITION_WEIGHT = 1000  # per unit of the strongest enemy that could move into it


def power_size(centres: int) -> int:
    """How big a power looks: grows faster than its centre count, so the leader draws attacks."""
    return centres * centres + 4 * centres + 16


@dataclass(frozen=True)
class Values:
    """Destination values for one power's armies and fleets, by province id; and the enemy units that could enter
    each province (the most of one power)."""

    army: tuple[float, ...]
    fleet: tuple[float, ...]
    competition: tuple[int, ...]
    strength: tuple[int, ...]
    keep: tuple[float, ...]  # what staying adds: in the Fall, on a centre the power does not own yet, it takes it

    def of(self, kind: UnitKind, province: int) -> float:
        return self.army[province] if kind is UnitKind.ARMY else self.fleet[province]


def graphs(geo: Geography) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """The province graphs armies and fleets move over."""
    army = tuple(tuple(sorted(geo.army_adj[p.id])) for p in geo.provinces)
    fleet: list[tuple[int, ...]] = []
    for p in geo.provinces:
        if p.terrain is Terrain.LAND:
            fleet.append(())
            continue
        locs = (p.id, *geo.coast_locs[p.id])
        reach: set[int] = set()
        for loc in locs:
            reach |= geo.fleet_reach[loc]
        reach.discard(p.id)
        fleet.append(tuple(sorted(reach)))
    return army, tuple(fleet)


def values_for(variant: Variant, pos: Position, power: str) -> Values:
    geo = variant.geo
    n = len(geo.provinces)
    sizes = {p: power_size(pos.centre_count(p)) for p in variant.powers}
    neutral = power_size(0)
    # the units of each power that could move into each province (its occupant counts too)
    could_enter: list[dict[str, int]] = [{} for _ in range(n)]
    for prov, unit in pos.units.items():
        could_enter[prov][unit.power] = could_enter[prov].get(unit.power, 0) + 1
        for target in _reach(geo, unit.kind, unit.loc):
            could_enter[target][unit.power] = could_enter[target].get(unit.power, 0) + 1
    competition = tuple(max((c for p, c in counts.items() if p != power), default=0) for counts in could_enter)
    strength = tuple(counts.get(power, 0) for counts in could_enter)
    attack = [0.0] * n
    defence = [0.0] * n
    for prov in variant.centres:
        owner = pos.owners.get(prov)
        if owner == power:
            enemies = [sizes[p] for p, c in could_enter[prov].items() if p != power and c and p in sizes]
            defence[prov] = max(enemies, default=0)
        elif owner is None:
            attack[prov] = neutral
        else:
            attack[prov] = sizes.get(owner, neutral)
    fall = pos.phase.season is not Season.SPRING
    a_weight, d_weight = (FALL_ATTACK, FALL_DEFENCE) if fall else (SPRING_ATTACK, SPRING_DEFENCE)
    weights = FALL_WEIGHTS if fall else SPRING_WEIGHTS
    base = [a_weight * attack[p] + d_weight * defence[p] for p in range(n)]
    army_graph, fleet_graph = graphs(geo)
    out = []
    for graph in (army_graph, fleet_graph):
        spread = _spread(base, graph, weights)
        out.append(
            tuple(spread[p] + STRENGTH_WEIGHT * strength[p] - COMPETITION_WEIGHT * competition[p] for p in range(n))
        )
    keep = tuple(
        weights[0] * base[p] if fall and p in variant.centres and pos.owners.get(p) != power else 0.0 for p in range(n)
    )
    return Values(out[0], out[1], competition, strength, keep)


def _spread(base: list[float], graph: tuple[tuple[int, ...], ...], weights: tuple[int, ...]) -> list[float]:
    total = [weights[0] * v for v in base]
    level = base
    for weight in weights[1:]:
        level = [(level[p] + sum(level[q] for q in graph[p])) / 5 for p in range(len(base))]
        for p in range(len(base)):
            total[p] += weight * level[p]
    return total


def _reach(geo: Geography, kind: UnitKind, loc: int) -> frozenset[int]:
    if kind is UnitKind.ARMY:
        return geo.army_adj[geo.loc_province[loc]]
    return geo.fleet_reach[loc]
