"""Typed orders as JSON: how the game server stores each order of a played phase, so that nothing reads order text
again (the map draws from it).

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
