"""A game as the saved-game JSON of MILA's ``diplomacy`` package (what its ``to_saved_game_format`` writes and
``from_saved_game_format`` reads), for the research tools and data sets that read it. Pure: a story in, JSON values
out.

The format: ``{"id", "map": "standard", "rules", "phases": [...]}``; each phase ``{"name": "S1901M", "state",
"orders", "results", "messages"}``, its ``state`` the board before the phase (``units`` by power, a dislodged unit
marked ``*A MUN``, ``retreats`` with where each may go, ``centers``, ``homes``, ``influence``, ``builds``,
``civil_disorder``), its ``orders`` as MILA writes them (``A PAR - BUR``, ``F NTH C A LON - NWY``, ``A MUN S A PAR -
BUR``, ``A MUN R BOH``, ``A MUN D``, ``A PAR B``, ``WAIVE``) and ``results`` by unit (``bounce``, ``cut``,
``dislodged``, ``no convoy``, ``void``, ``disband``; an empty list: it succeeded). The last phase is the board after
the last played one (or the phase now being played) with no orders. A dislodged unit that can retreat nowhere is
left out of its retreat phase (MILA disbands it at once), and a retreat phase with no other is not written (MILA
has no such phase).

Only a game on the classic board with its seven powers can be written (MILA's ``standard`` map; where units are
built by the variant's rule ``owned``, with MILA's rule ``BUILD_ANY``). Choices where the judge and MILA differ, so
that MILA plays the orders to the same boards: a void order is left out (its unit holds in both; its unit's result
is ``void``); a unit the judge disbanded for want of an order (a retreat not ordered, civil disorder's removals) is
given its disband order ``A MUN D`` (MILA's own civil disorder could choose another unit); the judge's hold for a
unit with no order is written ``A PAR H``. Public press signed by a power is a message to ``GLOBAL``; grey press
(no sender) and diaries are left out. ``zobrist_hash`` and ``timestamp`` (MILA's own bookkeeping) are not written.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from judge.exports import ExportError, refuse_fog
from judge.game.story import ANONYMOUS_SENDER, OrderLine, PressItem, PressVenue, Story, StoryPhase
from judge.rules.board import Position
from judge.rules.legality import retreat_options
from judge.rules.orders import Outcome
from judge.rules.phase import Step
from judge.rules.variant import Builds, Variant

MILA_MAP = "standard"
CLASSIC_POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")

# the judge's outcome of an order -> MILA's result codes for its unit
RESULTS: dict[Outcome, tuple[str, ...]] = {
    Outcome.SUCCEEDS: (),
    Outcome.BOUNCED: ("bounce",),
    Outcome.CUT: ("cut",),
    Outcome.DISLODGED: ("dislodged",),
    Outcome.NO_CONVOY: ("no convoy",),
    Outcome.VOID: ("void",),
    Outcome.UNMATCHED: ("void",),
    Outcome.DISBANDED: ("disband",),
}


def mila_rules(variant: Variant) -> list[str]:
    """MILA's rules for the variant; ExportError for one MILA's standard map cannot play."""
    if variant.board_name != "classic" or variant.powers != CLASSIC_POWERS or variant.neutral_units:
        raise ExportError(
            f"{variant.name} is not played on the classic board by its seven powers: MILA's saved-game format "
            "has only its standard map for it"
        )
    if variant.start_phase.code != "S1901M":
        raise ExportError(f"{variant.name} starts in {variant.start_phase.code}: MILA's standard map starts in S1901M")
    if variant.builds is Builds.HOME:
        return []
    if variant.builds is Builds.OWNED:
        return ["BUILD_ANY"]
    raise ExportError(f"{variant.name} builds by a rule ({variant.builds.value}) MILA's rules do not have")


def game_to_mila(story: Story) -> dict[str, Any]:
    """``story`` as a MILA saved game. ExportError for a Fog of War game still running, a variant MILA cannot play
    (``mila_rules``) or a game not yet started."""
    refuse_fog(story)
    rules = mila_rules(story.variant)
    if not story.phases:
        raise ExportError(f"{story.name} has not started: there is no phase to export")
    variant = story.variant
    influence: dict[str, str] = {}
    phases = []
    for phase in story.phases:
        if phase.played and not _nothing_to_retreat(variant, phase.before):
            phases.append(_phase(variant, phase, influence))
    last = story.phases[-1]
    final = last.after if last.after is not None else last.before
    phases.append(
        {
            "name": final.phase.code,
            "state": _state(variant, final, influence),
            "orders": {p.upper(): [] for p in variant.powers},
            "results": {},
            "messages": [],
        }
    )
    _add_messages(phases, story.press)
    if not any(p["messages"] for p in phases):
        rules = [*rules, "NO_PRESS"]
    for p in phases:
        p["state"].update(game_id=story.name, map=MILA_MAP, rules=rules)
    return {"id": story.name, "map": MILA_MAP, "rules": rules, "phases": phases}


def _nothing_to_retreat(variant: Variant, pos: Position) -> bool:
    """A retreat phase in which no dislodged unit can go anywhere: MILA disbands such units at once, without the
    phase, so it is not written (the next phase's board has them gone)."""
    return pos.phase.step is Step.RETREAT and not any(retreat_options(variant.geo, pos, prov) for prov in pos.dislodged)


def _phase(variant: Variant, phase: StoryPhase, influence: dict[str, str]) -> dict[str, Any]:
    before = phase.before
    orders: dict[str, list[str]] = {p.upper(): [] for p in variant.powers}
    results: dict[str, list[str]] = {}
    stuck = _stuck(variant, before)
    for line in phase.lines:
        unit = _unit_of(line)
        if unit is not None and unit in stuck:
            continue  # MILA disbanded it at once
        order = mila_order(variant, line.typed, before) if line.typed is not None else None
        if line.outcome is Outcome.VOID or order is None:
            if unit is not None:
                results.setdefault(unit, []).append("void")
            continue
        orders[line.power.upper()].append(order)
        if unit is not None and line.outcome is not None:
            results.setdefault(unit, []).extend(RESULTS[line.outcome])
        elif line.typed and line.typed.get("type") == "build":
            results.setdefault(order.removesuffix(" B"), [])
    return {
        "name": phase.code,
        "state": _state(variant, before, influence),
        "orders": orders,
        "results": results,
        "messages": [],
    }


def _stuck(variant: Variant, pos: Position) -> set[str]:
    """The dislodged units of a retreat phase that can go nowhere, as MILA names them."""
    geo = variant.geo
    return {
        f"{dis.unit.kind.value} {geo.loc_names[dis.unit.loc].upper()}"
        for prov, dis in pos.dislodged.items()
        if not retreat_options(geo, pos, prov)
    }


def _unit_of(line: OrderLine) -> str | None:
    """The unit an order line is for, as MILA names it (``A PAR``); None for a build, a waive or an order whose
    unit type is not known."""
    typed = line.typed or {}
    at, kind = typed.get("at"), typed.get("unit")
    if not isinstance(at, str) or typed.get("type") in ("build", "waive") or kind not in ("A", "F"):
        return None
    return f"{kind} {at.upper()}"


def mila_order(variant: Variant, typed: Mapping[str, Any], before: Position) -> str | None:
    """The order ``typed`` (``judge.rules.order_json``, as played on the board ``before``) as MILA writes it, or
    None for one it has no words for (a support of a place where no unit stands). A support names the supported
    unit's type, found on ``before``; its destination is a province (MILA's supports name no coast)."""
    kind = typed.get("type")
    if kind == "waive":
        return "WAIVE"
    unit, at = typed.get("unit"), str(typed.get("at") or "").upper()
    if unit not in ("A", "F") or not at:
        return None
    head = f"{unit} {at}"
    to = str(typed.get("to") or "").upper()
    target = str(typed.get("target") or "")
    match kind:
        case "hold":
            return f"{head} H"
        case "move" if to:
            return f"{head} - {to}" + (" VIA" if typed.get("via_convoy") else "")
        case "retreat" if to:
            return f"{head} R {to}"
        case "disband":
            return f"{head} D"
        case "build":
            return f"{head} B"
        case "support" if target:
            supported = _unit_at(variant, before, target)
            if supported is None:
                return None
            return f"{head} S {supported}" + (f" - {to.split('/')[0]}" if to else "")
        case "convoy" if target and to:
            return f"{head} C A {target.upper()} - {to}"
    return None


def _unit_at(variant: Variant, pos: Position, place: str) -> str | None:
    """The unit standing in ``place``'s province on ``pos``, as MILA names it (``F STP/SC``)."""
    geo = variant.geo
    loc = geo.by_loc_name.get(place)
    unit = pos.units.get(geo.loc_province[loc]) if loc is not None else None
    return f"{unit.kind.value} {geo.loc_names[unit.loc].upper()}" if unit is not None else None


def _state(variant: Variant, pos: Position, influence: dict[str, str]) -> dict[str, Any]:
    """MILA's state of the board ``pos``; ``influence`` (province name -> the power whose unit stood there last)
    is brought up to date with it."""
    geo = variant.geo
    powers = [p.upper() for p in variant.powers]
    units: dict[str, list[str]] = {p: [] for p in powers}
    retreats: dict[str, dict[str, list[str]]] = {p: {} for p in powers}
    for unit in sorted(pos.units.values(), key=lambda u: geo.loc_names[u.loc]):
        if unit.power.upper() in units:
            units[unit.power.upper()].append(f"{unit.kind.value} {geo.loc_names[unit.loc].upper()}")
            influence[geo.loc_names[geo.loc_province[unit.loc]].upper()] = unit.power.upper()
    for prov, dis in sorted(pos.dislodged.items(), key=lambda kv: geo.loc_names[kv[0]]):
        options = retreat_options(geo, pos, prov)
        if not options:
            continue  # MILA disbands it at once: it is in no retreat phase
        name = f"{dis.unit.kind.value} {geo.loc_names[dis.unit.loc].upper()}"
        units[dis.unit.power.upper()].append(f"*{name}")
        retreats[dis.unit.power.upper()][name] = [geo.loc_names[loc].upper() for loc in options]
    centres = {p: sorted(geo.loc_names[c].upper() for c, o in pos.owners.items() if o.upper() == p) for p in powers}
    builds: dict[str, dict[str, Any]] = {}
    for power in variant.powers:
        count, homes = 0, []
        if pos.phase.step is Step.ADJUSTMENT:
            count = pos.centre_count(power) - len(pos.units_of(power))
            if count > 0:
                free = [
                    c
                    for c in variant.build_sites(pos.owners, power)
                    if pos.owners.get(c) == power and c not in pos.units
                ]
                homes = sorted(geo.loc_names[c].upper() for c in free)
                count = min(count, len(homes))
        builds[power.upper()] = {"count": count, "homes": homes}
    return {
        "name": pos.phase.code,
        "note": "",
        "units": units,
        "retreats": retreats,
        "centers": centres,
        "homes": {p.upper(): sorted(geo.loc_names[c].upper() for c in variant.home_centres(p)) for p in variant.powers},
        "influence": {p: sorted(prov for prov, owner in influence.items() if owner == p) for p in powers},
        "civil_disorder": dict.fromkeys(powers, 0),
        "builds": builds,
    }


def _add_messages(phases: list[dict[str, Any]], press: tuple[PressItem, ...]) -> None:
    """Public press signed by a power, as MILA's messages to ``GLOBAL`` in the phase it belongs to (grey press and
    diaries are left out); ``time_sent`` in microseconds, kept increasing as MILA wants."""
    by_name = {p["name"]: p for p in phases}
    last = 0
    for item in press:
        phase = by_name.get(item.phase)
        if phase is None or item.venue is PressVenue.DIARY or item.sender == ANONYMOUS_SENDER:
            continue
        sent = _microseconds(item.at)
        last = max(last + 1, sent)
        phase["messages"].append(
            {
                "sender": item.sender.upper(),
                "recipient": "GLOBAL",
                "time_sent": last,
                "phase": item.phase,
                "message": item.body,
            }
        )


def _microseconds(at: str | None) -> int:
    if not at:
        return 0
    try:
        return int(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1_000_000)
    except ValueError:
        return 0
