"""The ``judge sandbox`` JSON contract: one position and orders in, the adjudicated phase out.

``run(data)`` takes the decoded JSON object and returns the result object; it never raises for bad input, it reports
the problem in ``error``. The format is documented in docs/sandbox.md.
"""

from __future__ import annotations

import json
from typing import Any

from judge.catalog import load_variant
from judge.rules.board import Dislodged, Position, Unit, unit_text
from judge.rules.geography import Geography, UnitKind, name_words
from judge.rules.legality import retreat_options
from judge.rules.orders import order_text
from judge.rules.phase import Phase, Step
from judge.rules.turn import TurnResult, parse_submissions, play
from judge.rules.variant import Variant


class InputError(ValueError):
    """A sandbox input that cannot be played; the message says why."""


def run_json_line(line: str) -> dict[str, Any]:
    """One line of JSON in, one result object out (errors included)."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        return _error(None, f"malformed JSON: {exc}")
    return run(data)


def run(data: Any) -> dict[str, Any]:
    ident = data.get("id") if isinstance(data, dict) else None
    try:
        if not isinstance(data, dict):
            raise InputError("the input must be a JSON object")
        variant, pos = read_position(data)
        orders = data.get("orders") or {}
        if not isinstance(orders, dict):
            raise InputError("orders must be an object: power -> list of order lines")
        texts: dict[str, list[str]] = {}
        for power_name, lines in orders.items():
            power = _power(variant, power_name, "orders")
            if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
                raise InputError(f"orders of {power} must be a list of strings")
            texts.setdefault(power, []).extend(lines)
        turn = play(variant, pos, parse_submissions(variant, pos.phase.step, texts))
    except InputError as exc:
        return _error(ident, str(exc))
    return write_result(ident, variant, pos, turn)


def _error(ident: Any, message: str) -> dict[str, Any]:
    return {"id": ident, "phase": None, "results": [], "units": {}, "dislodged": {}, "standoffs": [],
            "supply_centers": {}, "next_phase": None, "winner": None, "error": message}


# --- reading ------------------------------------------------------------------------------------------------------

def read_position(data: dict[str, Any]) -> tuple[Variant, Position]:
    name = data.get("variant", "classic")
    if not isinstance(name, str):
        raise InputError("variant must be a string such as \"classic\"")
    try:
        variant = load_variant(name)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    geo = variant.geo
    try:
        phase = Phase.parse(data.get("phase") or f"S{variant.start_year}M")
    except ValueError as exc:
        raise InputError(str(exc)) from None
    units: dict[int, Unit] = {}
    raw_units = data.get("units")
    if raw_units is None:
        raw_units = {}
        for start in variant.start_units:
            raw_units.setdefault(start.power, []).append(f"{start.kind.value} {geo.loc_names[start.loc]}")
    for power, unit in _unit_entries(variant, raw_units, "units"):
        prov = geo.loc_province[unit.loc]
        if prov in units:
            raise InputError(f"units: two units in {geo.provinces[prov].name}")
        units[prov] = unit
    dislodged: dict[int, Dislodged] = {}
    raw_dis = data.get("dislodged") or {}
    if raw_dis and phase.step is not Step.RETREAT:
        raise InputError("dislodged units are only given in a retreat phase")
    for power_name, entries in _mapping(raw_dis, "dislodged").items():
        power = _power(variant, power_name, "dislodged")
        for entry in _list(entries, f"dislodged of {power}"):
            if not isinstance(entry, dict) or "unit" not in entry:
                raise InputError(f"dislodged of {power}: each entry is {{\"unit\": \"F tri\", \"attacker_from\": "
                                 f"\"adr\", \"attacker_via_convoy\": false}}")
            unit = _unit(variant, power, entry["unit"], "dislodged")
            prov = geo.loc_province[unit.loc]
            attacker = entry.get("attacker_from")
            attacker_prov = _province(geo, attacker, "dislodged attacker_from") if attacker else -1
            if prov in dislodged:
                raise InputError(f"dislodged: two units in {geo.provinces[prov].name}")
            dislodged[prov] = Dislodged(unit, attacker_prov, bool(entry.get("attacker_via_convoy", False)))
    standoffs = frozenset(_province(geo, s, "standoffs") for s in _list(data.get("standoffs") or [], "standoffs"))
    owners: dict[int, str]
    if data.get("supply_centers") is None:
        owners = variant.start_ownership()
    else:
        owners = {}
        centres = set(variant.centres)
        for power_name, provs in _mapping(data["supply_centers"], "supply_centers").items():
            power = _power(variant, power_name, "supply_centers")
            for p in _list(provs, f"supply_centers of {power}"):
                prov = _province(geo, p, "supply_centers")
                if prov not in centres:
                    raise InputError(f"supply_centers: {geo.provinces[prov].name} is not a supply centre")
                if prov in owners and owners[prov] != power:
                    raise InputError(f"supply_centers: {geo.provinces[prov].name} is owned by two powers")
                owners[prov] = power
    return variant, Position(phase, units, owners, dislodged, standoffs)


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{what} must be an object keyed by power")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(f"{what} must be a list")
    return value


def _power(variant: Variant, name: Any, what: str) -> str:
    power = variant.power_named(name) if isinstance(name, str) else None
    if power is None:
        raise InputError(f"{what}: unknown power {name!r}; {variant.name} has {', '.join(variant.powers)}")
    return power


def _unit_entries(variant: Variant, table: Any, what: str) -> list[tuple[str, Unit]]:
    out = []
    for power_name, specs in _mapping(table, what).items():
        power = _power(variant, power_name, what)
        for spec in _list(specs, f"{what} of {power}"):
            out.append((power, _unit(variant, power, spec, what)))
    return out


def _unit(variant: Variant, power: str, spec: Any, what: str) -> Unit:
    geo = variant.geo
    parts = spec.split(None, 1) if isinstance(spec, str) else []
    if len(parts) != 2 or parts[0].upper() not in ("A", "F"):
        raise InputError(f"{what} of {power}: {spec!r} is not a unit like \"A par\" or \"F stp/sc\"")
    kind = UnitKind(parts[0].upper())
    loc = _location(geo, parts[1], f"{what} of {power}")
    prov = geo.province_of(loc)
    if kind is UnitKind.FLEET and loc == prov.id and prov.coasts:
        raise InputError(f"{what} of {power}: {spec!r}: a fleet in {prov.name} must name its coast "
                         f"({', '.join(geo.loc_names[c] for c in geo.coast_locs[prov.id])})")
    if kind is UnitKind.ARMY and loc != prov.id:
        loc = prov.id
    if not geo.can_stand(kind, loc):
        raise InputError(f"{what} of {power}: {spec!r}: {'an army' if kind is UnitKind.ARMY else 'a fleet'} "
                         f"cannot stand in {prov.name}")
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
    raise InputError(f"{what}: unknown place {text!r}")


def _province(geo: Geography, text: Any, what: str) -> int:
    if not isinstance(text, str):
        raise InputError(f"{what}: {text!r} is not a province")
    return geo.loc_province[_location(geo, text, what)]


# --- writing ------------------------------------------------------------------------------------------------------

def write_result(ident: Any, variant: Variant, before: Position, turn: TurnResult) -> dict[str, Any]:
    geo = variant.geo
    after = turn.position
    results = [{"power": r.power, "input": r.input,
                "order": order_text(geo, r.order, before.units) if r.order is not None else None,
                "outcome": r.outcome.value, "reason": r.reason} for r in turn.results]
    dislodged: dict[str, list[dict[str, Any]]] = {}
    for prov, dis in sorted(after.dislodged.items(), key=lambda kv: geo.loc_names[kv[0]]):
        dislodged.setdefault(dis.unit.power, []).append({
            "unit": unit_text(geo, dis.unit),
            "attacker_from": geo.loc_names[dis.attacker_from] if dis.attacker_from >= 0 else None,
            "attacker_via_convoy": dis.via_convoy,
            "retreats": [geo.loc_names[loc] for loc in retreat_options(geo, after, prov)]})
    return {
        "id": ident,
        "phase": turn.phase.code,
        "results": results,
        "units": units_by_power(variant, after.units),
        "dislodged": {p: dislodged[p] for p in variant.powers if p in dislodged},
        "standoffs": sorted(geo.loc_names[p] for p in after.standoffs),
        "supply_centers": {p: sorted(geo.loc_names[c] for c, o in after.owners.items() if o == p)
                           for p in variant.powers if p in after.owners.values()},
        "next_phase": after.phase.code,
        "winner": turn.winner,
        "error": None,
    }


def units_by_power(variant: Variant, units: dict[int, Unit]) -> dict[str, list[str]]:
    geo = variant.geo
    out: dict[str, list[str]] = {}
    for unit in units.values():
        out.setdefault(unit.power, []).append(unit_text(geo, unit))
    return {p: sorted(out[p], key=lambda u: u[2:]) for p in variant.powers if p in out}
