"""When a game is won or drawn: the variant's (or game's) victory rule, evaluated after each Fall.

Ties are settled by a closed set of rules (docs/rules.md "Victory"):

- over the automatic line (``solo`` or the ``by_year`` threshold of the year): one leader at or over it wins; tied
  leaders are settled by the ``tie_break`` order (the first listed of them wins); with no order that names any of
  them, ``tie_others`` decides: ``play-on`` (the default: the line needs a single leader) or ``draw`` (the game ends
  in a draw among the tied leaders);
- at ``last_year``: one leader wins; tied leaders go by the ``tie_break`` order; with no order that names any of them,
  ``tie_others`` decides: ``draw`` (the default: a draw among the tied leaders) or ``play-on`` (one more year, then
  the check again, until a single leader or an order settles it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction


class TieOthers(Enum):
    """What a tie that no tie-break order settles means."""

    PLAY_ON = "play-on"
    DRAW = "draw"


class Verdict(Enum):
    PLAY_ON = "play-on"
    SOLO = "solo"
    DRAW = "draw"


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    winner: str | None = None  # SOLO: the winning power
    powers: tuple[str, ...] = ()  # DRAW: the tied leaders who share it


PLAY_ON = Outcome(Verdict.PLAY_ON)


@dataclass(frozen=True)
class Victory:
    """A solo threshold as a count or a fraction of all centres (or points), optionally per year, with a last year.

    - ``solo``: the score a power must have after a Fall to win (an int), or a fraction of the total (rounded up).
    - ``by_year``: a threshold table, year -> score, overriding ``solo`` from that year on (Sword of Rome style).
    - ``last_year``: after the Fall of this year the power with the highest score wins.
    - ``tie_break``: the order of powers that settles a tie of leaders (first listed wins), at the line and at the end.
    - ``tie_others``: what a tie no order settles means (None: play on at the line, a draw at the last year).
    - ``points``: place (province id) -> its value; a centre not listed is worth 1, other places not listed 0.
      Empty: the score is the number of centres owned.
    - ``defender``: the power that wins when the last year ends and nobody has reached the line (the two-player
      variants' "if nobody reaches 18, the defender wins"), as long as it holds a centre.
    """

    solo: int | Fraction
    by_year: tuple[tuple[int, int], ...] = ()
    last_year: int | None = None
    tie_break: tuple[str, ...] = field(default=())
    tie_others: TieOthers | None = None
    points: tuple[tuple[int, int], ...] = ()
    defender: str | None = None  # wins when the last year ends with nobody over the line (two-player variants)

    @property
    def uses_points(self) -> bool:
        return bool(self.points)

    def total(self, centres: frozenset[int]) -> int:
        """Every point there is: a centre's value (1 unless listed) plus every other listed place's value."""
        values = dict(self.points)
        return sum(values.get(c, 1) for c in centres) + sum(v for p, v in values.items() if p not in centres)

    def scores(self, centres: frozenset[int], owners: dict[int, str], occupiers: dict[int, str]) -> dict[str, int]:
        """Each power's score: centres it owns (at their value) plus the other valued places its units stand on."""
        values = dict(self.points)
        out: dict[str, int] = {}
        for prov, power in owners.items():
            if prov in centres:
                out[power] = out.get(power, 0) + values.get(prov, 1)
        for prov, power in occupiers.items():
            if prov not in centres and values.get(prov):
                out[power] = out.get(power, 0) + values[prov]
        return out

    def threshold(self, total_centres: int, year: int) -> int:
        for since, count in sorted(self.by_year, reverse=True):
            if year >= since:
                return count
        if isinstance(self.solo, Fraction):
            return math.ceil(self.solo * total_centres)
        return self.solo

    def lowest_line(self, total: int) -> int:
        """The lowest automatic line this rule ever sets (the solo or any year's threshold)."""
        solo = math.ceil(self.solo * total) if isinstance(self.solo, Fraction) else self.solo
        return min([solo, *(n for _, n in self.by_year)])

    def has_tie_rule(self) -> bool:
        return bool(self.tie_break) or self.tie_others is not None

    def decide(self, scores: dict[str, int], total: int, year: int, sides: tuple[tuple[str, ...], ...] = ()) -> Outcome:
        """The outcome after the Fall of ``year`` given each power's score.

        ``sides``: groups of powers held by one player whose scores count together (combined points); a side is
        named by its first power and wins or draws as a whole.
        """
        scores = combine(scores, sides)
        if not scores:
            return PLAY_ON
        best = max(scores.values())
        leaders = [p for p, n in scores.items() if n == best]
        at_end = self.last_year is not None and year >= self.last_year
        if best < self.threshold(total, year) and not at_end:
            return PLAY_ON
        if best < self.threshold(total, year) and self.defender is not None and scores.get(self.defender, 0) > 0:
            return Outcome(Verdict.SOLO, self.defender)  # the last year is over and the attacker fell short
        if len(leaders) == 1:
            return Outcome(Verdict.SOLO, leaders[0])
        ranked = [p for p in self.tie_break if p in leaders]
        if ranked:
            return Outcome(Verdict.SOLO, ranked[0])
        others = self.tie_others or (TieOthers.DRAW if at_end else TieOthers.PLAY_ON)
        if others is TieOthers.DRAW:
            return Outcome(Verdict.DRAW, powers=tuple(sorted(leaders)))
        return PLAY_ON

    def winner(self, centres: dict[str, int], total_centres: int, year: int) -> str | None:
        """The power that has won after the Fall of ``year`` given centre counts, or None (draws are not wins)."""
        return self.decide(centres, total_centres, year).winner


def combine(scores: dict[str, int], sides: tuple[tuple[str, ...], ...]) -> dict[str, int]:
    """Scores with each side's powers counted together under the side's first power."""
    if not sides:
        return dict(scores)
    out = dict(scores)
    for side in sides:
        if len(side) < 2:
            continue
        out[side[0]] = sum(out.pop(p, 0) for p in side)
    return out


def parse_solo(value: object) -> int | Fraction:
    """``18`` or ``"2/3"``; raises ValueError with a readable message otherwise."""
    if isinstance(value, bool):
        raise ValueError(f'solo must be a number of centres or a fraction like "2/3", not {value!r}')
    if isinstance(value, int):
        if value < 1:
            raise ValueError(f"solo must be at least 1, not {value}")
        return value
    if isinstance(value, str) and "/" in value:
        num, _, den = value.partition("/")
        try:
            frac = Fraction(int(num), int(den))
        except (ValueError, ZeroDivisionError):
            raise ValueError(f'solo fraction {value!r} is not of the form "2/3"') from None
        if not 0 < frac <= 1:
            raise ValueError(f"solo fraction {value!r} must be above 0 and at most 1")
        return frac
    raise ValueError(f'solo must be a number of centres or a fraction like "2/3", not {value!r}')
