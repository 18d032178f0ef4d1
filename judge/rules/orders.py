"""Typed orders, the closed set of outcomes, and the result of one order.

Orders name places by location id (see geography). ``kind`` on an order is the unit type the player wrote, or None
when they left it out; the legality check compares it with the unit that is really there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from judge.rules.geography import Geography, UnitKind


@dataclass(frozen=True, slots=True)
class Hold:
    kind: UnitKind | None
    loc: int


@dataclass(frozen=True, slots=True)
class Move:
    kind: UnitKind | None
    loc: int
    dest: int  # a location; a province location when the player gave no coast
    via_convoy: bool = False


@dataclass(frozen=True, slots=True)
class SupportHold:
    kind: UnitKind | None
    loc: int
    target: int  # location of the supported unit (coast ignored)


@dataclass(frozen=True, slots=True)
class SupportMove:
    kind: UnitKind | None
    loc: int
    origin: int  # location of the supported unit
    dest: int  # where it moves; a coast here must match the move's coast


@dataclass(frozen=True, slots=True)
class Convoy:
    kind: UnitKind | None
    loc: int
    origin: int  # the army's location
    dest: int


@dataclass(frozen=True, slots=True)
class Retreat:
    kind: UnitKind | None
    loc: int
    dest: int


@dataclass(frozen=True, slots=True)
class Disband:
    kind: UnitKind | None
    loc: int


@dataclass(frozen=True, slots=True)
class Build:
    kind: UnitKind
    loc: int


@dataclass(frozen=True, slots=True)
class Waive:
    pass


Order = Hold | Move | SupportHold | SupportMove | Convoy | Retreat | Disband | Build | Waive
UnitOrder = Hold | Move | SupportHold | SupportMove | Convoy | Retreat | Disband


class Outcome(Enum):
    SUCCEEDS = "succeeds"
    BOUNCED = "bounced"  # a move or retreat that did not happen
    CUT = "cut"  # a support that was cut
    DISLODGED = "dislodged"  # the ordered unit was dislodged
    NO_CONVOY = "no_convoy"  # a convoyed move without a working convoy route
    VOID = "void"  # an illegal order: the unit holds (a retreat: the unit is disbanded; a build: nothing)
    UNMATCHED = "unmatched"  # a support or convoy the supported/convoyed unit did not match
    DISBANDED = "disbanded"  # a dislodged unit that did not retreat, or a unit removed in civil disorder


@dataclass(frozen=True)
class Result:
    """What became of one order (or of a unit that got none: ``input`` None)."""

    power: str
    order: Order | None
    input: str | None
    outcome: Outcome
    reason: str | None = None


def order_text(geo: Geography, order: Order, units: Mapping[int, Any] | None = None) -> str:
    """The canonical short text of an order, e.g. ``F nth - pic``, ``A mun S A ber - kie``.

    ``units`` (province id -> unit) fills in unit types the player left out.
    """
    names = geo.loc_names

    def unit(loc: int, kind: UnitKind | None) -> str:
        if kind is None and units is not None:
            there = units.get(geo.loc_province[loc])
            kind = there.kind if there is not None else None
        return f"{kind.value} {names[loc]}" if kind else names[loc]

    if isinstance(order, Build):
        return f"build {order.kind.value} {names[order.loc]}"
    if isinstance(order, Waive):
        return "waive"
    head = unit(order.loc, order.kind)
    if isinstance(order, Hold):
        return f"{head} H"
    if isinstance(order, Move):
        return f"{head} - {names[order.dest]}" + (" via convoy" if order.via_convoy else "")
    if isinstance(order, SupportHold):
        return f"{head} S {unit(order.target, None)}"
    if isinstance(order, SupportMove):
        return f"{head} S {unit(order.origin, None)} - {names[order.dest]}"
    if isinstance(order, Convoy):
        return f"{head} C A {names[order.origin]} - {names[order.dest]}"
    if isinstance(order, Retreat):
        return f"{head} R {names[order.dest]}"
    return f"{head} disband"
