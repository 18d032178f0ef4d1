"""Adjudication of a retreat phase: retreats to the same province all fail; a unit that does not retreat disbands."""

from __future__ import annotations

from judge.rules.board import Position, Unit
from judge.rules.geography import Geography
from judge.rules.orders import Disband, Outcome, Retreat
from judge.rules.words import Reason


def adjudicate_retreats(
    geo: Geography, pos: Position, orders: dict[int, Retreat | Disband]
) -> tuple[dict[int, Unit], dict[int, tuple[Outcome, str | None]]]:
    """``orders`` are legal (judge.rules.legality), keyed by the province of the dislodged unit.

    Returns the new units and, for every dislodged unit, its outcome.
    """
    wanted: dict[int, list[int]] = {}
    for prov, given in orders.items():
        if isinstance(given, Retreat):
            wanted.setdefault(geo.loc_province[given.dest], []).append(prov)
    units = dict(pos.units)
    outcomes: dict[int, tuple[Outcome, str | None]] = {}
    for prov, dis in pos.dislodged.items():
        order = orders.get(prov)
        if isinstance(order, Retreat):
            there = geo.loc_province[order.dest]
            rivals = wanted[there]
            if len(rivals) == 1:
                units[there] = Unit(dis.unit.power, dis.unit.kind, order.dest)
                outcomes[prov] = (Outcome.SUCCEEDS, None)
            else:
                others = ", ".join(
                    f"{pos.dislodged[r].unit.kind.value} {geo.loc_names[pos.dislodged[r].unit.loc]}"
                    for r in rivals
                    if r != prov
                )
                outcomes[prov] = (
                    Outcome.BOUNCED,
                    Reason("bounced with {others}; the unit is disbanded", others=others),
                )
        elif isinstance(order, Disband):
            outcomes[prov] = (Outcome.SUCCEEDS, None)
        else:
            outcomes[prov] = (Outcome.DISBANDED, "no retreat ordered")
    return units, outcomes
