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

from dataclasses import dataclass

from judge.rules.board import Dislodged, Unit
from judge.rules.geography import Geography, UnitKind
from judge.rules.orders import Convoy, Move, Outcome, SupportHold, SupportMove, UnitOrder

_HOLD, _MOVE, _SUPPORT, _CONVOY = 0, 1, 2, 3
_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2


@dataclass(frozen=True)
class MovementResult:
    outcomes: dict[int, tuple[Outcome, str | None]]  # province of each unit -> outcome, reason
    units: dict[int, Unit]  # the units not dislodged, where they ended
    dislodged: dict[int, Dislodged]  # province -> dislodged unit
    standoffs: frozenset[int]  # provinces left empty by a bounce


def adjudicate_movement(geo: Geography, units: dict[int, Unit], orders: dict[int, UnitOrder]) -> MovementResult:
    """Resolve legal orders (from judge.rules.legality) for ``units``; a unit without an order holds."""
    return _Adjudication(geo, units, orders).run()


class _Adjudication:
    def __init__(self, geo: Geography, units: dict[int, Unit], orders: dict[int, UnitOrder]) -> None:
        self.geo = geo
        self.units = units
        lp = geo.loc_province
        self.kind: dict[int, int] = {}
        self.dest: dict[int, int] = {}  # move: destination province
        self.dest_loc: dict[int, int] = {}  # move: destination location
        self.target: dict[int, int] = {}  # support: province the support is given into; convoy: army province
        self.moves_into: dict[int, list[int]] = {}
        self.supports: dict[int, list[int]] = {}  # unit -> units whose support matches its order
        self.convoyers: dict[int, list[int]] = {}  # army moving by sea -> fleets convoying exactly that move
        self.by_sea: dict[int, bool] = {}  # army move that needs or intends a convoy
        self.unmatched: set[int] = set()
        for prov, unit in units.items():
            order = orders.get(prov)
            if isinstance(order, Move):
                self.kind[prov] = _MOVE
                self.dest[prov] = lp[order.dest]
                self.dest_loc[prov] = order.dest
                self.moves_into.setdefault(lp[order.dest], []).append(prov)
            elif isinstance(order, (SupportHold, SupportMove)):
                self.kind[prov] = _SUPPORT
            elif isinstance(order, Convoy):
                self.kind[prov] = _CONVOY
            else:
                self.kind[prov] = _HOLD
        for prov, unit in units.items():
            order = orders.get(prov)
            if isinstance(order, SupportHold):
                self.target[prov] = order.target
                if self.kind.get(order.target, _MOVE) != _MOVE:
                    self.supports.setdefault(order.target, []).append(prov)
                else:
                    self._unmatch(prov)
            elif isinstance(order, SupportMove):
                there = lp[order.dest]
                self.target[prov] = there
                mover = order.origin
                if (self.kind.get(mover) == _MOVE and self.dest[mover] == there
                        and (order.dest == there or units[mover].kind is UnitKind.ARMY
                             or order.dest == self.dest_loc[mover])):
                    self.supports.setdefault(mover, []).append(prov)
                else:
                    self._unmatch(prov)
            elif isinstance(order, Convoy):
                army = order.origin
                if self.kind.get(army) == _MOVE and units[army].kind is UnitKind.ARMY and self.dest[army] == order.dest:
                    self.target[prov] = army
                    self.convoyers.setdefault(army, []).append(prov)
                else:
                    self._unmatch(prov)
        for prov in self.dest:
            unit = units[prov]
            if unit.kind is not UnitKind.ARMY:
                continue
            adjacent = self.dest[prov] in geo.army_adj[prov]
            order = orders[prov]
            assert isinstance(order, Move)
            fleets = self.convoyers.get(prov, [])
            intent = order.via_convoy or any(units[f].power == unit.power for f in fleets)
            # by convoy when it must, or when intended and a chain of fleets is ordered; else over land
            self.by_sea[prov] = not adjacent or (intent and self._route(prov, self.dest[prov], fleets,
                                                                         geo.fleet_reach))
        self.state: dict[int, int] = {p: _UNRESOLVED for p in units}
        self.res: dict[int, bool] = {}
        self.deps: list[int] = []
        self.guess_reads = 0  # how often a guessed decision was read; unchanged means a result is final
        self.broken: set[int] = set()  # armies whose convoy was disrupted by the Szykman rule

    def _unmatch(self, prov: int) -> None:
        self.kind[prov] = _HOLD
        self.unmatched.add(prov)

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
        first = self.decide(p)
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
        second = self.decide(p)
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

    def decide(self, p: int) -> bool:
        kind = self.kind[p]
        if kind == _MOVE:
            return self.move_succeeds(p)
        if kind == _SUPPORT:
            return self.support_given(p)
        return not self.is_dislodged(p)

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

    def head_to_head(self, p: int) -> int | None:
        """The unit moving the other way into p's province, when neither goes by convoy."""
        q = self.dest[p]
        if self.kind.get(q) == _MOVE and self.dest[q] == p and not self.by_sea.get(p) and not self.by_sea.get(q):
            return q
        return None

    def support_count(self, p: int, exclude: str | None = None) -> int:
        n = 0
        for s in self.supports.get(p, ()):
            if exclude is not None and self.units[s].power == exclude:
                continue
            if self.resolve(s):
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
        opponent = self.head_to_head(p)
        if opponent is not None and self.resolve(opponent):
            return 0
        return 1 + self.support_count(p)

    def move_succeeds(self, p: int) -> bool:
        opponent = self.head_to_head(p)
        attack = self.attack_strength(p, opponent)
        if attack == 0:
            return False
        q = self.dest[p]
        if opponent is not None:
            if attack <= 1 + self.support_count(opponent):
                return False
        elif attack <= self.hold_strength(q):
            return False
        for o in self.moves_into[q]:
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
        for m in attackers:
            if m == target and self.units[m].power != power and self.resolve(m):
                return False
        return True

    def is_dislodged(self, p: int) -> bool:
        for m in self.moves_into.get(p, ()):
            if self.resolve(m):
                return True
        return False

    # --- results ----------------------------------------------------------------------------------------------------

    def run(self) -> MovementResult:
        for p in self.units:
            if self.kind[p] != _HOLD:
                self.resolve(p)
        geo, units = self.geo, self.units
        moved = {p for p, k in self.kind.items() if k == _MOVE and self.res[p]}
        winner_into: dict[int, int] = {self.dest[p]: p for p in moved}
        new_units: dict[int, Unit] = {}
        dislodged: dict[int, Dislodged] = {}
        for p, unit in units.items():
            if p in moved:
                new_units[self.dest[p]] = Unit(unit.power, unit.kind, self.dest_loc[p])
            elif p in winner_into:
                m = winner_into[p]
                dislodged[p] = Dislodged(unit, m, bool(self.by_sea.get(m)))
        for p, unit in units.items():
            if p not in moved and p not in dislodged:
                new_units[p] = unit
        standoffs = set()
        for q, movers in self.moves_into.items():
            if q in new_units:
                continue
            for m in movers:
                if m not in moved and self.path_ok(m) and self.head_to_head(m) is None:
                    standoffs.add(q)
                    break
        outcomes = {p: self._outcome(p, p in moved, dislodged) for p in units}
        return MovementResult(outcomes, new_units, dislodged, frozenset(standoffs))

    def _outcome(self, p: int, moved: bool, dislodged: dict[int, Dislodged]) -> tuple[Outcome, str | None]:
        names = self.geo.loc_names
        units = self.units
        if p in dislodged:
            d = dislodged[p]
            by = units[d.attacker_from]
            return Outcome.DISLODGED, f"dislodged by {by.kind.value} {names[by.loc]}"
        if p in self.unmatched:
            return Outcome.UNMATCHED, "the supported or convoyed unit did not order that"
        kind = self.kind[p]
        if kind == _MOVE:
            if moved:
                return Outcome.SUCCEEDS, None
            if not self.path_ok(p):
                return Outcome.NO_CONVOY, "no convoy route"
            q = self.dest[p]
            rivals = [o for o in self.moves_into[q] if o != p]
            others = ([q] if q in units and q not in rivals else []) + rivals
            who = ", ".join(f"{units[o].kind.value} {names[units[o].loc]}" for o in others)
            return Outcome.BOUNCED, f"bounced with {who}" if who else "bounced"
        if kind == _SUPPORT and not self.res[p]:
            cutters = [m for m in self.moves_into.get(p, ()) if m != self.target[p]
                       and units[m].power != units[p].power and self.path_ok(m)]
            who = ", ".join(f"{units[m].kind.value} {names[units[m].loc]}" for m in cutters)
            return Outcome.CUT, f"cut by {who}" if who else "cut"
        return Outcome.SUCCEEDS, None
