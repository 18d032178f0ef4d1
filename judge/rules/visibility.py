"""Fog of War (``[rules] fog = true``): what a power sees of the board (docs/rules.md "Fog of War").

A power sees the provinces its own units stand in (a dislodged unit too, where it was dislodged), the supply centres
it owns, and every province next to one of them by any move an army or a fleet could make from there (from any of
a split province's coasts); in a province it sees, it sees the unit standing there and who owns the centre. It
never sees a unit elsewhere, nor who owns a centre elsewhere. Every power's number of centres is public: it is not
in this module's hands (the mail shows the tally's counts to everyone).

An order is checked on arrival on the board its power imagines (``imagined``), so that no answer tells what stands
out of its sight; at the deadline it is played on the real board.

Everything here is pure: a geography, a position and powers in, sets of provinces and a narrowed position out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from judge.rules.board import Position, Unit
from judge.rules.geography import Geography, Terrain, UnitKind
from judge.rules.orders import Convoy, Move, Order, SupportHold, SupportMove, Waive


def neighbours(geo: Geography, province: int) -> frozenset[int]:
    """The provinces next to ``province`` by an army's move or a fleet's move from it or any of its coasts."""
    near = set(geo.army_adj[province]) | set(geo.fleet_reach[province])
    for coast in geo.coast_locs[province]:
        near |= geo.fleet_reach[coast]
    near.discard(province)
    return frozenset(near)


def own_places(pos: Position, powers: Iterable[str]) -> frozenset[int]:
    """The provinces ``powers`` stand in or own: their units', their dislodged units' and their centres."""
    mine = set(powers)
    places = {prov for prov, u in pos.units.items() if u.power in mine}
    places |= {prov for prov, d in pos.dislodged.items() if d.unit.power in mine}
    places |= {prov for prov, owner in pos.owners.items() if owner in mine}
    return frozenset(places)


def visible_provinces(geo: Geography, pos: Position, powers: Iterable[str]) -> frozenset[int]:
    """The provinces ``powers`` (one power, or the several one player holds) see on ``pos``."""
    places = own_places(pos, powers)
    seen = set(places)
    for prov in places:
        seen |= neighbours(geo, prov)
    return frozenset(seen)


def fogged(pos: Position, seen: frozenset[int]) -> Position:
    """``pos`` as a power that sees ``seen`` knows it: the units, dislodged units, owners and standoffs there."""
    return Position(
        pos.phase,
        {prov: u for prov, u in pos.units.items() if prov in seen},
        {prov: owner for prov, owner in pos.owners.items() if prov in seen},
        {prov: d for prov, d in pos.dislodged.items() if prov in seen},
        frozenset(prov for prov in pos.standoffs if prov in seen),
    )


def order_seen(geo: Geography, typed: Mapping[str, Any] | None, seen: frozenset[int]) -> bool:
    """Whether an order (as ``judge.rules.order_json`` stores it) of another power is shown to one who sees
    ``seen`` (the provinces seen before the phase and after it): the unit's place or where it went is seen. A
    waive, and an order that could not be read, are never shown."""
    if not isinstance(typed, Mapping):
        return False
    places = [typed.get(k) for k in ("at", "to")]
    for name in places:
        loc = geo.by_loc_name.get(name) if isinstance(name, str) else None
        if loc is not None and geo.loc_province[loc] in seen:
            return True
    return False


UNSEEN = "?"  # the owner of a unit imagined where a power does not see (never a power's name)


def imagined(geo: Geography, pos: Position, seen: frozenset[int], order: Order) -> Position:
    """The board an order of a power that sees ``seen`` is checked on when it arrives, so that the answer never
    depends on what the power does not see: what stands where it sees, and nothing elsewhere — but for a unit
    imagined where the order names one out of sight (the unit it supports or convoys), and a fleet imagined in every
    sea out of sight where an army may go by convoy (which may pass through them). At the deadline the order is
    played on the real board."""
    shown = fogged(pos, seen)
    here = geo.loc_province[order.loc] if not isinstance(order, Waive) else None
    out_of_sight = {p.id for p in geo.provinces if p.id not in seen and p.id != here}
    wanted: dict[int, UnitKind] = {}
    convoyed = isinstance(order, Move | Convoy)
    if isinstance(order, SupportHold):
        target = geo.loc_province[order.target]
        wanted[target] = UnitKind.FLEET if geo.provinces[target].terrain is Terrain.SEA else UnitKind.ARMY
    elif isinstance(order, SupportMove):
        origin, there = geo.loc_province[order.origin], geo.loc_province[order.dest]
        by_land = there in geo.army_adj[origin] or geo.provinces[there].terrain is Terrain.COAST
        army = geo.provinces[origin].terrain is not Terrain.SEA and by_land
        wanted[origin] = UnitKind.ARMY if army else UnitKind.FLEET
        convoyed = army and there not in geo.army_adj[origin]
    elif isinstance(order, Convoy):
        wanted[geo.loc_province[order.origin]] = UnitKind.ARMY
    if convoyed:
        wanted.update({p.id: UnitKind.FLEET for p in geo.provinces if p.terrain is Terrain.SEA and p.id not in wanted})
    units = dict(shown.units)
    units.update({prov: Unit(UNSEEN, kind, prov) for prov, kind in wanted.items() if prov in out_of_sight})
    return Position(shown.phase, units, shown.owners, shown.dislodged, shown.standoffs)
