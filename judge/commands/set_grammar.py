"""The SET family a player writes (SET PASSWORD, TIMEZONE, LANGUAGE, WAIT, NOWAIT, ABSENCE, PRESS; the game
master's SET DEADLINE comes from judge.commands.master_grammar)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from judge.commands.arguments import SHADES, Maker, Parse, both
from judge.commands.items import (
    SetAbsence,
    SetCalendar,
    SetKey,
    SetLanguage,
    SetPassword,
    SetPress,
    SetReminder,
    SetTimezone,
    SetWait,
)
from judge.commands.master_grammar import MASTER_SETTINGS
from judge.rules.words import Reason

_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*\Z")
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*\Z")
_SET_USAGE = Reason(
    "SET needs what to set and the new value: SET PASSWORD newsecret, SET TIMEZONE Europe/Berlin, SET LANGUAGE ru, "
    "SET WAIT, SET NOWAIT, SET ABSENCE 2026-12-24, SET KEY, SET REMINDER 24h 2h or SET CALENDAR OFF"
)


def parse_set(args: list[str]) -> Maker | Reason:
    """``SET`` and the words after it."""
    what = args[0].upper() if args else ""
    if what in _SETTINGS:
        return _SETTINGS[what](args[1:])
    if what not in ("PASSWORD", "TIMEZONE", "LANGUAGE"):
        return _SET_USAGE
    if len(args) != 2:
        examples = {
            "PASSWORD": Reason("SET PASSWORD newsecret (one word, no spaces)"),
            "TIMEZONE": "SET TIMEZONE Europe/Berlin",
            "LANGUAGE": "SET LANGUAGE ru",
        }
        return Reason("SET {what} needs one value: {example}", what=what, example=examples[what])
    value = args[1]
    if what == "PASSWORD":
        return lambda n, t: SetPassword(n, t, value)
    if what == "TIMEZONE":
        if not _ZONE.match(value):
            return Reason(
                "{name} is not a time zone name: write it like Europe/Berlin, America/New_York or UTC", name=repr(value)
            )
        return lambda n, t: SetTimezone(n, t, value)
    if not _LANGUAGE.match(value):
        return Reason("{name} is not a language code: write it like en, ru or de", name=repr(value))
    language = value.lower().replace("_", "-")
    return lambda n, t: SetLanguage(n, t, language)


def _wait(wait: bool) -> Callable[[list[str]], Maker | Reason]:
    def parse(args: list[str]) -> Maker | Reason:
        if args:
            command = "SET WAIT" if wait else "SET NOWAIT"
            return Reason("{command} takes nothing after it: write {command} alone on its line", command=command)
        return lambda n, t: SetWait(n, t, wait)

    return parse


_SETTINGS: dict[str, Parse] = {
    "WAIT": _wait(True),
    "NOWAIT": _wait(False),
    "ABSENCE": lambda args: _absence(args),
    "PRESS": lambda args: _set_press(args),
    "KEY": lambda args: _set_key(args),
    "REMINDER": lambda args: _set_reminder(args),
    "REMINDERS": lambda args: _set_reminder(args),
    "CALENDAR": lambda args: _set_calendar(args),
    **MASTER_SETTINGS,
}


def _set_key(args: list[str]) -> Maker | Reason:
    """``SET KEY`` (the public key is the armoured block in the message, or attached) or ``SET KEY NONE``."""
    if not args:
        return lambda n, t: SetKey(n, t, False)
    if len(args) == 1 and args[0].upper() == "NONE":
        return lambda n, t: SetKey(n, t, True)
    return Reason(
        "SET KEY takes nothing after it (paste your public key below it, or attach it), or NONE: SET KEY NONE"
    )


def _set_reminder(args: list[str]) -> Maker | Reason:
    """``SET REMINDER 24h 2h`` (up to three lead times), ``SET REMINDER NONE``, ``SET REMINDER DEFAULT``."""
    words = tuple(w for arg in args for w in arg.split(",") if w)
    if len(words) == 1 and words[0].upper() in ("DEFAULT", "NONE", "OFF"):
        choice = "NONE" if words[0].upper() == "OFF" else words[0].upper()
        return lambda n, t: SetReminder(n, t, (choice,))
    if not 1 <= len(words) <= 3:
        return Reason("SET REMINDER takes up to three lead times: SET REMINDER 24h 2h, or SET REMINDER NONE")
    # the durations are read by the game server (judge.timeutil.parse_lead_times), as SET DEADLINE's are
    return lambda n, t: SetReminder(n, t, words)


def _set_calendar(args: list[str]) -> Maker | Reason:
    """``SET CALENDAR ON`` / ``SET CALENDAR OFF``."""
    if len(args) != 1 or args[0].upper() not in ("ON", "OFF"):
        return Reason("SET CALENDAR needs ON or OFF: SET CALENDAR OFF")
    on = args[0].upper() == "ON"
    return lambda n, t: SetCalendar(n, t, on)


def _set_press(args: list[str]) -> Maker | Reason:
    """``SET PRESS GREY`` / ``SET PRESS WHITE``."""
    if len(args) != 1 or args[0].upper() not in SHADES:
        return Reason("SET PRESS needs GREY or WHITE: SET PRESS GREY")
    shade = SHADES[args[0].upper()]
    return lambda n, t: SetPress(n, t, shade)


_ABSENCE_USAGE = Reason(
    "SET ABSENCE needs the first day and may name the last: SET ABSENCE 2026-12-24 TO 2027-01-02 (or SET ABSENCE CLEAR)"
)


def _day(word: str) -> date | None:
    try:
        return date.fromisoformat(word) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", word) else None
    except ValueError:
        return None


def _absence(args: list[str]) -> Maker | Reason:
    if len(args) == 1 and args[0].upper() == "CLEAR":
        return lambda n, t: SetAbsence(n, t, None, None)
    if len(args) not in (1, 3) or (len(args) == 3 and args[1].upper() != "TO"):
        return _ABSENCE_USAGE
    days = [_day(word) for word in args[::2]]
    for word, day in zip(args[::2], days, strict=True):
        if day is None:
            return both(Reason("{word} is not a day written like 2026-12-24", word=repr(word)), _ABSENCE_USAGE)
    first, last = days[0], days[-1] if len(days) == 2 else None
    if last is not None and first is not None and last < first:
        return Reason("an absence ends on or after the day it starts")
    return lambda n, t: SetAbsence(n, t, first, last)
