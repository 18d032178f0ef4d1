"""Adjudication of a movement phase, following the DATC (v2.4 preferences).

Every ordered move, support and convoy is a decision that either succeeds or fails: a move that it moves, a support
that it is given (not cut, supporter not dislodged), a convoy that the fleet is not dislodged. Decisions are resolved
by Kruijswijk's guess algorithm: a decision that depends on itself is guessed both ways; one consistent answer wins;
otherwise the cycle is a circular movement (all its moves succeed) or a convoy paradox, which the Szykman rule settles
by disrupting the convoys taking part in it.

Choices (see docs/rules.md): a multi-route convoy fails only if every route fails; an army moving to an adjacent
province goes by convoy when ordered "via convoy" or when a fleet of its own power convoys it, provided a chain of
fleets is ordered to convoy it (otherwise it goes over land; a convoy that is ordered but disrupted makes it fail);
no self-dislodgement; a unit dislodged by a convoyed attack may retreat to the
attacker's origin.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from judge.rules.board import Dislodged, Unit
from judge.rules.edition import RulesEdition
from judge.rules.geography import Geography, UnitKind
from judge.rules.orders import Convoy, Move, Outcome, SupportHold, SupportMove, UnitOrder
from judge.rules.words import Reason

_HOLD, _MOVE, _SUPPORT, _CONVOY = 0, 1, 2, 3
_SUCCEEDS, _BOUNCED, _NO_CONVOY, _UNMATCHED, _CUT, _DISLODGED = (
    Outcome.SUCCEEDS,
    Outcome.BOUNCED,
    Outcome.NO_CONVOY,
    Outcome.UNMATCHED,
    Outcome.CUT,
    Outcome.DISLODGED,
)
_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2


@dataclass(frozen=True)
class MovementResult:
    outcomes: dict[int, Outcome]  # province of each unit -> the outcome of its order
    units: dict[int, Unit]  # the units not dislodged, where they ended
    dislodged: dict[int, Dislodged]  # province -> dislodged unit
    standoffs: frozenset[int]  # provinces left empty by a bounce
    explain: Callable[[int, Outcome], str | None] = field(repr=False, compare=False)  # reason in words, on demand


def adjudicate_movement(
    geo: Geography, units: dict[int, Unit], orders: dict[int, UnitOrder], edition: RulesEdition
) -> MovementResult:
    """Resolve legal orders (from judge.rules.legality) for ``units`` by the rules ``edition``; a unit without an
    order holds."""
    return _Adjudication(geo, units, orders, edition).run()


class _Adjudication:
    def __init__(
        self, geo: Geography, units: dict[int, Unit], orders: dict[int, UnitOrder], edition: RulesEdition
    ) -> None:
        self.geo = geo
        self.edition = edition
        self.units = units
        self.kind = dict.fromkeys(units, _HOLD)
        self.dest: dict[int, int] = {}  # move: destination province
        self.dest_loc: dict[int, int] = {}  # move: destination location
        self.moves_into: dict[int, list[int]] = {}
        self.target: dict[int, int] = {}  # support: province the support goes into; convoy: the army's province
        self.supports: dict[int, list[int]] = {}  # unit -> supporters whose support matches its order
        self.convoyers: dict[int, list[int]] = {}  # army -> fleets convoying exactly its move
        self.unmatched: set[int] = set()
        supports, convoys = self._classify(orders)
        self._match_supports(supports)
        self._match_convoys(convoys)
        self.by_sea = self._by_sea(orders)
        dest, by_sea = self.dest, self.by_sea
        # head-to-head battles: two units moving into each other's province, neither by convoy
        self.h2h = {p: q for p, q in dest.items() if dest.get(q) == p and not by_sea.get(p) and not by_sea.get(q)}
        self.state = dict.fromkeys(units, _UNRESOLVED)
        self.res: dict[int, bool] = {}
        self.deps: list[int] = []
        self.guess_reads = 0  # how often a guessed decision was read; unchanged means a result is final
        self.broken: set[int] = set()  # armies whose convoy was disrupted by the Szykman rule
        # the decision of an order, by kind (holds have none)
        self.deciders = (self.convoy_stands, self.move_succeeds, self.support_given, self.convoy_stands)

    def _classify(
        self, orders: dict[int, UnitOrder]
    ) -> tuple[list[tuple[int, SupportHold | SupportMove]], list[tuple[int, Convoy]]]:
        """The kind of each order; each move's destination; the supports and convoys, to be matched next."""
        kind, dest, dest_loc, moves_into, lp = (
            self.kind,
            self.dest,
            self.dest_loc,
            self.moves_into,
            self.geo.loc_province,
        )
        supports: list[tuple[int, SupportHold | SupportMove]] = []
        convoys: list[tuple[int, Convoy]] = []
        for prov, order in orders.items():
            if isinstance(order, Move):
                kind[prov] = _MOVE
                loc = order.dest
                q = lp[loc]
                dest[prov] = q
                dest_loc[prov] = loc
                into = moves_into.get(q)
                if into is None:
                    moves_into[q] = [prov]
                else:
                    into.append(prov)
            elif isinstance(order, (SupportHold, SupportMove)):
                kind[prov] = _SUPPORT
                supports.append((prov, order))
            elif isinstance(order, Convoy):
                kind[prov] = _CONVOY
                convoys.append((prov, order))
        return supports, convoys

    def _match_supports(self, supports: list[tuple[int, SupportHold | SupportMove]]) -> None:
        """A support counts when the unit it supports was ordered that (else the supporter holds: "unmatched")."""
        kind, dest, dest_loc, units, lp = self.kind, self.dest, self.dest_loc, self.units, self.geo.loc_province
        for prov, order in supports:
            if isinstance(order, SupportHold):
                there = order.target
                matched = kind.get(there, _MOVE) != _MOVE
                helped = there
            else:
                there = lp[order.dest]
                helped = order.origin
                matched = (
                    kind.get(helped) == _MOVE
                    and dest[helped] == there
                    and (order.dest == there or order.dest == dest_loc[helped] or units[helped].kind is UnitKind.ARMY)
                )
            self.target[prov] = there
            if matched:
                self.supports.setdefault(helped, []).append(prov)
            else:
                kind[prov] = _HOLD
                self.unmatched.add(prov)

    def _match_convoys(self, convoys: list[tuple[int, Convoy]]) -> None:
        """A convoy counts when the army it carries was ordered to move exactly there."""
        units, kind, dest = self.units, self.kind, self.dest
        for prov, order in convoys:
            army = order.origin
            if kind.get(army) == _MOVE and units[army].kind is UnitKind.ARMY and dest[army] == order.dest:
                self.target[prov] = army
                self.convoyers.setdefault(army, []).append(prov)
            else:
                kind[prov] = _HOLD
                self.unmatched.add(prov)

    def _by_sea(self, orders: dict[int, UnitOrder]) -> dict[int, bool]:
        """Armies moving by convoy: when they must, or when intended ("via convoy" or an own fleet) and a chain of
        fleets is ordered. In the datc-3 edition the intent alone decides: with no chain ordered the move fails rather
        than falling back to the land route (DATC v3.0, 6.G.8)."""
        units, geo = self.units, self.geo
        by_sea: dict[int, bool] = {}
        army_adj = geo.army_adj
        for prov, q in self.dest.items():
            unit = units[prov]
            if unit.kind is not UnitKind.ARMY:
                continue
            if q not in army_adj[prov]:
                by_sea[prov] = True
                continue
            fleets = self.convoyers.get(prov)
            order = orders[prov]
            if not isinstance(order, Move):
                continue
            intent = order.via_convoy or any(units[f].power == unit.power for f in fleets or ())
            if self.edition is RulesEdition.DATC3:
                by_sea[prov] = intent  # no fallback to the land route
            elif fleets:
                by_sea[prov] = intent and self._route(prov, q, fleets, geo.fleet_reach)
        return by_sea

    # --- the guess algorithm ----------------------------------------------------------------------------------------

    def resolve(self, p: int) -> bool:
        state = self.state[p]
        if state == _RESOLVED:
            return self.res[p]
        if state == _GUESSING:
            self.guess_reads += 1
            if p not in self.deps:
                self.deps.append(p)
            return self.res[p]
        deps = self.deps
        old = len(deps)
        reads = self.guess_reads
        self.res[p] = False
        self.state[p] = _GUESSING
        decide = self.deciders[self.kind[p]]
        first = decide(p)
        if self.guess_reads == reads:  # no guess was read: the answer is final
            self.res[p] = first
            self.state[p] = _RESOLVED
            return first
        if len(deps) == old or deps[old] != p:  # depends on a guess made further out
            if p not in deps:
                deps.append(p)
            self.res[p] = first
            return first
        # p heads a cycle: try the other guess
        while len(deps) > old:
            self.state[deps.pop()] = _UNRESOLVED
        self.res[p] = True
        self.state[p] = _GUESSING
        second = decide(p)
        if first == second:
            while len(deps) > old:
                self.state[deps.pop()] = _UNRESOLVED
            self.res[p] = first
            self.state[p] = _RESOLVED
            return first
        self.backup_rule(deps[old:])
        del deps[old:]
        return self.resolve(p)

    def backup_rule(self, cycle: list[int]) -> None:
        fleets = [u for u in cycle if self.kind[u] == _CONVOY]
        if fleets:  # convoy paradox: the Szykman rule disrupts the convoys in it
            for f in fleets:
                self.broken.add(self.target[f])
            for u in cycle:
                self.state[u] = _UNRESOLVED
            return
        for u in cycle:  # circular movement: every move in it succeeds
            if self.kind[u] == _MOVE:
                self.res[u] = True
                self.state[u] = _RESOLVED
            else:
                self.state[u] = _UNRESOLVED

    def convoy_stands(self, f: int) -> bool:
        """A convoying fleet's decision: its convoy stands if the fleet is not dislodged."""
        return not self.is_dislodged(f)

    # --- the decisions ----------------------------------------------------------------------------------------------

    def convoy_works(self, p: int) -> bool:
        if p in self.broken:
            return False
        fleets = self.convoyers.get(p)
        if not fleets:
            return False
        geo = self.geo
        reach = geo.fleet_reach
        goal = self.dest[p]
        if not self._route(p, goal, fleets, reach):
            return False
        alive = [f for f in fleets if self.resolve(f)]
        return self._route(p, goal, alive, reach)

    @staticmethod
    def _route(start: int, goal: int, fleets: list[int], reach: tuple[frozenset[int], ...]) -> bool:
        todo = [f for f in fleets if start in reach[f]]
        seen = set(todo)
        while todo:
            f = todo.pop()
            if goal in reach[f]:
                return True
            for g in fleets:
                if g not in seen and g in reach[f]:
                    seen.add(g)
                    todo.append(g)
        return False

    def path_ok(self, p: int) -> bool:
        return not self.by_sea.get(p) or self.convoy_works(p)

    def support_count(self, p: int, exclude: str | None = None) -> int:
        supporters = self.supports.get(p)
        if not supporters:
            return 0
        n = 0
        units, resolve = self.units, self.resolve
        for s in supporters:
            if (exclude is None or units[s].power != exclude) and resolve(s):
                n += 1
        return n

    def hold_strength(self, q: int) -> int:
        if q not in self.units:
            return 0
        if self.kind[q] == _MOVE:
            return 0 if self.resolve(q) else 1
        return 1 + self.support_count(q)

    def attack_strength(self, p: int, opponent: int | None) -> int:
        if not self.path_ok(p):
            return 0
        q = self.dest[p]
        there = self.units.get(q)
        if there is None or (opponent is None and self.kind[q] == _MOVE and self.resolve(q)):
            return 1 + self.support_count(p)
        if there.power == self.units[p].power:
            return 0
        return 1 + self.support_count(p, there.power)

    def prevent_strength(self, p: int) -> int:
        if not self.path_ok(p):
            return 0
        opponent = self.h2h.get(p)
        if opponent is not None and self.resolve(opponent):
            return 0
        return 1 + self.support_count(p)

    def move_succeeds(self, p: int) -> bool:
        q = self.dest[p]
        rivals = self.moves_into[q]
        if len(rivals) == 1 and q not in self.units and not self.by_sea.get(p):
            return True  # alone into an empty province over land: nothing can stop it
        opponent = self.h2h.get(p)
        attack = self.attack_strength(p, opponent)
        if attack == 0:
            return False
        if opponent is not None:
            if attack <= 1 + self.support_count(opponent):
                return False
        elif attack <= self.hold_strength(q):
            return False
        if len(rivals) > 1:
            for o in rivals:
                if o != p and attack <= self.prevent_strength(o):
                    return False
        return True

    def support_given(self, s: int) -> bool:
        power = self.units[s].power
        target = self.target[s]
        attackers = self.moves_into.get(s, ())
        for m in attackers:
            if m != target and self.units[m].power != power and self.path_ok(m):
                return False
        # loops, not any() over a generator: these run for every decision, and the loop is the faster in CPython
        for m in attackers:  # noqa: SIM110
            if m == target and self.units[m].power != power and self.resolve(m):
                return False
        return True

    def is_dislodged(self, p: int) -> bool:
        for m in self.moves_into.get(p, ()):  # noqa: SIM110 - see support_given
            if self.resolve(m):
                return True
        return False

    def dislodging_strengths(self, m: int, p: int) -> tuple[int, int]:
        """The strength of the move from m that dislodged the unit in p, and what p opposed to it: its defence in a
        head-to-head battle, else its hold strength (only asked for reports, after resolution)."""
        attack = self.attack_strength(m, self.h2h.get(m))
        defence = 1 + self.support_count(p) if self.h2h.get(m) == p else self.hold_strength(p)
        return attack, defence

    # --- results ----------------------------------------------------------------------------------------------------

    def run(self) -> MovementResult:
        kind, res, dest, units, by_sea = self.kind, self.res, self.dest, self.units, self.by_sea
        resolve = self.resolve
        for p, k in kind.items():
            if k != _HOLD:
                resolve(p)
        outcomes = dict.fromkeys(units, _SUCCEEDS)
        moved: set[int] = set()
        new_units: dict[int, Unit] = {}
        winner_into: dict[int, int] = {}
        for p, q in dest.items():
            if res[p]:
                moved.add(p)
                winner_into[q] = p
                unit = units[p]
                new_units[q] = Unit(unit.power, unit.kind, self.dest_loc[p])
            else:
                outcomes[p] = _NO_CONVOY if by_sea.get(p) and not self.path_ok(p) else _BOUNCED
        for p in self.unmatched:
            outcomes[p] = _UNMATCHED
        for p, k in kind.items():
            if k == _SUPPORT and not res[p]:
                outcomes[p] = _CUT
        dislodged: dict[int, Dislodged] = {}
        for p, unit in units.items():
            if p not in moved:
                m = winner_into.get(p)
                if m is None:
                    new_units[p] = unit
                else:
                    dislodged[p] = Dislodged(unit, m, bool(by_sea.get(m)))
                    outcomes[p] = _DISLODGED
        return MovementResult(outcomes, new_units, dislodged, self._standoffs(moved, new_units), self.reason)

    def _standoffs(self, moved: set[int], new_units: dict[int, Unit]) -> frozenset[int]:
        """Provinces left empty by a bounce: a move into them failed that was not a head-to-head loss nor cut off."""
        h2h = self.h2h
        standoffs = set()
        for q, movers in self.moves_into.items():
            if q not in new_units:
                for m in movers:
                    if m not in moved and m not in h2h and self.path_ok(m):
                        standoffs.add(q)
                        break
        return frozenset(standoffs)

    def reason(self, p: int, outcome: Outcome) -> str | None:
        """Why the order of the unit in province p had this outcome, in words (only asked for reports)."""
        names = self.geo.loc_names
        units = self.units

        def who(provs: list[int]) -> str:
            return ", ".join(f"{units[o].kind.value} {names[units[o].loc]}" for o in provs)

        if outcome is Outcome.DISLODGED:
            by = [m for m in self.moves_into.get(p, ()) if self.res.get(m)]
            if len(by) != 1:
                return Reason("dislodged by {units}", units=who(by))
            attack, defence = self.dislodging_strengths(by[0], p)
            return Reason("dislodged by {units} ({attack} vs {defence})", units=who(by), attack=attack, defence=defence)
        if outcome is Outcome.UNMATCHED:
            return "the supported or convoyed unit did not order that"
        if outcome is Outcome.NO_CONVOY:
            return "no convoy route"
        if outcome is Outcome.BOUNCED:
            q = self.dest[p]
            rivals = [o for o in self.moves_into[q] if o != p]
            others = ([q] if q in units and q not in rivals else []) + rivals
            return Reason("bounced with {units}", units=who(others)) if others else "bounced"
        if outcome is Outcome.CUT:
            cutters = [
                m
                for m in self.moves_into.get(p, ())
                if m != self.target[p] and units[m].power != units[p].power and self.path_ok(m)
            ]
            return Reason("cut by {units}", units=who(cutters)) if cutters else "cut"
        return None
