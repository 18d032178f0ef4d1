"""A game's own settings: deadlines per phase kind, press, victory overrides, grace period, game master."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from datetime import timedelta
from typing import Any

from judge.facts import MAX_DEADLINE_DAYS, Assignment, PressKind
from judge.facts import Auth as Auth
from judge.facts import Bots as Bots
from judge.facts import Resolve as Resolve  # the game settings' enums live with the facts the command line reads
from judge.facts import Takeover as Takeover
from judge.i18n import T, Text
from judge.rules.edition import RulesEdition
from judge.rules.phase import Step
from judge.rules.variant import Variant
from judge.rules.victory import TieOthers, Victory
from judge.timeutil import MAX_LEAD, MAX_REMINDERS, MIN_LEAD


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
    bots: Bots = Bots.NONE  # the stand-in bot plays powers in civil disorder (cd), and fills empty seats (fill)
    nmr_wait: int = 0  # seconds the deadline moves, once a phase, when orders are missing at it (0: never)
    excuses: int = 0  # misses per player per game excused before abandon_after counts (0: none)
    min_reliability: float = 0.0  # JOIN and TAKEOVER refused below this share of deadlines met (0: anyone)
    auth: Auth = Auth.ANY  # which mail may act for a seat: a password or a signature, or only a signature
    reminders: tuple[int, ...] = (24 * 3600,)  # lead times (seconds) of the deadline reminders a player chose none of
    points: tuple[tuple[str, int], ...] | None = (
        None  # place (abbreviation) -> its victory points; replaces the variant's
    )
    rules: RulesEdition = RulesEdition.Y2000  # the rules edition adjudication follows; a game stored without it: 2000

    def missed_limit(self) -> int:
        """Unexcused misses in a row that put a power in civil disorder (0: never): ``abandon_after``, or the first
        unexcused miss when only ``excuses`` is set (docs/commands.md, "Missed orders")."""
        if self.abandon_after:
            return self.abandon_after
        return 1 if self.excuses else 0

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
        for key, read in _STORED_AS.items():  # closed sets (and a number) are stored as their plain values
            if key in data:
                data[key] = read(data[key])
        if isinstance(data.get("reminders"), list):
            data["reminders"] = tuple(int(lead) for lead in data["reminders"])
        if isinstance(data.get("points"), list):
            data["points"] = tuple((str(place), int(value)) for place, value in data["points"])
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})

    def check(self, variant: Variant) -> list[Text]:
        """Problems with these settings for this variant (empty when fine), each a sentence for the reader."""
        problems = []
        if self.press not in [k.value for k in PressKind]:
            problems.append(T("{key} must be one of {choices}", key="press", choices=", ".join(PressKind)))
        if self.assignment not in [a.value for a in Assignment]:
            problems.append(T("{key} must be one of {choices}", key="assignment", choices=", ".join(Assignment)))
        problems.extend(self._point_problems(variant))
        total = self._valued(variant).total(variant.centres)
        if self.solo is not None and not 1 <= self.solo <= total:
            problems.append(T("solo must be between 1 and {total} for {variant}", total=total, variant=variant.name))
        if self.last_year is not None and self.last_year <= variant.start_year:
            problems.append(T("last year must be after {year}", year=variant.start_year))
        problems.extend(self._tie_problems(variant))
        for name, what in _DEADLINES.items():
            if not 60 <= getattr(self, name) <= MAX_DEADLINE_DAYS * 86400:
                problems.append(
                    T("{what} must be between 1 minute and {count} days", what=what, count=MAX_DEADLINE_DAYS)
                )
        if not 0 <= self.grace <= 7 * 86400:
            problems.append(T("grace must be between 0 and 7 days"))
        if not 0 <= self.absence_days_per_year <= 366:
            problems.append(T("absence_days_per_year must be between 0 and 366"))
        if len(self.reminders) > MAX_REMINDERS or any(
            not MIN_LEAD.total_seconds() <= lead <= MAX_LEAD.total_seconds() for lead in self.reminders
        ):
            problems.append(T("reminders: up to three lead times between 10 minutes and 7 days, e.g. 24h 2h, or none"))
        problems.extend(self._missed_orders_problems())
        if not 0 <= self.abandon_after <= 99:
            problems.append(T("abandon_after must be between 0 (never) and 99 deadlines"))
        if self.takeover is Takeover.APPROVE and not self.master:
            problems.append(T("takeover approve needs a game master's address (master) to ask"))
        return problems

    def _missed_orders_problems(self) -> list[Text]:
        """nmr_wait, excuses and min_reliability out of their ranges."""
        problems = []
        if not 0 <= self.nmr_wait <= 7 * 86400:
            problems.append(T("nmr_wait must be between 0 and 7 days"))
        if not 0 <= self.excuses <= 99:
            problems.append(T("excuses must be between 0 and 99 misses"))
        if not 0.0 <= self.min_reliability <= 1.0:
            problems.append(T("min_reliability must be between 0 and 1, e.g. 0.8"))
        return problems

    def _tie_problems(self, variant: Variant) -> list[Text]:
        """A tie rule that names no power of the variant, or a line two powers can reach together with no tie rule."""
        problems = []
        if self.tie_others is not None and self.tie_others not in [t.value for t in TieOthers]:
            choices = ", ".join(t.value for t in TieOthers)
            problems.append(T("{key} must be one of {choices}", key="tie_others", choices=choices))
            return problems
        for p in self.tie_break or ():
            if variant.power_named(p) is None:
                problems.append(
                    T("tie_break: {name} is not one of the powers of {variant}", name=repr(p), variant=variant.name)
                )
        if self.tie_break is not None and len(set(self.tie_break)) != len(self.tie_break):
            problems.append(T("tie_break lists a power twice"))
        named = {variant.power_named(p) for p in self.tie_break or ()}
        missing = [p for p in variant.powers if p not in named]
        if self.tie_break and missing and self.tie_others is None:
            problems.append(
                T(
                    "tie_break does not name {powers}: name every power, or say what a tie among the others means "
                    "with tie_others (play-on or draw)",
                    powers=[variant.power(p) for p in missing],
                )
            )
        if problems:
            return problems
        rule = self.victory(variant)  # the rule in force: the variant's own tie rule counts as well as the game's
        total = rule.total(variant.centres)
        line = rule.lowest_line(total)
        if line <= total // 2 and not rule.has_tie_rule():
            problems.append(
                T(
                    (
                        "solo {line} is at or below half of the {total} points, so two powers can reach it together: "
                        "{tie_rule}"
                        if rule.uses_points
                        else "solo {line} is at or below half of the {total} centres, so two powers can reach it "
                        "together: {tie_rule}"
                    )
                    if self.solo is not None
                    else (
                        "the line of {line} is at or below half of the {total} points, so two powers can reach it "
                        "together: {tie_rule}"
                        if rule.uses_points
                        else "the line of {line} is at or below half of the {total} centres, so two powers can "
                        "reach it together: {tie_rule}"
                    ),
                    line=line,
                    total=total,
                    tie_rule=T("give a tie rule (tie_break: an order of powers, or tie_others: play-on or draw)"),
                )
            )
        return problems

    def _point_problems(self, variant: Variant) -> list[Text]:
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
                problems.append(
                    T(
                        "points: {place} is not a province of {variant}; did you mean {near}?",
                        place=repr(place),
                        variant=variant.name,
                        near=repr(close[0]),
                    )
                    if close
                    else T("points: {place} is not a province of {variant}", place=repr(place), variant=variant.name)
                )
            if place.lower() in seen:
                problems.append(T("points: {place} is listed twice", place=place))
            seen.add(place.lower())
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                problems.append(
                    T("points: {place} = {value}: a value is a whole number, 0 or more", place=place, value=repr(value))
                )
        if not problems and self._valued(variant).total(variant.centres) < 1:
            problems.append(T("points: every place is worth 0, so no power can ever score"))
        return problems


# the deadlines a game sets, as a problem with one names it
_DEADLINES = {
    "movement_deadline": T("movement deadline"),
    "retreat_deadline": T("retreat deadline"),
    "adjustment_deadline": T("adjustment deadline"),
}


_POINT = re.compile(r"([A-Za-z][A-Za-z0-9_]*)[:=](\S+)\Z")


def read_points(text: str) -> tuple[tuple[str, int], ...]:
    """``par:3,bur:2`` (or ``par=3 bur=2``): places by their abbreviation and the points each is worth, as written;
    ValueError (with a :class:`Text`) says what is wrong. Whether the places exist is :meth:`GameSettings.check`'s
    business."""
    out = []
    for item in (w for w in re.split(r"[,;\s]+", text.strip()) if w):
        found = _POINT.match(item)
        if found is None:
            raise ValueError(
                T("points: {item} is not written like par:3 (a place, a colon, its points)", item=repr(item))
            )
        place, value = found.groups()
        if not re.fullmatch(r"[0-9]{1,6}", value):
            raise ValueError(
                T(
                    "points: {place} = {value}: a value is a whole number, 0 or more (at most 999999)",
                    place=place,
                    value=repr(value),
                )
            )
        out.append((place.lower(), int(value)))
    if not out:
        raise ValueError(T("points: give places and their points, e.g. par:3,bur:2 (or none for the variant's)"))
    return tuple(out)


# the settings read back from their stored JSON by a type of their own (GameSettings.from_json)
_STORED_AS: dict[str, Callable[[Any], Any]] = {
    "press": PressKind,
    "assignment": Assignment,
    "resolve": Resolve,
    "takeover": Takeover,
    "auth": Auth,
    "bots": Bots,
    "rules": RulesEdition,
    "min_reliability": float,
}
