"""The map of a variant: provinces, coasts and who can move where.

Locations are small integers so that the adjudicator can index plain lists. Every province has a location whose id is
the province id; a province with split coasts also has one location per coast (ids after the provinces). Armies stand
on province locations, fleets on a split-coast province always stand on one of its coast locations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum


def name_words(text: str) -> tuple[str, ...]:
    """A place name as the words a lookup compares: lower case, no dots or apostrophes, hyphens as spaces."""
    cleaned = text.lower().replace(".", " ").replace("'", "").replace("-", " ").replace("_", " ")
    return tuple(cleaned.split())


class Terrain(Enum):
    LAND = "land"
    SEA = "sea"
    COAST = "coast"


class UnitKind(Enum):
    ARMY = "A"
    FLEET = "F"

    @property
    def noun(self) -> str:
        return "army" if self is UnitKind.ARMY else "fleet"


@dataclass(frozen=True, slots=True)
class Province:
    id: int
    abbr: str
    name: str
    terrain: Terrain
    centre: bool
    home: str | None
    coasts: tuple[str, ...]
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class Geography:
    """Provinces, locations and adjacency, with lookup tables derived once."""

    provinces: tuple[Province, ...]
    loc_names: tuple[str, ...]  # "spa", "spa/nc"
    loc_province: tuple[int, ...]  # location id -> province id
    army_adj: tuple[frozenset[int], ...]  # province id -> province ids an army can move to
    fleet_adj: tuple[frozenset[int], ...]  # location id -> location ids a fleet can move to
    fleet_reach: tuple[frozenset[int], ...] = field(init=False)  # location id -> provinces a fleet there can enter
    coast_locs: tuple[tuple[int, ...], ...] = field(init=False)  # province id -> its coast locations (split coasts)
    by_loc_name: dict[str, int] = field(init=False)
    names: dict[tuple[str, ...], int] = field(init=False)  # normalised words of a name/alias/abbr -> province id
    convoy_reach: tuple[frozenset[int], ...] = field(init=False)  # coast province -> coasts reachable over seas

    def __post_init__(self) -> None:
        reach = tuple(frozenset(self.loc_province[t] for t in adj) for adj in self.fleet_adj)
        coasts: list[list[int]] = [[] for _ in self.provinces]
        for loc in range(len(self.provinces), len(self.loc_names)):
            coasts[self.loc_province[loc]].append(loc)
        object.__setattr__(self, "fleet_reach", reach)
        object.__setattr__(self, "coast_locs", tuple(tuple(c) for c in coasts))
        object.__setattr__(self, "by_loc_name", {n: i for i, n in enumerate(self.loc_names)})
        names: dict[tuple[str, ...], int] = {}
        for prov in self.provinces:
            for name in (prov.abbr, prov.name, *prov.aliases):
                names.setdefault(name_words(name), prov.id)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "convoy_reach", tuple(self._convoy_reach(p) for p in self.provinces))

    def _convoy_reach(self, start: Province) -> frozenset[int]:
        if start.terrain is not Terrain.COAST:
            return frozenset()
        seas = [s for s in self.provinces if s.terrain is Terrain.SEA]
        frontier = [s.id for s in seas if start.id in self.fleet_reach[s.id]]
        seen = set(frontier)
        while frontier:
            sea = frontier.pop()
            for nxt in self.fleet_reach[sea]:
                if nxt not in seen and self.provinces[nxt].terrain is Terrain.SEA:
                    seen.add(nxt)
                    frontier.append(nxt)
        return frozenset(p for sea in seen for p in self.fleet_reach[sea]
                         if self.provinces[p].terrain is Terrain.COAST and p != start.id)

    def province_of(self, loc: int) -> Province:
        return self.provinces[self.loc_province[loc]]

    def loc(self, name: str) -> int:
        """The location named like "spa" or "spa/nc" (exact abbreviations; KeyError otherwise)."""
        return self.by_loc_name[name]

    def can_stand(self, kind: UnitKind, loc: int) -> bool:
        prov = self.province_of(loc)
        if kind is UnitKind.ARMY:
            return loc == prov.id and prov.terrain is not Terrain.SEA
        if prov.terrain is Terrain.LAND:
            return False
        return loc != prov.id or not prov.coasts

    def can_move(self, kind: UnitKind, src: int, dst: int) -> bool:
        """Whether a unit of this kind can move from location src to location dst without a convoy."""
        if kind is UnitKind.ARMY:
            return dst in self.army_adj[src]
        return dst in self.fleet_adj[src]

    def can_reach_province(self, kind: UnitKind, src: int, province: int) -> bool:
        """Whether the unit could move into some part of the province (what a support needs)."""
        if kind is UnitKind.ARMY:
            return province in self.army_adj[src]
        return province in self.fleet_reach[src]

    def is_convoy_sea(self, province: int) -> bool:
        return self.provinces[province].terrain is Terrain.SEA

    def sea_route(self, origin: int, dest: int, usable: Callable[[int], bool]) -> bool:
        """Whether a chain of usable sea provinces links the coast provinces ``origin`` and ``dest``."""
        reach = self.fleet_reach
        todo = [s for s in self.army_sea_neighbours(origin) if usable(s)]
        seen = set(todo)
        while todo:
            sea = todo.pop()
            if dest in reach[sea]:
                return True
            for nxt in reach[sea]:
                if nxt not in seen and self.provinces[nxt].terrain is Terrain.SEA and usable(nxt):
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    def army_sea_neighbours(self, prov: int) -> list[int]:
        """Sea provinces that touch the coast province ``prov`` (where a convoy can pick an army up)."""
        return [s.id for s in self.provinces if s.terrain is Terrain.SEA and prov in self.fleet_reach[s.id]]

    def destinations(self, kind: UnitKind, src: int) -> list[int]:
        adj = self.army_adj[self.loc_province[src]] if kind is UnitKind.ARMY else self.fleet_adj[src]
        return sorted(adj, key=lambda loc: self.loc_names[loc])
