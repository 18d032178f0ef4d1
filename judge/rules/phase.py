"""Phases of a game and their codes: ``S1901M``, ``F1901R``, ``W1901A``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Season(Enum):
    SPRING = "S"
    FALL = "F"
    WINTER = "W"


class Step(Enum):
    MOVEMENT = "M"
    RETREAT = "R"
    ADJUSTMENT = "A"


_CODE = re.compile(r"^\s*([SFW])\s*(\d{1,5})\s*([MRAB])\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Phase:
    year: int
    season: Season
    step: Step

    @property
    def code(self) -> str:
        return f"{self.season.value}{self.year}{self.step.value}"

    def __str__(self) -> str:
        return self.code

    @property
    def long_name(self) -> str:
        season = {"S": "Spring", "F": "Fall", "W": "Winter"}[self.season.value]
        step = {"M": "movement", "R": "retreats", "A": "adjustments"}[self.step.value]
        return f"{season} {self.year} {step}"

    @classmethod
    def parse(cls, code: str) -> Phase:
        """``S1901M`` (``B`` is accepted for adjustments); ValueError with the expected form otherwise."""
        m = _CODE.match(code or "")
        if not m:
            raise ValueError(f"phase {code!r} is not like S1901M, F1901R or W1901A")
        season, year, step = Season(m.group(1).upper()), int(m.group(2)), m.group(3).upper()
        step = "A" if step == "B" else step
        phase = cls(year, season, Step(step))
        if (season is Season.WINTER) != (phase.step is Step.ADJUSTMENT):
            raise ValueError(f"phase {code!r}: adjustments happen in Winter, movement and retreats in Spring and Fall")
        return phase

    def after(self) -> Phase:
        """The phase that follows in the full cycle (no phase skipped)."""
        if self.step is Step.MOVEMENT:
            return Phase(self.year, self.season, Step.RETREAT)
        if self.season is Season.SPRING:
            return Phase(self.year, Season.FALL, Step.MOVEMENT)
        if self.season is Season.FALL:
            return Phase(self.year, Season.WINTER, Step.ADJUSTMENT)
        return Phase(self.year + 1, Season.SPRING, Step.MOVEMENT)
