"""A game's own settings: deadlines per phase kind, press, victory overrides, grace period, game master."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from datetime import timedelta

from judge.rules.phase import Step
from judge.rules.variant import Variant
from judge.rules.victory import Victory

PRESS_KINDS = ("white", "grey", "none")
ASSIGNMENTS = ("master", "preference", "random")


@dataclass(frozen=True)
class GameSettings:
    movement_deadline: int = 48 * 3600  # seconds
    retreat_deadline: int = 24 * 3600
    adjustment_deadline: int = 24 * 3600
    press: str = "white"  # white: signed press; grey: the sender is hidden; none: no press
    solo: int | None = None  # overrides the variant's solo threshold (e.g. 17 for Cold War)
    last_year: int | None = None  # after the Fall of this year the power with most centres wins
    grace: int = 0  # seconds of grace after a deadline for late players, 0 = none
    master: str | None = None  # the game master's address, told of problems and copied on results
    assignment: str = "preference"  # how powers are given out at the start: master | preference | random
    anonymous: bool = False  # players are not told each other's addresses
    shared_addresses: bool = False  # one address may play two powers (the game master allows it)

    def deadline_for(self, step: Step) -> timedelta:
        seconds = {Step.MOVEMENT: self.movement_deadline, Step.RETREAT: self.retreat_deadline,
                   Step.ADJUSTMENT: self.adjustment_deadline}[step]
        return timedelta(seconds=seconds)

    def victory(self, variant: Variant) -> Victory:
        """The variant's victory rule with this game's overrides."""
        rule = variant.victory
        if self.solo is not None:
            rule = replace(rule, solo=self.solo, by_year=())
        if self.last_year is not None:
            rule = replace(rule, last_year=self.last_year)
        return rule

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> "GameSettings":
        data = json.loads(text) if text else {}
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})

    def check(self, variant: Variant) -> list[str]:
        """Problems with these settings for this variant (empty when fine)."""
        problems = []
        if self.press not in PRESS_KINDS:
            problems.append(f"press must be one of {', '.join(PRESS_KINDS)}")
        if self.assignment not in ASSIGNMENTS:
            problems.append(f"assignment must be one of {', '.join(ASSIGNMENTS)}")
        if self.solo is not None and not 1 <= self.solo <= len(variant.centres):
            problems.append(f"solo must be between 1 and {len(variant.centres)} for {variant.name}")
        if self.last_year is not None and self.last_year <= variant.start_year:
            problems.append(f"last year must be after {variant.start_year}")
        for name in ("movement_deadline", "retreat_deadline", "adjustment_deadline"):
            if not 60 <= getattr(self, name) <= 60 * 86400:
                problems.append(f"{name.replace('_', ' ')} must be between 1 minute and 60 days")
        if not 0 <= self.grace <= 7 * 86400:
            problems.append("grace must be between 0 and 7 days")
        return problems
