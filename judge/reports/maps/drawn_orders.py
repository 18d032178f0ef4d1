"""The orders of a played phase as the map draws them, read from the typed orders the game server stores
(``judge.rules.order_json``): no order text is read here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judge.rules.geography import Geography
from judge.rules.orders import Outcome


@dataclass(frozen=True)
class DrawnOrder:
    """One order to draw: its kind, the ordered unit's place and, for supports and convoys, the other unit's."""

    power: str
    kind: str  # move | retreat | hold | support | convoy | build | disband
    loc: int  # the ordered unit's location (for build: where)
    target: int = -1  # supported / convoyed unit's location
    dest: int = -1  # where the unit (or the supported / convoyed unit) goes
    succeeded: bool = True


def drawn_order(geo: Geography, power: str, typed: Mapping[str, Any] | None, outcome: str | None) -> DrawnOrder | None:
    """The drawable order ``typed`` (an order as JSON), or None when there is nothing to draw (waive, no order, a
    place the map does not know)."""
    if not isinstance(typed, Mapping):
        return None
    kind = typed.get("type")
    ok = outcome == Outcome.SUCCEEDS.value
    loc = _place(geo, typed.get("at"))
    if loc is None or kind not in ("hold", "move", "support", "convoy", "retreat", "disband", "build"):
        return None
    if kind == "hold":
        return DrawnOrder(power, kind, loc, succeeded=ok or outcome is None)
    if kind == "disband":
        return DrawnOrder(power, kind, loc, succeeded=ok or outcome == Outcome.DISBANDED.value)
    if kind == "build":
        return DrawnOrder(power, kind, loc, succeeded=ok)
    dest = _place(geo, typed.get("to"))
    if kind in ("move", "retreat"):
        return None if dest is None else DrawnOrder(power, kind, loc, dest=dest, succeeded=ok)
    target = _place(geo, typed.get("target"))
    if target is None or (kind == "convoy" and dest is None):
        return None
    return DrawnOrder(power, kind, loc, target, -1 if dest is None else dest, ok)


def _place(geo: Geography, name: Any) -> int | None:
    return geo.by_loc_name.get(name.lower()) if isinstance(name, str) else None
