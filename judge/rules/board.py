"""A position on the board: units, dislodged units, standoffs and centre ownership at one phase."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from judge.rules.geography import Geography, UnitKind
from judge.rules.phase import Phase


class Unit(NamedTuple):
    power: str
    kind: UnitKind
    loc: int  # location id (a coast for a fleet on a split-coast province)


class Dislodged(NamedTuple):
    unit: Unit
    attacker_from: int  # province the successful attack came from
    via_convoy: bool  # the attack came by convoy (then retreating to attacker_from is allowed)


@dataclass(frozen=True)
class Position:
    phase: Phase
    units: dict[int, Unit]  # province id -> unit
    owners: dict[int, str]  # centre province id -> owning power
    dislodged: dict[int, Dislodged] = field(default_factory=dict)  # province id -> dislodged unit
    standoffs: frozenset[int] = frozenset()  # provinces left empty by a bounce in the last movement

    def units_of(self, power: str) -> list[Unit]:
        return [u for u in self.units.values() if u.power == power]

    def centre_count(self, power: str) -> int:
        return sum(1 for p in self.owners.values() if p == power)


def unit_text(geo: Geography, unit: Unit) -> str:
    """``A par`` / ``F stp/sc``."""
    return f"{unit.kind.value} {geo.loc_names[unit.loc]}"
