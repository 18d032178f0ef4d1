"""A variant as data: built from the parsed TOML of ``variants/NAME.toml`` and validated as a whole.

``variant_from_data`` takes the already-parsed mapping (reading the file is the caller's business) and either returns
a ``Variant`` or raises one ``VariantError`` listing every problem found.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from judge.rules.geography import Geography, Province, Terrain, UnitKind
from judge.rules.victory import Victory, parse_solo

SEASONS = ("spring", "fall")
COASTS = ("nc", "sc", "ec", "wc")


class VariantError(ValueError):
    """A variant file with problems; ``problems`` lists every one of them."""

    def __init__(self, problems: list[str], source: str = "variant") -> None:
        self.problems = problems
        self.source = source
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s):\n{lines}")


@dataclass(frozen=True)
class StartUnit:
    power: str
    kind: UnitKind
    loc: int


@dataclass(frozen=True)
class Variant:
    key: str  # the file stem, e.g. "classic"
    name: str
    description: str
    powers: tuple[str, ...]
    geo: Geography
    start_year: int
    start_units: tuple[StartUnit, ...]
    victory: Victory

    @cached_property
    def centres(self) -> frozenset[int]:
        return frozenset(p.id for p in self.geo.provinces if p.centre)

    @cached_property
    def _homes(self) -> dict[str, tuple[int, ...]]:
        return {power: tuple(p.id for p in self.geo.provinces if p.home == power) for power in self.powers}

    def home_centres(self, power: str) -> tuple[int, ...]:
        return self._homes.get(power, ())

    def start_ownership(self) -> dict[int, str]:
        return {p.id: p.home for p in self.geo.provinces if p.home is not None}

    def solo_threshold(self, year: int) -> int:
        return self.victory.threshold(len(self.centres), year)

    def power_named(self, text: str) -> str | None:
        """The power whose name matches ``text`` in any case, or None."""
        low = text.strip().lower()
        for p in self.powers:
            if p.lower() == low:
                return p
        return None


def variant_from_data(data: dict[str, Any], key: str) -> Variant:
    problems: list[str] = []
    bad = problems.append

    for required in ("name", "powers", "start", "victory", "provinces", "army", "fleet", "units"):
        if required not in data:
            bad(f"missing [{required}]" if required in ("start", "victory", "provinces", "army", "fleet", "units")
                else f"missing key {required!r}")
    if problems:
        raise VariantError(problems, key)

    powers = tuple(data["powers"])
    if len(powers) < 2:
        bad("a variant needs at least two powers")
    if len(set(powers)) != len(powers):
        bad("a power is listed twice in powers")

    provinces, loc_names, loc_province = _provinces(data["provinces"], powers, bad)
    by_name = {n: i for i, n in enumerate(loc_names)}
    army_adj = _adjacency(data["army"], "army", by_name, provinces, loc_province, bad)
    fleet_adj = _adjacency(data["fleet"], "fleet", by_name, provinces, loc_province, bad)

    army = tuple(frozenset(army_adj.get(p.id, ())) for p in provinces)
    fleet = tuple(frozenset(fleet_adj.get(loc, ())) for loc in range(len(loc_names)))
    geo = Geography(tuple(provinces), tuple(loc_names), tuple(loc_province), army, fleet)

    units = _start_units(data["units"], powers, geo, bad)
    start = data["start"]
    year = start.get("year")
    if not isinstance(year, int):
        bad("[start] year must be an integer")
    if str(start.get("season", "spring")).lower() not in SEASONS:
        bad(f"[start] season must be one of {', '.join(SEASONS)}")
    victory = _victory(data["victory"], powers, len([p for p in provinces if p.centre]), bad)

    if problems:
        raise VariantError(problems, key)
    return Variant(key, data["name"], data.get("description", ""), powers, geo, year, units, victory)  # type: ignore[arg-type]


def _provinces(table: dict[str, Any], powers: tuple[str, ...], bad: Any) -> tuple[list[Province], list[str], list[int]]:
    provinces: list[Province] = []
    coast_names: list[tuple[str, int]] = []
    seen_alias: dict[str, str] = {}
    for i, (abbr, spec) in enumerate(table.items()):
        where = f"province {abbr}"
        if abbr != abbr.lower() or not abbr.isalnum():
            bad(f"{where}: abbreviation must be lower-case letters/digits")
        try:
            terrain = Terrain(spec.get("kind"))
        except ValueError:
            bad(f"{where}: kind must be land, sea or coast, not {spec.get('kind')!r}")
            terrain = Terrain.LAND
        home = spec.get("home")
        centre = bool(spec.get("centre", False))
        if home is not None and home not in powers:
            bad(f"{where}: home power {home!r} is not one of the powers")
        if home is not None and not centre:
            bad(f"{where}: home centre of {home} is not a supply centre")
        if centre and terrain is Terrain.SEA:
            bad(f"{where}: a sea cannot be a supply centre")
        coasts = tuple(spec.get("coasts", ()))
        if coasts and terrain is not Terrain.COAST:
            bad(f"{where}: only a coast province can have split coasts")
        if len(coasts) == 1:
            bad(f"{where}: a split coast needs at least two coasts")
        for c in coasts:
            if c not in COASTS:
                bad(f"{where}: unknown coast {c!r} (use {', '.join(COASTS)})")
            coast_names.append((f"{abbr}/{c}", i))
        aliases = tuple(a.lower() for a in spec.get("aliases", ()))
        for a in (abbr, spec.get("name", "").lower(), *aliases):
            if a in seen_alias and seen_alias[a] != abbr:
                bad(f"{where}: name or alias {a!r} is also used by {seen_alias[a]}")
            seen_alias[a] = abbr
        if not spec.get("name"):
            bad(f"{where}: missing name")
        at = _point(spec["at"], f"{where}: at", bad) if "at" in spec else None
        coast_at = _coast_points(spec.get("coast_at", {}), coasts, where, bad)
        if coast_at and "at" not in spec:
            bad(f"{where}: coast_at needs at (the province's own point) as well")
        provinces.append(Province(i, abbr, spec.get("name", abbr), terrain, centre, home, coasts, aliases, at,
                                  coast_at))
    loc_names = [p.abbr for p in provinces] + [n for n, _ in coast_names]
    loc_province = [p.id for p in provinces] + [i for _, i in coast_names]
    return provinces, loc_names, loc_province


def _point(value: Any, where: str, bad: Any) -> tuple[float, float] | None:
    """``[latitude, longitude]`` in degrees, or None after reporting what is wrong with it."""
    numbers = isinstance(value, (list, tuple)) and len(value) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    if not numbers:
        bad(f"{where} must be [latitude, longitude], two numbers in degrees, not {value!r}")
        return None
    lat, lon = float(value[0]), float(value[1])
    if not (-90.0 <= lat <= 90.0 and -180.0 <= lon <= 180.0):
        bad(f"{where} = {list(value)!r}: latitude must be within -90..90 and longitude within -180..180")
        return None
    return (lat, lon)


def _coast_points(table: Any, coasts: tuple[str, ...], where: str, bad: Any) -> dict[str, tuple[float, float]]:
    """The ``coast_at`` table of a province: a point for each of its split coasts (not every coast needs one)."""
    if not isinstance(table, dict):
        bad(f"{where}: coast_at must be a table like {{ nc = [lat, lon], sc = [lat, lon] }}")
        return {}
    points: dict[str, tuple[float, float]] = {}
    for coast, value in table.items():
        if coast not in coasts:
            bad(f"{where}: coast_at names {coast!r}, which is not one of its coasts"
                + (f" ({', '.join(coasts)})" if coasts else " (it has no split coasts)"))
            continue
        point = _point(value, f"{where}: coast_at.{coast}", bad)
        if point is not None:
            points[coast] = point
    return points


def _adjacency(table: dict[str, Any], kind: str, by_name: dict[str, int], provinces: list[Province],
               loc_province: list[int], bad: Any) -> dict[int, set[int]]:
    adj: dict[int, set[int]] = {}
    for src_name, dsts in table.items():
        src = by_name.get(src_name)
        if src is None:
            bad(f"[{kind}] {src_name}: unknown province or coast")
            continue
        for dst_name in dsts:
            dst = by_name.get(dst_name)
            if dst is None:
                bad(f"[{kind}] {src_name} -> {dst_name}: unknown province or coast")
                continue
            if dst == src:
                bad(f"[{kind}] {src_name} lists itself")
            adj.setdefault(src, set()).add(dst)
    for src, dsts in adj.items():
        for dst in dsts:
            if src not in adj.get(dst, ()):
                bad(f"[{kind}] one-way edge {_n(by_name, src)} -> {_n(by_name, dst)}: list it from both ends")
    for loc in adj:
        prov = provinces[loc_province[loc]]
        if kind == "army" and (prov.terrain is Terrain.SEA or loc != prov.id):
            bad(f"[army] {_n(by_name, loc)}: armies cannot stand there")
        if kind == "fleet" and (prov.terrain is Terrain.LAND or (loc == prov.id and prov.coasts)):
            bad(f"[fleet] {_n(by_name, loc)}: fleets cannot stand there" +
                (" (name a coast)" if prov.coasts else ""))
    return adj


def _n(by_name: dict[str, int], loc: int) -> str:
    for name, i in by_name.items():
        if i == loc:
            return name
    return str(loc)


def _start_units(table: dict[str, Any], powers: tuple[str, ...], geo: Geography, bad: Any) -> tuple[StartUnit, ...]:
    units: list[StartUnit] = []
    taken: dict[int, str] = {}
    for power, specs in table.items():
        if power not in powers:
            bad(f"[units] {power}: not one of the powers")
            continue
        for spec in specs:
            parts = str(spec).split()
            if len(parts) != 2 or parts[0].upper() not in ("A", "F"):
                bad(f"[units] {power}: {spec!r} is not like \"A par\" or \"F stp/sc\"")
                continue
            kind = UnitKind(parts[0].upper())
            loc = geo.by_loc_name.get(parts[1].lower())
            if loc is None:
                bad(f"[units] {power}: {spec!r}: unknown province or coast")
                continue
            if not geo.can_stand(kind, loc):
                bad(f"[units] {power}: {spec!r}: {'an army' if kind is UnitKind.ARMY else 'a fleet'} cannot stand "
                    f"on {geo.province_of(loc).name}" + (" without a coast" if geo.province_of(loc).coasts else ""))
                continue
            prov = geo.loc_province[loc]
            if prov in taken:
                bad(f"[units] {power}: {spec!r}: {geo.provinces[prov].name} already holds a unit of {taken[prov]}")
                continue
            taken[prov] = power
            units.append(StartUnit(power, kind, loc))
    return tuple(units)


def _victory(table: dict[str, Any], powers: tuple[str, ...], centre_count: int, bad: Any) -> Victory:
    try:
        solo = parse_solo(table.get("solo"))
    except ValueError as exc:
        bad(f"[victory] {exc}")
        solo = centre_count // 2 + 1
    by_year = table.get("by_year", {})
    pairs: list[tuple[int, int]] = []
    for year, count in by_year.items():
        if not str(year).isdigit() or not isinstance(count, int) or count < 1:
            bad(f"[victory.by_year] {year} = {count!r}: need year = centres")
        else:
            pairs.append((int(year), count))
    last_year = table.get("last_year")
    if last_year is not None and not isinstance(last_year, int):
        bad("[victory] last_year must be a year")
    tie_break = tuple(table.get("tie_break", ()))
    for p in tie_break:
        if p not in powers:
            bad(f"[victory] tie_break: {p!r} is not one of the powers")
    if isinstance(solo, int) and solo > centre_count:
        bad(f"[victory] solo {solo} is more than the {centre_count} centres")
    return Victory(solo, tuple(pairs), last_year, tie_break)
