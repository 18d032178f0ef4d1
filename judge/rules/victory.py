"""When a game is won: the variant's victory rule, evaluated after each Fall."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass(frozen=True)
class Victory:
    """A solo threshold as a count or a fraction of all centres, optionally per year, with an optional last year.

    - ``solo``: the centres a power must own after a Fall to win (an int), or a fraction of all centres (rounded up).
    - ``by_year``: a threshold table, year -> centres, overriding ``solo`` from that year on (Sword of Rome style).
    - ``last_year``: after the Fall of this year the power with most centres wins.
    - ``tie_break``: the order of powers that settles a tie at ``last_year`` (first listed wins).
    """

    solo: int | Fraction
    by_year: tuple[tuple[int, int], ...] = ()
    last_year: int | None = None
    tie_break: tuple[str, ...] = field(default=())

    def threshold(self, total_centres: int, year: int) -> int:
        for since, count in sorted(self.by_year, reverse=True):
            if year >= since:
                return count
        if isinstance(self.solo, Fraction):
            return math.ceil(self.solo * total_centres)
        return self.solo

    def winner(self, centres: dict[str, int], total_centres: int, year: int) -> str | None:
        """The power that has won after the Fall of ``year`` given centre counts, or None."""
        if not centres:
            return None
        need = self.threshold(total_centres, year)
        best = max(centres.values())
        leaders = [p for p, n in centres.items() if n == best]
        if best >= need and len(leaders) == 1:
            return leaders[0]
        if self.last_year is not None and year >= self.last_year:
            if len(leaders) == 1:
                return leaders[0]
            ranked = [p for p in self.tie_break if p in leaders]
            return ranked[0] if ranked else None
        return None


def parse_solo(value: object) -> int | Fraction:
    """``18`` or ``"2/3"``; raises ValueError with a readable message otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"solo must be a number of centres or a fraction like \"2/3\", not {value!r}")
    if isinstance(value, int):
        if value < 1:
            raise ValueError(f"solo must be at least 1, not {value}")
        return value
    if isinstance(value, str) and "/" in value:
        num, _, den = value.partition("/")
        try:
            frac = Fraction(int(num), int(den))
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"solo fraction {value!r} is not of the form \"2/3\"") from None
        if not 0 < frac <= 1:
            raise ValueError(f"solo fraction {value!r} must be above 0 and at most 1")
        return frac
    raise ValueError(f"solo must be a number of centres or a fraction like \"2/3\", not {value!r}")
