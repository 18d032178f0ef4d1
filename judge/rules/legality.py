"""Whether an order may be given in a position, and what it means there.

Each check takes a parsed order and returns either the order made exact (the unit type filled in, a fleet's
destination coast settled) or a ``str`` saying why the order is void. Void movement orders become holds; void retreats
disband; void builds do nothing.
"""

from __future__ import annotations

from judge.rules.board import Position, Unit
from judge.rules.edition import RulesEdition
from judge.rules.geography import Geography, Terrain, UnitKind
from judge.rules.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Retreat,
    SupportHold,
    SupportMove,
    UnitOrder,
    Waive,
)
from judge.rules.phase import Step
from judge.rules.variant import Builds, Variant
from judge.rules.words import Name, Reason

ADJUSTMENTS_ONLY = "only builds, removals and waives are given in an adjustment phase"


def _name(geo: Geography, loc: int) -> str:
    """Where an order's unit stands: its province, and its coast where the order names one."""
    return geo.loc_named(loc)


def own_unit(geo: Geography, units: dict[int, Unit], power: str, order: UnitOrder) -> Unit | str:
    """The unit the order is for, or why there is none of ``power``'s there."""
    unit = units.get(geo.loc_province[order.loc])
    if unit is not None and unit.power == power and (order.kind is None or order.kind is unit.kind):
        return unit
    where = _name(geo, order.loc)
    if unit is None:
        return Reason("there is no unit in {where}", where=where)
    if unit.power != power:
        return Reason("the unit in {where} belongs to {power}", where=where, power=Name(unit.power))
    if unit.kind is UnitKind.ARMY:
        return Reason("the unit in {where} is an army, not a fleet", where=where)
    return Reason("the unit in {where} is a fleet, not an army", where=where)


def fleet_destination(geo: Geography, src: int, dest: int) -> int | str:
    """A fleet's destination location: the coast it can reach when none was named (only if exactly one)."""
    prov = geo.provinces[geo.loc_province[dest]]
    if dest == prov.id and prov.coasts:
        reachable = [c for c in geo.coast_locs[prov.id] if c in geo.fleet_adj[src]]
        if len(reachable) == 1:
            return reachable[0]
        if reachable:
            return Reason(
                "say which coast of {where}: {coasts}",
                where=prov.named,
                coasts=tuple(geo.loc_named(c, geo.loc_names[c]) for c in reachable),
            )
        return Reason(
            "a fleet in {src} cannot reach {dest}", src=geo.loc_named(src, geo.loc_names[src]), dest=prov.named
        )
    if dest not in geo.fleet_adj[src]:
        return Reason(
            "a fleet in {src} cannot reach {dest}; it can move to {options}",
            src=geo.loc_named(src, geo.loc_names[src]),
            dest=geo.loc_named(dest, geo.loc_names[dest]),
            options=", ".join(geo.loc_names[d] for d in geo.destinations(UnitKind.FLEET, src)),
        )
    return dest


def check_order(variant: Variant, pos: Position, power: str, order: Order, edition: RulesEdition) -> Order | str:
    """``order`` checked by the rules of the position's phase (the one place that knows which check a phase takes)
    and of the rules ``edition``: a movement order, a retreat or disband, or a build, removal or waive in an
    adjustment phase. Whether a build or removal is within the power's allowance is the adjustment's adjudication
    (``judge.rules.adjustments``)."""
    geo = variant.geo
    if pos.phase.step is Step.MOVEMENT:
        return check_movement(geo, pos, power, order, edition)
    if pos.phase.step is Step.RETREAT:
        return check_retreat(geo, pos, power, order)
    if isinstance(order, Build):
        sites = variant.build_sites(pos.owners, power)
        return check_build(geo, pos, power, order, sites, variant.builds is Builds.HOME)
    if isinstance(order, Disband):
        unit = own_unit(geo, pos.units, power, order)
        return unit if isinstance(unit, str) else Disband(unit.kind, unit.loc)
    if isinstance(order, Waive):
        return order
    return ADJUSTMENTS_ONLY


def check_movement(geo: Geography, pos: Position, power: str, order: Order, edition: RulesEdition) -> UnitOrder | str:
    if isinstance(order, (Retreat, Disband, Build, Waive)):
        return "only hold, move, support and convoy orders are given in a movement phase"
    unit = own_unit(geo, pos.units, power, order)
    if isinstance(unit, str):
        return unit
    if isinstance(order, Hold):
        return Hold(unit.kind, unit.loc)
    if isinstance(order, Move):
        return _check_move(geo, unit, order)
    if isinstance(order, SupportHold):
        return _check_support_hold(geo, pos, unit, order)
    if isinstance(order, SupportMove):
        return _check_support_move(geo, pos, unit, order)
    if isinstance(order, Convoy):
        checked = _check_convoy(geo, pos, unit, order)
        if edition is RulesEdition.DATC3 and not isinstance(checked, str) and not _necessary(geo, pos, checked):
            return Reason(
                "the fleet in {here} is not needed for any convoy from {origin} to {dest}",
                here=geo.provinces[geo.loc_province[unit.loc]].named,
                origin=geo.provinces[checked.origin].named,
                dest=geo.provinces[checked.dest].named,
            )
        return checked
    return "this order is not for a movement phase"


def _check_move(geo: Geography, unit: Unit, order: Move) -> Move | str:
    src, here = unit.loc, geo.loc_province[unit.loc]
    kind = unit.kind
    there = geo.loc_province[order.dest]
    if there == here:
        return "a unit cannot move to the province it is in"
    if kind is UnitKind.FLEET:
        if order.via_convoy:
            return "only armies can be convoyed"
        dest = fleet_destination(geo, src, order.dest)
        return dest if isinstance(dest, str) else Move(kind, src, dest, False)
    if geo.provinces[there].terrain is Terrain.SEA:
        return Reason("an army cannot move into {dest}", dest=geo.provinces[there].named)
    if there in geo.army_adj[here] or there in geo.convoy_reach[here]:
        return Move(kind, src, there, order.via_convoy)
    return Reason(
        "an army in {src} cannot reach {dest}, not even by convoy; it can move to {options}",
        src=geo.loc_named(src, geo.loc_names[src]),
        dest=geo.provinces[there].named,
        options=", ".join(geo.loc_names[d] for d in geo.destinations(kind, src)),
    )


def _check_support_hold(geo: Geography, pos: Position, unit: Unit, order: SupportHold) -> SupportHold | str:
    src, here = unit.loc, geo.loc_province[unit.loc]
    kind = unit.kind
    target = geo.loc_province[order.target]
    if target == here:
        return "a unit cannot support itself"
    if target not in pos.units:
        return Reason("there is no unit in {where} to support", where=geo.provinces[target].named)
    if not geo.can_reach_province(kind, src, target):
        return Reason(
            "{src} cannot support into {dest}: it could not move there",
            src=geo.loc_named(src, geo.loc_names[src]),
            dest=geo.provinces[target].named,
        )
    return SupportHold(kind, src, target)


def _check_support_move(geo: Geography, pos: Position, unit: Unit, order: SupportMove) -> SupportMove | str:
    src, here = unit.loc, geo.loc_province[unit.loc]
    kind = unit.kind
    origin, there = geo.loc_province[order.origin], geo.loc_province[order.dest]
    if origin == here:
        return "a unit cannot support its own move"
    if there == here:
        return "a unit cannot support a move into its own province"
    if origin == there:
        return "a supported move must go somewhere else"
    if origin not in pos.units:
        return Reason("there is no unit in {where} to support", where=geo.provinces[origin].named)
    if not geo.can_reach_province(kind, src, there):
        return Reason(
            "{src} cannot support into {dest}: it could not move there",
            src=geo.loc_named(src, geo.loc_names[src]),
            dest=geo.provinces[there].named,
        )
    mover = pos.units[origin]
    if (
        mover.kind is UnitKind.ARMY
        and there not in geo.army_adj[origin]
        and not geo.sea_route(origin, there, lambda sea: sea != here)
    ):
        return Reason(
            "the army in {origin} could only reach {dest} by a convoy through {here}, whose fleet "
            "cannot convoy and support at once",
            origin=geo.provinces[origin].named,
            dest=geo.provinces[there].named,
            here=geo.provinces[here].named,
        )
    dest = order.dest if geo.provinces[there].coasts and order.dest != there else there
    return SupportMove(kind, src, origin, dest)


def _check_convoy(geo: Geography, pos: Position, unit: Unit, order: Convoy) -> Convoy | str:
    src, here = unit.loc, geo.loc_province[unit.loc]
    kind = unit.kind
    origin, there = geo.loc_province[order.origin], geo.loc_province[order.dest]
    if kind is not UnitKind.FLEET or geo.provinces[here].terrain is not Terrain.SEA:
        return "only a fleet at sea can convoy"
    army = pos.units.get(origin)
    if army is None:
        return Reason("there is no unit in {where} to convoy", where=geo.provinces[origin].named)
    if army.kind is not UnitKind.ARMY:
        return "only armies can be convoyed"
    if origin == there or geo.provinces[there].terrain is not Terrain.COAST:
        return Reason("an army cannot be convoyed to {dest}", dest=geo.provinces[there].named)
    if origin not in geo.shore[here] or there not in geo.shore[here]:
        return Reason(
            "a fleet in {here} cannot be part of a convoy from {origin} to {dest}",
            here=geo.provinces[here].named,
            origin=geo.provinces[origin].named,
            dest=geo.provinces[there].named,
        )
    return Convoy(kind, src, origin, there)


def _necessary(geo: Geography, pos: Position, convoy: Convoy) -> bool:
    """Whether the convoying fleet is necessary for some convoy route of the army (DATC v3.0, 6.G.19): whether it
    lies on a chain of fleets at sea from the army's province to its destination in which every fleet is needed, a
    chain with no shortcut (no fleet of it touches the origin but the first, none the destination but the last, and
    none borders another but its neighbours in the chain)."""
    here = geo.loc_province[convoy.loc]
    origin, dest = convoy.origin, convoy.dest
    seas = {p for p, u in pos.units.items() if u.kind is UnitKind.FLEET and geo.provinces[p].terrain is Terrain.SEA}

    def extend(path: list[int]) -> bool:
        last = path[-1]
        if dest in geo.fleet_reach[last]:
            return here in path
        for nxt in sorted(seas & geo.fleet_reach[last]):
            if nxt in path or origin in geo.fleet_reach[nxt] or any(nxt in geo.fleet_reach[p] for p in path[:-1]):
                continue
            if extend([*path, nxt]):
                return True
        return False

    return any(extend([first]) for first in sorted(seas) if origin in geo.fleet_reach[first])


def unconvoyable_moves(geo: Geography, pos: Position, orders: dict[int, UnitOrder]) -> dict[int, str]:
    """Army moves to a non-adjacent province with no chain of fleets at sea to carry it: void (DATC 6.D.32).

    Only the presence of fleets counts here; whether they are ordered to convoy decides success, not legality.
    """
    void: dict[int, str] = {}
    for prov, order in orders.items():
        if not isinstance(order, Move) or order.kind is not UnitKind.ARMY:
            continue
        dest = geo.loc_province[order.dest]
        if dest in geo.army_adj[prov]:
            continue
        if not geo.sea_route(prov, dest, pos.units.__contains__):
            void[prov] = Reason(
                "no chain of fleets at sea could convoy the army to {dest}", dest=geo.provinces[dest].name
            )
    return void


def check_retreat(geo: Geography, pos: Position, power: str, order: Order) -> UnitOrder | str:
    if not isinstance(order, (Retreat, Disband, Move)):
        return "in a retreat phase a dislodged unit can only retreat or disband"
    dis = pos.dislodged.get(geo.loc_province[order.loc])
    where = _name(geo, order.loc)
    if dis is None:
        return Reason("there is no dislodged unit in {where}", where=where)
    if dis.unit.power != power:
        return Reason("the dislodged unit in {where} belongs to {power}", where=where, power=Name(dis.unit.power))
    if order.kind is not None and order.kind is not dis.unit.kind:
        return Reason(
            "the dislodged unit in {where} is an army"
            if dis.unit.kind is UnitKind.ARMY
            else "the dislodged unit in {where} is a fleet",
            where=where,
        )
    if isinstance(order, Disband):
        return Disband(dis.unit.kind, dis.unit.loc)
    options = retreat_options(geo, pos, geo.loc_province[order.loc])
    dest = order.dest
    if dis.unit.kind is UnitKind.FLEET:
        settled = fleet_destination(geo, dis.unit.loc, dest)
        if isinstance(settled, str):
            return settled
        dest = settled
    else:
        dest = geo.loc_province[dest]
    if dest not in options:
        if not options:
            return Reason(
                "{unit} cannot retreat to {dest}; it has nowhere to retreat and must disband",
                unit=geo.loc_named(dis.unit.loc, geo.loc_names[dis.unit.loc]),
                dest=geo.loc_named(dest, geo.loc_names[dest]),
            )
        return Reason(
            "{unit} cannot retreat to {dest}; it can retreat to {allowed}",
            unit=geo.loc_named(dis.unit.loc, geo.loc_names[dis.unit.loc]),
            dest=geo.loc_named(dest, geo.loc_names[dest]),
            allowed=", ".join(geo.loc_names[o] for o in options),
        )
    return Retreat(dis.unit.kind, dis.unit.loc, dest)


def retreat_options(geo: Geography, pos: Position, province: int) -> list[int]:
    """Locations the unit dislodged in ``province`` may retreat to."""
    dis = pos.dislodged[province]
    unit = dis.unit
    out = []
    for loc in geo.destinations(unit.kind, unit.loc):
        prov = geo.loc_province[loc]
        if prov in pos.units or prov in pos.standoffs:
            continue
        if prov == dis.attacker_from and not dis.via_convoy:
            continue
        out.append(loc)
    return out


def check_build(
    geo: Geography, pos: Position, power: str, order: Build, home: tuple[int, ...], home_rule: bool = True
) -> Build | str:
    """A build in one of ``home`` (the centres the variant lets the power build in: its home centres, or with
    ``home_rule`` false every centre it owns)."""
    prov_id = geo.loc_province[order.loc]
    prov = geo.provinces[prov_id]
    if prov_id not in home and home_rule:
        return Reason("{where} is not a home centre of {power}", where=prov.named, power=Name(power))
    if pos.owners.get(prov_id) != power:
        return Reason("{power} does not own {where}", where=prov.named, power=Name(power))
    if prov_id in pos.units:
        return Reason("{where} is occupied", where=prov.named)
    loc = order.loc
    if order.kind is UnitKind.FLEET:
        if prov.terrain is not Terrain.COAST:
            return Reason("a fleet cannot be built in {where}, which has no coast", where=prov.named)
        if prov.coasts and loc == prov_id:
            return Reason(
                "say which coast of {where}: {coasts}",
                where=prov.named,
                coasts=tuple(geo.loc_names[c] for c in geo.coast_locs[prov_id]),
            )
    else:
        loc = prov_id
    return Build(order.kind, loc)
