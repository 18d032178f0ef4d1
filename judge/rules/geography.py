"""The map of a variant: provinces, coasts and who can move where.

Locations are small integers so that the adjudicator can index plain lists. Every province has a location whose id is
the province id; a province with split coasts also has one location per coast (ids after the provinces). Armies stand
on province locations, fleets on a split-coast province always stand on one of its coast locations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from judge.rules.words import Named

# letters written two ways: "Чёрное" and "Черное", "Böhmen" and "Boehmen", "Preußen" and "Preussen" are one name
_FOLD = str.maketrans({"ё": "е", "ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
# and German umlauts written without their dots ("Bohmen"), a second key of the same name
_BARE = str.maketrans({"ё": "е", "ä": "a", "ö": "o", "ü": "u", "ß": "ss"})


def name_words(text: str) -> tuple[str, ...]:
    """A place name as the words a lookup compares: lower case, no dots or apostrophes, hyphens as spaces, "ё" as
    "е" and German umlauts and "ß" as "ae", "oe", "ue", "ss"."""
    cleaned = text.lower().replace(".", " ").replace("'", "").replace("-", " ").replace("_", " ")
    return tuple(cleaned.translate(_FOLD).split())


def name_keys(text: str) -> frozenset[tuple[str, ...]]:
    """Every key a name is found by: its words (``name_words``), with German umlauts written bare ("Bohmen"), and a
    Russian name also in the accusative an order puts it in ("в Бургундию", "на Украину", "в Северную Африку")."""
    bare = text.lower().replace(".", " ").replace("'", "").replace("-", " ").replace("_", " ").translate(_BARE)
    words = name_words(text)
    keys = {words, tuple(bare.split())}
    if words and "\u0400" <= words[0][:1] <= "\u04ff":
        keys.add(tuple(_accusative(w) for w in words))
    return frozenset(keys)


# the accusative of Russian feminine names and their adjectives; masculine and neuter names of things keep their form
_ACCUSATIVE = (("ая", "ую"), ("яя", "юю"), ("а", "у"), ("я", "ю"))


def _accusative(word: str) -> str:
    for ending, form in _ACCUSATIVE:
        if word.endswith(ending) and len(word) > len(ending) + 1:
            return word[: -len(ending)] + form
    return word


class Terrain(Enum):
    LAND = "land"
    SEA = "sea"
    COAST = "coast"


class UnitKind(Enum):
    ARMY = "A"
    FLEET = "F"


@dataclass(frozen=True, slots=True)
class Province:
    """One province. ``at`` is its place on the globe, ``(latitude, longitude)`` in degrees, for drawing maps (None
    when the variant gives none); ``coast_at`` gives such a point for each split coast that has one."""

    id: int
    abbr: str
    name: str
    terrain: Terrain
    centre: bool
    home: str | None
    coasts: tuple[str, ...]
    aliases: tuple[str, ...]
    at: tuple[float, float] | None = None
    coast_at: dict[str, tuple[float, float]] = field(default_factory=dict, hash=False)
    words: tuple[tuple[str, str], ...] = ()  # (language, name) for each language the variant names it in
    short: tuple[str, ...] = ()  # short forms in those languages ("Сев"), read like aliases

    @property
    def named(self) -> Named:
        """The province's name in every language the variant gives, with its abbreviation (a mail's words)."""
        return Named(self.name, self.words, self.abbr)


@dataclass(frozen=True)
class Geography:
    """Provinces, locations and adjacency, with lookup tables derived once."""

    provinces: tuple[Province, ...]
    loc_names: tuple[str, ...]  # "spa", "spa/nc"
    loc_province: tuple[int, ...]  # location id -> province id
    army_adj: tuple[frozenset[int], ...]  # province id -> province ids an army can move to
    fleet_adj: tuple[frozenset[int], ...]  # location id -> location ids a fleet can move to
    coast_words: dict[str, str] = field(default_factory=dict)  # a coast's word in any language ("сб") -> "nc"
    coast_names: dict[str, dict[str, str]] = field(default_factory=dict)  # language -> "nc" -> "северный берег"
    fleet_reach: tuple[frozenset[int], ...] = field(init=False)  # location id -> provinces a fleet there can enter
    coast_locs: tuple[tuple[int, ...], ...] = field(init=False)  # province id -> its coast locations (split coasts)
    by_loc_name: dict[str, int] = field(init=False)
    names: dict[tuple[str, ...], int] = field(init=False)  # normalised words of a name/alias/abbr -> province id
    name_prefixes: frozenset[tuple[str, ...]] = field(init=False)  # proper prefixes of the names of several words
    real_names: tuple[str, ...] = field(init=False)  # names and abbreviations in every language, no misspellings
    touching_seas: tuple[tuple[int, ...], ...] = field(init=False)  # province -> seas it borders
    shore: tuple[frozenset[int], ...] = field(init=False)  # sea -> coasts of its body of connected seas
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
            for name in (prov.abbr, prov.name, *prov.aliases, *(w for _, w in prov.words), *prov.short):
                for key in sorted(name_keys(name)):
                    names.setdefault(key, prov.id)
        object.__setattr__(self, "names", names)
        real = {n.lower() for p in self.provinces for n in (p.abbr, p.name, *(w for _, w in p.words))}
        object.__setattr__(self, "real_names", tuple(sorted(real)))
        object.__setattr__(self, "name_prefixes", frozenset(k[:n] for k in names for n in range(1, len(k))))
        seas = [p.id for p in self.provinces if p.terrain is Terrain.SEA]
        touching = tuple(tuple(s for s in seas if p.id in reach[s]) for p in self.provinces)
        coasts_of_body: dict[int, frozenset[int]] = {}
        for sea in seas:
            if sea not in coasts_of_body:
                body = self.connected_seas(sea, lambda _: True)
                shore = frozenset(p for s in body for p in reach[s] if self.provinces[p].terrain is Terrain.COAST)
                coasts_of_body.update((s, shore) for s in body)
        object.__setattr__(self, "touching_seas", touching)
        object.__setattr__(self, "shore", tuple(coasts_of_body.get(p.id, frozenset()) for p in self.provinces))
        object.__setattr__(
            self,
            "convoy_reach",
            tuple(
                frozenset().union(*(self.shore[s] for s in touching[p.id])) - {p.id}
                if p.terrain is Terrain.COAST
                else frozenset()
                for p in self.provinces
            ),
        )

    def connected_seas(self, start: int, usable: Callable[[int], bool]) -> set[int]:
        """The usable seas connected to the sea ``start`` through usable seas (``start`` included)."""
        seen = {start}
        todo = [start]
        while todo:
            sea = todo.pop()
            for nxt in self.fleet_reach[sea]:
                if nxt not in seen and self.provinces[nxt].terrain is Terrain.SEA and usable(nxt):
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def loc_named(self, loc: int, english: str | None = None) -> Named:
        """A location as a mail names it (``english``, else the province's English name, stands for it in English):
        a province is its name ("Испания (spa)"); a split coast its province and coast in each language the variant
        names both in ("Испания, северный берег (spa/nc)", "Spanien, Nordküste (spa/nc)")."""
        prov = self.province_of(loc)
        abbr = self.loc_names[loc]
        if loc == prov.id:
            return prov.named if english is None else Named(english, prov.words, abbr)
        coast = abbr.split("/", 1)[1]
        said = {language: self.coast_names.get(language, {}).get(coast) for language, _ in prov.words}
        words = tuple(
            (language, f"{word}, {said[language]}" if said[language] else word) for language, word in prov.words
        )
        return Named(prov.name if english is None else english, words, abbr)

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

    def can_reach_province(self, kind: UnitKind, src: int, province: int) -> bool:
        """Whether the unit could move into some part of the province (what a support needs)."""
        if kind is UnitKind.ARMY:
            return province in self.army_adj[src]
        return province in self.fleet_reach[src]

    def sea_route(self, origin: int, dest: int, usable: Callable[[int], bool]) -> bool:
        """Whether a chain of usable sea provinces links the coast provinces ``origin`` and ``dest``."""
        seen: set[int] = set()
        for sea in self.touching_seas[origin]:
            if sea in seen or not usable(sea):
                continue
            body = self.connected_seas(sea, usable)
            if any(dest in self.fleet_reach[s] for s in body):
                return True
            seen |= body
        return False

    def destinations(self, kind: UnitKind, src: int) -> list[int]:
        adj = self.army_adj[self.loc_province[src]] if kind is UnitKind.ARMY else self.fleet_adj[src]
        return sorted(adj, key=lambda loc: self.loc_names[loc])
