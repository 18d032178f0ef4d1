"""A game's own settings: deadlines per phase kind, press, victory overrides, grace period, game master."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import asdict, dataclass, replace
from datetime import timedelta
from enum import StrEnum

from judge.facts import MAX_DEADLINE_DAYS, Assignment, PressKind
from judge.rules.phase import Step
from judge.rules.variant import Variant
from judge.rules.victory import TieOthers, Victory


class Resolve(StrEnum):
    """When a phase is adjudicated before its deadline."""

    READY = "ready"  # when every player who owes orders has said READY (seed 001)
    ORDERS_IN = "orders-in"  # as soon as every power that owes orders has a complete set in, unless a player waits


class Takeover(StrEnum):
    """How a power in civil disorder gets a new player (TAKEOVER by mail)."""

    OPEN = "open"  # at once, for whoever asks first
    APPROVE = "approve"  # when the game master approves (APPROVE <power> by mail, or judge game approve)


@dataclass(frozen=True)
class GameSettings:
    movement_deadline: int = 48 * 3600  # seconds
    retreat_deadline: int = 24 * 3600
    adjustment_deadline: int = 24 * 3600
    press: PressKind = PressKind.WHITE
    solo: int | None = None  # overrides the variant's solo threshold (e.g. 17 for Cold War)
    last_year: int | None = None  # after the Fall of this year the power with most centres wins
    grace: int = 0  # seconds of grace after a deadline for late players, 0 = none
    master: str | None = None  # the game master's address, told of problems and copied on results
    assignment: Assignment = Assignment.PREFERENCE  # how powers are given out at the start
    anonymous: bool = False  # players are not told each other's addresses
    shared_addresses: bool = False  # one address may play two powers (the game master allows it)
    tie_break: tuple[str, ...] | None = None  # overrides the variant's tie-break order (first listed wins a tie)
    tie_others: str | None = None  # a tie no order settles: "play-on" or "draw" (None: the variant's rule)
    combined: bool = False  # the powers one player holds count their centres (or points) together for victory
    resolve: Resolve = Resolve.READY  # early resolution: on everyone's READY, or as soon as all orders are in
    absence_days_per_year: int = 14  # SET ABSENCE: the days a player may declare absent per year
    named_draws: bool = False  # DRAW PROPOSE may name the powers of the draw (default: all survivors, unanimous)
    abandon_after: int = 0  # a power that misses this many deadlines in a row is in civil disorder (0: never)
    takeover: Takeover = Takeover.OPEN  # TAKEOVER of a power in civil disorder: at once, or on the master's approval
    points: tuple[tuple[str, int], ...] | None = (
        None  # place (abbreviation) -> its victory points; replaces the variant's
    )

    def deadline_for(self, step: Step) -> timedelta:
        seconds = {
            Step.MOVEMENT: self.movement_deadline,
            Step.RETREAT: self.retreat_deadline,
            Step.ADJUSTMENT: self.adjustment_deadline,
        }[step]
        return timedelta(seconds=seconds)

    def victory(self, variant: Variant) -> Victory:
        """The variant's victory rule with this game's overrides."""
        rule = self._valued(variant)
        if self.solo is not None:
            rule = replace(rule, solo=self.solo, by_year=())
        if self.last_year is not None:
            rule = replace(rule, last_year=self.last_year)
        if self.tie_break is not None:
            rule = replace(rule, tie_break=tuple(variant.power_named(p) or p for p in self.tie_break))
        if self.tie_others is not None:
            rule = replace(rule, tie_others=TieOthers(self.tie_others))
        return rule

    def _valued(self, variant: Variant) -> Victory:
        """The variant's rule with this game's place values (which replace the variant's table) where it has some."""
        if self.points is None:
            return variant.victory
        by_abbr = {p.abbr.lower(): p.id for p in variant.geo.provinces}
        values = tuple((by_abbr[a.lower()], n) for a, n in self.points if a.lower() in by_abbr)
        return replace(variant.victory, points=values)

    def solo_line(self, variant: Variant, year: int) -> int:
        """The score a power needs to win alone after the Fall of ``year``, in this game's centres or points."""
        rule = self.victory(variant)
        return rule.threshold(rule.total(variant.centres), year)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> GameSettings:
        data = json.loads(text) if text else {}
        if isinstance(data.get("tie_break"), list):
            data["tie_break"] = tuple(data["tie_break"])
        if "press" in data:
            data["press"] = PressKind(data["press"])
        if "assignment" in data:
            data["assignment"] = Assignment(data["assignment"])
        if "resolve" in data:
            data["resolve"] = Resolve(data["resolve"])
        if "takeover" in data:
            data["takeover"] = Takeover(data["takeover"])
        if isinstance(data.get("points"), list):
            data["points"] = tuple((str(place), int(value)) for place, value in data["points"])
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})

    def check(self, variant: Variant) -> list[str]:
        """Problems with these settings for this variant (empty when fine)."""
        problems = []
        if self.press not in [k.value for k in PressKind]:
            problems.append(f"press must be one of {', '.join(PressKind)}")
        if self.assignment not in [a.value for a in Assignment]:
            problems.append(f"assignment must be one of {', '.join(Assignment)}")
        problems.extend(self._point_problems(variant))
        total = self._valued(variant).total(variant.centres)
        if self.solo is not None and not 1 <= self.solo <= total:
            problems.append(f"solo must be between 1 and {total} for {variant.name}")
        if self.last_year is not None and self.last_year <= variant.start_year:
            problems.append(f"last year must be after {variant.start_year}")
        problems.extend(self._tie_problems(variant))
        for name in ("movement_deadline", "retreat_deadline", "adjustment_deadline"):
            if not 60 <= getattr(self, name) <= MAX_DEADLINE_DAYS * 86400:
                problems.append(f"{name.replace('_', ' ')} must be between 1 minute and {MAX_DEADLINE_DAYS} days")
        if not 0 <= self.grace <= 7 * 86400:
            problems.append("grace must be between 0 and 7 days")
        if not 0 <= self.absence_days_per_year <= 366:
            problems.append("absence_days_per_year must be between 0 and 366")
        if not 0 <= self.abandon_after <= 99:
            problems.append("abandon_after must be between 0 (never) and 99 deadlines")
        if self.takeover is Takeover.APPROVE and not self.master:
            problems.append("takeover approve needs a game master's address (master) to ask")
        return problems

    def _tie_problems(self, variant: Variant) -> list[str]:
        """A tie rule that names no power of the variant, or a line two powers can reach together with no tie rule."""
        problems = []
        if self.tie_others is not None and self.tie_others not in [t.value for t in TieOthers]:
            problems.append(f"tie_others must be one of {', '.join(t.value for t in TieOthers)}")
            return problems
        for p in self.tie_break or ():
            if variant.power_named(p) is None:
                problems.append(f"tie_break: {p!r} is not one of the powers of {variant.name}")
        if self.tie_break is not None and len(set(self.tie_break)) != len(self.tie_break):
            problems.append("tie_break lists a power twice")
        named = {variant.power_named(p) for p in self.tie_break or ()}
        missing = [p for p in variant.powers if p not in named]
        if self.tie_break and missing and self.tie_others is None:
            problems.append(
                f"tie_break does not name {', '.join(missing)}: name every power, or say what a tie "
                "among the others means with tie_others (play-on or draw)"
            )
        if problems:
            return problems
        rule = self.victory(variant)  # the rule in force: the variant's own tie rule counts as well as the game's
        total = rule.total(variant.centres)
        line = rule.lowest_line(total)
        if line <= total // 2 and not rule.has_tie_rule():
            problems.append(
                f"{'solo' if self.solo is not None else 'the line of'} {line} is at or below half of the {total} "
                f"{'points' if rule.uses_points else 'centres'}, so two powers can reach it together: "
                "give a tie rule (tie_break: an order of powers, or tie_others: play-on or draw)"
            )
        return problems

    def _point_problems(self, variant: Variant) -> list[str]:
        """Places of ``points`` that are not provinces of the variant, or listed twice, or values below 0."""
        if self.points is None:
            return []
        problems = []
        abbrs = [p.abbr for p in variant.geo.provinces]
        known = {a.lower() for a in abbrs}
        seen: set[str] = set()
        for place, value in self.points:
            if place.lower() not in known:
                close = difflib.get_close_matches(place.lower(), abbrs, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problems.append(f"points: {place!r} is not a province of {variant.name}{hint}")
            if place.lower() in seen:
                problems.append(f"points: {place} is listed twice")
            seen.add(place.lower())
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                problems.append(f"points: {place} = {value!r}: a value is a whole number, 0 or more")
        if not problems and self._valued(variant).total(variant.centres) < 1:
            problems.append("points: every place is worth 0, so no power can ever score")
        return problems


_POINT = re.compile(r"([A-Za-z][A-Za-z0-9_]*)[:=](\S+)\Z")


def read_points(text: str) -> tuple[tuple[str, int], ...]:
    """``par:3,bur:2`` (or ``par=3 bur=2``): places by their abbreviation and the points each is worth, as written;
    ValueError says what is wrong. Whether the places exist is :meth:`GameSettings.check`'s business."""
    out = []
    for item in (w for w in re.split(r"[,;\s]+", text.strip()) if w):
        found = _POINT.match(item)
        if found is None:
            raise ValueError(f"points: {item!r} is not written like par:3 (a place, a colon, its points)")
        place, value = found.groups()
        if not re.fullmatch(r"[0-9]{1,6}", value):
            raise ValueError(f"points: {place} = {value!r}: a value is a whole number, 0 or more (at most 999999)")
        out.append((place.lower(), int(value)))
    if not out:
        raise ValueError("points: give places and their points, e.g. par:3,bur:2 (or none for the variant's)")
    return tuple(out)
