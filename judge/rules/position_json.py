"""Positions as JSON: the format of the sandbox contract, also used to store boards in the database.

``{"phase": "S1901M", "units": {power: ["A par", "F stp/sc"]}, "dislodged": {power: [{"unit", "attacker_from",
"attacker_via_convoy"}]}, "standoffs": ["boh"], "supply_centers": {power: ["par"]}}``
"""

from __future__ import annotations

from typing import Any

from judge.rules.board import Dislodged, Position, Unit, unit_text
from judge.rules.geography import Geography, UnitKind, name_words
from judge.rules.legality import retreat_options
from judge.rules.phase import Phase, Step
from judge.rules.variant import NEUTRAL, Variant


class PositionError(ValueError):
    """A position that cannot be read; the message says why."""


def position_from_json(variant: Variant, data: dict[str, Any]) -> Position:
    """Read a position; missing units or supply_centers mean the variant's start. Raises PositionError."""
    geo = variant.geo
    try:
        phase = Phase.parse(data.get("phase") or variant.start_phase.code)
    except ValueError as exc:
        raise PositionError(str(exc)) from None
    units = _units(variant, data.get("units"))
    raw_dis = data.get("dislodged") or {}
    if raw_dis and phase.step is not Step.RETREAT:
        raise PositionError("dislodged units are only given in a retreat phase")
    dislodged = _dislodged(variant, raw_dis)
    standoffs = frozenset(_province(geo, s, "standoffs") for s in _list(data.get("standoffs") or [], "standoffs"))
    raw_owners = data.get("supply_centers")
    owners = variant.start_ownership() if raw_owners is None else _owners(variant, raw_owners)
    return Position(phase, units, owners, dislodged, standoffs)


def _units(variant: Variant, raw_units: Any) -> dict[int, Unit]:
    """The units by province; None means the variant's starting units."""
    geo = variant.geo
    if raw_units is None:
        raw_units = {}
        for start in (*variant.start_units, *variant.neutral_units):
            raw_units.setdefault(start.power, []).append(f"{start.kind.value} {geo.loc_names[start.loc]}")
    units: dict[int, Unit] = {}
    for _power, unit in _unit_entries(variant, raw_units, "units"):
        prov = geo.loc_province[unit.loc]
        if prov in units:
            raise PositionError(f"units: two units in {geo.provinces[prov].name}")
        units[prov] = unit
    return units


def _dislodged(variant: Variant, raw_dis: Any) -> dict[int, Dislodged]:
    """The dislodged units by province, each with where its attacker came from."""
    geo = variant.geo
    dislodged: dict[int, Dislodged] = {}
    for power_name, entries in _mapping(raw_dis, "dislodged").items():
        power = read_power(variant, power_name, "dislodged")
        for entry in _list(entries, f"dislodged of {power}"):
            if not isinstance(entry, dict) or "unit" not in entry:
                raise PositionError(
                    f'dislodged of {power}: each entry is {{"unit": "F tri", "attacker_from": '
                    f'"adr", "attacker_via_convoy": false}}'
                )
            unit = _unit(variant, power, entry["unit"], "dislodged")
            prov = geo.loc_province[unit.loc]
            attacker = entry.get("attacker_from")
            attacker_prov = _province(geo, attacker, "dislodged attacker_from") if attacker else -1
            if prov in dislodged:
                raise PositionError(f"dislodged: two units in {geo.provinces[prov].name}")
            dislodged[prov] = Dislodged(unit, attacker_prov, bool(entry.get("attacker_via_convoy", False)))
    return dislodged


def _owners(variant: Variant, raw: Any) -> dict[int, str]:
    """The owner of each supply centre named; a centre named twice for different powers is an error."""
    geo = variant.geo
    owners: dict[int, str] = {}
    centres = set(variant.centres)
    for power_name, provs in _mapping(raw, "supply_centers").items():
        power = read_power(variant, power_name, "supply_centers")
        for p in _list(provs, f"supply_centers of {power}"):
            prov = _province(geo, p, "supply_centers")
            if prov not in centres:
                raise PositionError(f"supply_centers: {geo.provinces[prov].name} is not a supply centre")
            if prov in owners and owners[prov] != power:
                raise PositionError(f"supply_centers: {geo.provinces[prov].name} is owned by two powers")
            owners[prov] = power
    return owners


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PositionError(f"{what} must be an object keyed by power")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise PositionError(f"{what} must be a list")
    return value


def read_power(variant: Variant, name: Any, what: str) -> str:
    """The power called ``name`` (any case), or PositionError naming the powers there are."""
    power = variant.power_named(name) if isinstance(name, str) else None
    if power is None and what in ("units", "dislodged") and isinstance(name, str) and name.lower() == NEUTRAL:
        return NEUTRAL  # neutral units (nobody's): they hold, and are disbanded when dislodged
    if power is None:
        raise PositionError(f"{what}: unknown power {name!r}; {variant.name} has {', '.join(variant.powers)}")
    return power


def _unit_entries(variant: Variant, table: Any, what: str) -> list[tuple[str, Unit]]:
    out = []
    for power_name, specs in _mapping(table, what).items():
        power = read_power(variant, power_name, what)
        for spec in _list(specs, f"{what} of {power}"):
            out.append((power, _unit(variant, power, spec, what)))
    return out


def _unit(variant: Variant, power: str, spec: Any, what: str) -> Unit:
    geo = variant.geo
    parts = spec.split(None, 1) if isinstance(spec, str) else []
    if len(parts) != 2 or parts[0].upper() not in ("A", "F"):
        raise PositionError(f'{what} of {power}: {spec!r} is not a unit like "A par" or "F stp/sc"')
    kind = UnitKind(parts[0].upper())
    loc = _location(geo, parts[1], f"{what} of {power}")
    prov = geo.province_of(loc)
    if kind is UnitKind.FLEET and loc == prov.id and prov.coasts:
        raise PositionError(
            f"{what} of {power}: {spec!r}: a fleet in {prov.name} must name its coast "
            f"({', '.join(geo.loc_names[c] for c in geo.coast_locs[prov.id])})"
        )
    if kind is UnitKind.ARMY and loc != prov.id:
        loc = prov.id
    if not geo.can_stand(kind, loc):
        raise PositionError(
            f"{what} of {power}: {spec!r}: {'an army' if kind is UnitKind.ARMY else 'a fleet'} "
            f"cannot stand in {prov.name}"
        )
    return Unit(power, kind, loc)


def _location(geo: Geography, text: str, what: str) -> int:
    key = text.strip().lower()
    if key in geo.by_loc_name:
        return geo.by_loc_name[key]
    base, _, coast = key.partition("/")
    prov = geo.names.get(name_words(base))
    if prov is not None:
        if not coast:
            return prov
        loc = geo.by_loc_name.get(f"{geo.provinces[prov].abbr}/{coast.strip()}")
        if loc is not None:
            return loc
    raise PositionError(f"{what}: unknown place {text!r}")


def _province(geo: Geography, text: Any, what: str) -> int:
    if not isinstance(text, str):
        raise PositionError(f"{what}: {text!r} is not a province")
    return geo.loc_province[_location(geo, text, what)]


def position_to_json(variant: Variant, pos: Position) -> dict[str, Any]:
    """Write a position; dislodged units carry their legal retreats."""
    geo = variant.geo
    dislodged: dict[str, list[dict[str, Any]]] = {}
    for prov, dis in sorted(pos.dislodged.items(), key=lambda kv: geo.loc_names[kv[0]]):
        dislodged.setdefault(dis.unit.power, []).append(
            {
                "unit": unit_text(geo, dis.unit),
                "attacker_from": geo.loc_names[dis.attacker_from] if dis.attacker_from >= 0 else None,
                "attacker_via_convoy": dis.via_convoy,
                "retreats": [geo.loc_names[loc] for loc in retreat_options(geo, pos, prov)],
            }
        )
    return {
        "phase": pos.phase.code,
        "units": units_by_power(variant, pos.units),
        "dislodged": {p: dislodged[p] for p in variant.powers if p in dislodged},
        "standoffs": sorted(geo.loc_names[p] for p in pos.standoffs),
        "supply_centers": {
            p: sorted(geo.loc_names[c] for c, o in pos.owners.items() if o == p)
            for p in variant.powers
            if p in pos.owners.values()
        },
    }


def units_by_power(variant: Variant, units: dict[int, Unit]) -> dict[str, list[str]]:
    """The units by power in the variant's order, the neutral units (nobody's) last under ``neutral``: a stored
    position keeps them (until 2026-12-04 they were left out, and a game lost its neutral units when it started)."""
    geo = variant.geo
    out: dict[str, list[str]] = {}
    for unit in units.values():
        out.setdefault(unit.power, []).append(unit_text(geo, unit))
    return {p: sorted(out[p], key=lambda u: u[2:]) for p in (*variant.powers, NEUTRAL) if p in out}
