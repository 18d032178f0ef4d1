"""Typed orders as JSON: how the game server stores each order, so that nothing reads order text again. An order
given for the current phase (or kept for a later one) is stored as it was read on arrival (``order_from_json`` gives
it back); an order of a played phase as it was played, with the unit types filled in (the map draws from it).

``{"type": "move", "unit": "A", "at": "lon", "to": "nwy", "via_convoy": true}``; ``type`` is one of ``ORDER_TYPES``;
places are location names (``stp/nc``); ``unit`` is "A", "F" or None (a unit type the order left out and no unit
there to fill it in); ``target`` is the supported or convoyed unit's place; ``to`` where a unit (or the supported
or convoyed unit) goes, absent for a hold, a support to hold, a disband and a build.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judge.rules.geography import Geography, UnitKind
from judge.rules.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, Waive

ORDER_TYPES = ("hold", "move", "support", "convoy", "retreat", "disband", "build", "waive")


def order_to_json(geo: Geography, order: Order, units: Mapping[int, Any] | None = None) -> dict[str, Any]:
    """``order`` as JSON; ``units`` (province id -> unit) fills in unit types the order left out."""
    if isinstance(order, Waive):
        return {"type": "waive"}
    names = geo.loc_names
    kind: UnitKind | None = order.kind
    if kind is None and units is not None:
        there = units.get(geo.loc_province[order.loc])
        kind = there.kind if there is not None else None
    out: dict[str, Any] = {"type": "", "unit": kind.value if kind else None, "at": names[order.loc]}
    match order:
        case Build():
            out["type"] = "build"
        case Hold():
            out["type"] = "hold"
        case Disband():
            out["type"] = "disband"
        case Move():
            out.update(type="move", to=names[order.dest], via_convoy=order.via_convoy)
        case Retreat():
            out.update(type="retreat", to=names[order.dest])
        case SupportHold():
            out.update(type="support", target=names[order.target])
        case SupportMove():
            out.update(type="support", target=names[order.origin], to=names[order.dest])
        case Convoy():
            out.update(type="convoy", target=names[order.origin], to=names[order.dest])
    return out


def order_from_json(geo: Geography, data: object) -> Order | None:
    """The order ``data`` (as ``order_to_json`` wrote it) stands for, or None when it is no order this geography
    knows (not an object, an unknown type, unit or place, a field missing)."""
    if not isinstance(data, Mapping):
        return None
    kind = data.get("type")
    if kind == "waive":
        return Waive()
    word = data.get("unit")
    if word is not None and word not in ("A", "F"):
        return None
    unit = UnitKind(word) if word is not None else None
    places = {name: _loc(geo, data[name]) for name in ("at", "to", "target") if name in data}
    at, to, target = places.get("at"), places.get("to"), places.get("target")
    if at is None or None in places.values():
        return None
    match kind:
        case "build" if unit is not None:
            return Build(unit, at)
        case "hold":
            return Hold(unit, at)
        case "disband":
            return Disband(unit, at)
        case "move" if to is not None:
            return Move(unit, at, to, data.get("via_convoy") is True)
        case "retreat" if to is not None:
            return Retreat(unit, at, to)
        case "support" if target is not None:
            return SupportHold(unit, at, target) if to is None else SupportMove(unit, at, target, to)
        case "convoy" if target is not None and to is not None:
            return Convoy(unit, at, target, to)
    return None


def _loc(geo: Geography, name: object) -> int | None:
    return geo.by_loc_name.get(name) if isinstance(name, str) else None
