"""One phase of a game, from submitted orders to the next position: parse, check, adjudicate, advance.

Phases run Spring movement, (Spring retreats), Fall movement, (Fall retreats), (Winter adjustments); a retreat or
adjustment phase with nothing to do is skipped. Centres change owner after the Fall (after its retreats), and the
victory rule is checked then. Neutral units (``judge.rules.variant.NEUTRAL``) hold without an order line, defend
and can be supported; one dislodged is disbanded at once (it has nobody to retreat it) and never takes a centre.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial

from judge.rules.adjustments import adjudicate_adjustments, adjustment_delta, can_build_somewhere
from judge.rules.board import Position, Unit
from judge.rules.edition import RulesEdition
from judge.rules.legality import check_order, unconvoyable_moves
from judge.rules.movement import adjudicate_movement
from judge.rules.orders import Build, Disband, Hold, Order, Outcome, Result, Retreat, UnitOrder, Waive
from judge.rules.parse import OrderError, parse_order
from judge.rules.phase import Phase, Season, Step
from judge.rules.retreats import adjudicate_retreats
from judge.rules.variant import NEUTRAL, Variant
from judge.rules.victory import Victory


@dataclass(frozen=True)
class Submitted:
    """One order as a player sent it: the text (None when made up by the judge) and what it parsed to."""

    power: str
    text: str | None
    order: Order | OrderError


@dataclass(frozen=True)
class TurnResult:
    phase: Phase  # the phase that was played
    results: list[Result]
    position: Position  # the position at the next phase to play
    winner: str | None = None
    draw: tuple[str, ...] = ()  # the powers sharing a draw the victory rule declared (a last-year tie)
    scores: dict[str, int] | None = None  # after a Fall: each power's score (centres, or points where used)


def parse_submissions(variant: Variant, step: Step, texts: dict[str, list[str]]) -> list[Submitted]:
    return [
        Submitted(power, line, parse_order(line, variant.geo, step)) for power, lines in texts.items() for line in lines
    ]


def play(
    variant: Variant,
    pos: Position,
    submitted: list[Submitted],
    victory: Victory | None = None,
    sides: tuple[tuple[str, ...], ...] = (),
    *,
    edition: RulesEdition = RulesEdition.Y2000,
) -> TurnResult:
    """Play one phase by the rules ``edition`` (a game's ``rules`` setting). ``victory`` overrides the variant's
    victory rule (a game's own solo count or last year); ``sides``: powers held by one player whose scores count
    together for victory."""
    step = pos.phase.step
    rule = victory or variant.victory
    if step is Step.MOVEMENT:
        return _movement(variant, pos, submitted, rule, sides, edition)
    if step is Step.RETREAT:
        return _retreats(variant, pos, submitted, rule, sides, edition)
    return _adjustments(variant, pos, submitted, edition)


def _void(sub: Submitted, reason: str) -> Result:
    order = None if isinstance(sub.order, OrderError) else sub.order
    return Result(sub.power, order, sub.text, Outcome.VOID, reason)


def _unit_orders(
    variant: Variant,
    pos: Position,
    submitted: list[Submitted],
    owners: dict[int, str],
    edition: RulesEdition,
) -> tuple[dict[int, tuple[int, UnitOrder]], list[Result | None], set[int]]:
    """Checked orders by unit province (the last order for a unit wins), a result slot per submission, and the
    provinces of units whose owner gave them only void orders (they get no "no order" line). A movement or retreat
    phase: ``check_order`` gives unit orders only."""
    geo = variant.geo
    results: list[Result | None] = []
    chosen: dict[int, tuple[int, UnitOrder]] = {}
    voided: set[int] = set()
    for i, sub in enumerate(submitted):
        if isinstance(sub.order, OrderError):
            results.append(_void(sub, sub.order.reason))
            continue
        checked = check_order(variant, pos, sub.power, sub.order, edition)
        assert not isinstance(checked, Build | Waive)
        if isinstance(checked, str):
            results.append(_void(sub, checked))
            loc = getattr(sub.order, "loc", None)
            if loc is not None and owners.get(geo.loc_province[loc]) == sub.power:
                voided.add(geo.loc_province[loc])
            continue
        prov = geo.loc_province[checked.loc]
        if prov in chosen:
            earlier = chosen[prov][0]
            results[earlier] = _void(submitted[earlier], "replaced by a later order for the same unit")
        chosen[prov] = (i, checked)
        results.append(None)
    return chosen, results, voided


def _movement(
    variant: Variant,
    pos: Position,
    submitted: list[Submitted],
    rule: Victory,
    sides: tuple[tuple[str, ...], ...],
    edition: RulesEdition,
) -> TurnResult:
    geo = variant.geo
    owners = {prov: unit.power for prov, unit in pos.units.items()}
    chosen, results, voided = _unit_orders(variant, pos, submitted, owners, edition)
    for prov, why in unconvoyable_moves(geo, pos, {p: o for p, (_, o) in chosen.items()}).items():
        i = chosen.pop(prov)[0]
        results[i] = _void(submitted[i], why)
        voided.add(prov)
    orders = {prov: order for prov, (_, order) in chosen.items()}
    outcome = adjudicate_movement(geo, pos.units, orders, edition)
    for prov, (i, order) in chosen.items():
        out = outcome.outcomes[prov]
        results[i] = Result(submitted[i].power, order, submitted[i].text, out, outcome.explain(prov, out))
    final = [r for r in results if r is not None]
    for prov, unit in pos.units.items():
        if prov not in chosen and prov not in voided and unit.power != NEUTRAL:  # neutral units hold, unmentioned
            out = outcome.outcomes[prov]
            final.append(
                Result(
                    unit.power, Hold(unit.kind, unit.loc), None, out, outcome.explain(prov, out) or "no order: holds"
                )
            )
    dislodged = {p: d for p, d in outcome.dislodged.items() if d.unit.power != NEUTRAL}  # a neutral one disbands
    if dislodged:
        nxt = Position(
            pos.phase.after(),
            outcome.units,
            dict(pos.owners),
            dislodged,
            outcome.standoffs,
        )
        return TurnResult(pos.phase, final, nxt)
    return _season_end(variant, pos.phase, outcome.units, pos.owners, final, rule, sides)


def _retreats(
    variant: Variant,
    pos: Position,
    submitted: list[Submitted],
    rule: Victory,
    sides: tuple[tuple[str, ...], ...],
    edition: RulesEdition,
) -> TurnResult:
    geo = variant.geo
    owners = {prov: dis.unit.power for prov, dis in pos.dislodged.items()}
    chosen, results, voided = _unit_orders(variant, pos, submitted, owners, edition)
    orders = {p: o for p, (_, o) in chosen.items() if isinstance(o, Retreat | Disband)}  # check_retreat gives no other
    units, outcomes = adjudicate_retreats(geo, pos, orders)
    for prov, (i, order) in chosen.items():
        out, reason = outcomes[prov]
        results[i] = Result(submitted[i].power, order, submitted[i].text, out, reason)
    final = [r for r in results if r is not None]
    for prov, dis in pos.dislodged.items():
        if prov not in chosen and prov not in voided:
            final.append(
                Result(
                    dis.unit.power,
                    Disband(dis.unit.kind, dis.unit.loc),
                    None,
                    Outcome.DISBANDED,
                    "no valid retreat ordered: disbanded",
                )
            )
    return _season_end(variant, pos.phase, units, pos.owners, final, rule, sides)


def _adjustments(variant: Variant, pos: Position, submitted: list[Submitted], edition: RulesEdition) -> TurnResult:
    results: list[Result] = []
    units = dict(pos.units)
    by_power: dict[str, list[Submitted]] = {}
    for sub in submitted:
        if isinstance(sub.order, OrderError):
            results.append(_void(sub, sub.order.reason))
        else:
            by_power.setdefault(sub.power, []).append(sub)
    centres = Counter(pos.owners.values())
    standing = Counter(u.power for u in pos.units.values())
    for power in variant.powers:
        subs = by_power.get(power, [])
        if not subs and centres[power] == standing[power]:
            continue  # nothing ordered and nothing due: no result (Chaos: most of its 34 powers, each winter)
        orders = [s.order for s in subs if not isinstance(s.order, OrderError)]  # errors were taken out above
        done = adjudicate_adjustments(variant, pos, power, orders, units, edition)
        for sub, (out, reason, order) in zip(subs, done.order_outcomes, strict=True):
            results.append(Result(power, order, sub.text, out, reason))
        for unit in done.civil_disorder:
            results.append(
                Result(
                    power,
                    Disband(unit.kind, unit.loc),
                    None,
                    Outcome.DISBANDED,
                    "civil disorder: too few removals ordered",
                )
            )
    nxt = Position(pos.phase.after(), units, dict(pos.owners))
    return TurnResult(pos.phase, results, nxt)


def _season_end(
    variant: Variant,
    phase: Phase,
    units: dict[int, Unit],
    owners: dict[int, str],
    results: list[Result],
    rule: Victory,
    sides: tuple[tuple[str, ...], ...] = (),
) -> TurnResult:
    """After the last movement or retreat of a season: change owners and check victory after the Fall."""
    retreats = phase.after() if phase.step is Step.MOVEMENT else phase  # the season's retreats, played or skipped
    if phase.season is Season.SPRING:
        nxt = Position(retreats.after(), units, dict(owners))
        return TurnResult(phase, results, nxt)
    owners = dict(owners)
    centres = variant.centres
    for prov, unit in units.items():
        if prov in centres and unit.power != NEUTRAL:  # a neutral unit keeps its centre neutral
            owners[prov] = unit.power
    occupiers = {prov: unit.power for prov, unit in units.items() if unit.power != NEUTRAL}
    scores = rule.scores(centres, owners, occupiers)
    outcome = rule.decide(scores, rule.total(centres), phase.year, sides)
    ended = partial(TurnResult, winner=outcome.winner, draw=outcome.powers, scores=scores)
    winter = Position(retreats.after(), units, owners)
    if any(_needs_adjustment(variant, winter, p) for p in variant.powers):
        return ended(phase, results, winter)
    spring = Position(winter.phase.after(), units, owners)
    return ended(phase, results, spring)


def _needs_adjustment(variant: Variant, pos: Position, power: str) -> bool:
    delta = adjustment_delta(variant, pos, power)
    return delta < 0 or (delta > 0 and can_build_somewhere(variant, pos, power))
