"""The stand-in bot (judge.bots.standin): for positions reached by play, its orders are legal, complete, never bounce
its own units, and the same seed gives the same orders; a few chosen positions show what it does."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.bots.standin import orders_for
from judge.cli.demo import choose_orders
from judge.data.catalog import load_variant
from judge.rules.adjustments import adjustment_delta
from judge.rules.board import Dislodged, Position, Unit
from judge.rules.edition import RulesEdition
from judge.rules.geography import UnitKind
from judge.rules.legality import check_order
from judge.rules.orders import Build, Disband, Hold, Move, Outcome, Retreat, SupportHold, SupportMove
from judge.rules.parse import parse_order
from judge.rules.phase import Phase, Season, Step
from judge.rules.turn import Submitted, play
from judge.rules.variant import Variant

CLASSIC = load_variant("classic")
POWERS = CLASSIC.powers


def start(variant: Variant) -> Position:
    units = {variant.geo.loc_province[s.loc]: Unit(s.power, s.kind, s.loc) for s in variant.start_units}
    return Position(Phase(variant.start_year, Season.SPRING, Step.MOVEMENT), units, variant.start_ownership())


def reached(variant: Variant, seed: int, phases: int, bots: frozenset[str]) -> Position:
    """The position after ``phases`` phases of play: ``bots`` by the stand-in, the others at random."""
    rng = random.Random(seed)
    pos = start(variant)
    for _ in range(phases):
        submitted = []
        for power in variant.powers:
            if power in bots:
                submitted.extend(Submitted(power, None, o) for o in orders_for(variant, pos, power, seed))
            else:
                for line in choose_orders(variant, pos, power, rng):
                    submitted.append(Submitted(power, line, parse_order(line, variant.geo, pos.phase.step)))
        turn = play(variant, pos, submitted)
        if turn.winner is not None:
            break
        pos = turn.position
    return pos


def assert_legal_and_complete(variant: Variant, pos: Position, power: str, seed: int) -> None:
    geo = variant.geo
    orders = orders_for(variant, pos, power, seed)
    for order in orders:
        assert check_order(variant, pos, power, order, RulesEdition.Y2000) == order, order
    step = pos.phase.step
    if step is Step.MOVEMENT:
        ordered = Counter(geo.loc_province[o.loc] for o in orders)  # type: ignore[union-attr]
        assert ordered == Counter(p for p, u in pos.units.items() if u.power == power)
        moves = [o for o in orders if isinstance(o, Move)]
        for o in moves:  # no convoys: an army walks
            assert o.kind is UnitKind.FLEET or geo.loc_province[o.dest] in geo.army_adj[geo.loc_province[o.loc]]
            assert not o.via_convoy
        dests = [geo.loc_province[o.dest] for o in moves]
        assert len(dests) == len(set(dests)), "two units of the power move to one province"
        leaving = {geo.loc_province[o.loc]: geo.loc_province[o.dest] for o in moves}
        for src, dst in leaving.items():
            occupant = pos.units.get(dst)
            if occupant is not None and occupant.power == power:
                assert dst in leaving and leaving[dst] != src, "a move into a unit of its own that stays or swaps"
    elif step is Step.RETREAT:
        ordered = Counter(geo.loc_province[o.loc] for o in orders)  # type: ignore[union-attr]
        assert ordered == Counter(p for p, d in pos.dislodged.items() if d.unit.power == power)
        dests = [geo.loc_province[o.dest] for o in orders if isinstance(o, Retreat)]
        assert len(dests) == len(set(dests))
    else:
        delta = adjustment_delta(variant, pos, power)
        free = [c for c in variant.home_centres(power) if pos.owners.get(c) == power and c not in pos.units]
        if delta < 0:
            assert all(isinstance(o, Disband) for o in orders)
            assert len({o.loc for o in orders}) == len(orders) == -delta  # type: ignore[union-attr]
        elif delta > 0:
            assert all(isinstance(o, Build) for o in orders)
            assert len({geo.loc_province[o.loc] for o in orders}) == len(orders) == min(delta, len(free))  # type: ignore[union-attr]
        else:
            assert orders == []
    # the orders played: none of them void
    turn = play(variant, pos, [Submitted(power, None, o) for o in orders])
    assert not [r for r in turn.results if r.power == power and r.order is not None and r.outcome is Outcome.VOID]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    phases=st.integers(0, 45),
    bots=st.sets(st.sampled_from(POWERS), max_size=3).map(frozenset),
)
def test_orders_are_legal_complete_and_seeded(seed: int, phases: int, bots: frozenset[str]) -> None:
    pos = reached(CLASSIC, seed, phases, bots)
    for power in POWERS:
        assert_legal_and_complete(CLASSIC, pos, power, seed)
        assert orders_for(CLASSIC, pos, power, seed) == orders_for(CLASSIC, pos, power, seed)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), phases=st.integers(0, 30))
def test_other_variants_too(seed: int, phases: int) -> None:
    variant = load_variant("coldwar")
    pos = reached(variant, seed, phases, frozenset(variant.powers[:1]))
    for power in variant.powers:
        assert_legal_and_complete(variant, pos, power, seed)


def test_the_seed_decides_and_a_seed_repeats() -> None:
    pos = start(CLASSIC)
    seen = {tuple(map(repr, orders_for(CLASSIC, pos, power, seed))) for power in POWERS for seed in range(20)}
    assert len(seen) > len(POWERS)  # different seeds may play differently
    assert orders_for(CLASSIC, pos, "France", 7) == orders_for(CLASSIC, pos, "France", 7)


def loc(name: str) -> int:
    return CLASSIC.geo.loc(name)


def test_a_lone_army_takes_the_neutral_centre_next_to_it_in_the_fall() -> None:
    units = {loc("bur"): Unit("France", UnitKind.ARMY, loc("bur"))}
    owners = {loc("par"): "France", loc("bre"): "France", loc("mar"): "France"}
    pos = Position(Phase(1901, Season.FALL, Step.MOVEMENT), units, owners)
    for seed in range(10):
        [order] = orders_for(CLASSIC, pos, "France", seed)
        assert isinstance(order, Move) and order.dest in (loc("bel"), loc("mun"))  # the neutral centres next to it


def test_a_unit_on_a_centre_it_is_taking_stays_in_the_fall() -> None:
    units = {loc("bel"): Unit("France", UnitKind.ARMY, loc("bel"))}
    pos = Position(Phase(1901, Season.FALL, Step.MOVEMENT), units, {loc("par"): "France"})
    orders = orders_for(CLASSIC, pos, "France", 1)
    assert [type(o) for o in orders] == [Hold]


def test_units_support_an_attack_on_a_held_centre() -> None:
    units = {
        loc("bur"): Unit("France", UnitKind.ARMY, loc("bur")),
        loc("pic"): Unit("France", UnitKind.ARMY, loc("pic")),
        loc("bel"): Unit("Germany", UnitKind.ARMY, loc("bel")),
    }
    owners = {c: "France" for c in CLASSIC.centres} | {loc("bel"): "Germany"}  # Belgium is the one centre to take
    pos = Position(Phase(1902, Season.FALL, Step.MOVEMENT), units, owners)
    orders = orders_for(CLASSIC, pos, "France", 3)
    kinds = sorted(type(o).__name__ for o in orders)
    assert kinds == ["Move", "SupportMove"], orders
    move = next(o for o in orders if isinstance(o, Move))
    support = next(o for o in orders if isinstance(o, SupportMove))
    assert (support.origin, support.dest) == (move.loc, move.dest)


def test_a_threatened_unit_is_supported_to_hold() -> None:
    units = {
        loc("mun"): Unit("Germany", UnitKind.ARMY, loc("mun")),
        loc("ber"): Unit("Germany", UnitKind.ARMY, loc("ber")),
        loc("kie"): Unit("Germany", UnitKind.ARMY, loc("kie")),
        loc("boh"): Unit("Austria", UnitKind.ARMY, loc("boh")),
        loc("tyr"): Unit("Austria", UnitKind.ARMY, loc("tyr")),
    }
    owners = {c: p for p in ("Germany", "Austria") for c in CLASSIC.home_centres(p)}
    pos = Position(Phase(1903, Season.FALL, Step.MOVEMENT), units, owners)
    orders = orders_for(CLASSIC, pos, "Germany", 1)
    assert any(isinstance(o, SupportHold | SupportMove) for o in orders), orders


def test_a_dislodged_unit_retreats_or_disbands() -> None:
    units = {loc("bur"): Unit("Germany", UnitKind.ARMY, loc("bur"))}
    dislodged = {loc("mun"): Dislodged(Unit("France", UnitKind.ARMY, loc("mun")), loc("bur"), False)}
    pos = Position(Phase(1901, Season.FALL, Step.RETREAT), units, {loc("par"): "France"}, dislodged)
    [order] = orders_for(CLASSIC, pos, "France", 1)
    assert isinstance(order, Retreat) and CLASSIC.geo.loc_province[order.dest] != loc("bur")
    boxed = {p: Unit("Germany", UnitKind.ARMY, p) for p in CLASSIC.geo.army_adj[loc("mun")]}
    pos = Position(Phase(1901, Season.FALL, Step.RETREAT), boxed, {}, dislodged)
    assert orders_for(CLASSIC, pos, "France", 1) == [Disband(UnitKind.ARMY, loc("mun"))]


def test_builds_use_free_homes_and_removals_what_is_owed() -> None:
    owners = {c: "England" for c in CLASSIC.home_centres("England")} | {loc("nwy"): "England"}
    pos = Position(Phase(1901, Season.WINTER, Step.ADJUSTMENT), {}, owners)
    builds = orders_for(CLASSIC, pos, "England", 1)
    assert len(builds) == 3 and all(isinstance(b, Build) for b in builds)  # 4 centres, 3 free homes
    units = {p: Unit("Italy", UnitKind.ARMY, p) for p in (loc("ven"), loc("rom"), loc("apu"), loc("tus"))}
    pos = Position(Phase(1901, Season.WINTER, Step.ADJUSTMENT), units, {loc("rom"): "Italy", loc("nap"): "Italy"})
    removals = orders_for(CLASSIC, pos, "Italy", 1)
    assert len(removals) == 2 and all(isinstance(r, Disband) for r in removals)
