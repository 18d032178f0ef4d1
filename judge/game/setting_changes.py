"""Changing a game's settings (``judge game settings GAME KEY VALUE``): each key read by its own setter, the change
checked against the variant, and the players told of changes that concern them."""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlite_utils import Database

from judge.facts import Assignment, PressKind
from judge.game.adjudication import maybe_adjudicate_when_ready
from judge.game.lookup import GameError, get_game
from judge.game.notices import Announcement, NoticeKind, tell
from judge.game.records import Game, log_event, players, save_game
from judge.game.settings import Auth, Bots, GameSettings, Resolve, Takeover, read_points
from judge.i18n import T, Text, sentences
from judge.rules.edition import RulesEdition
from judge.rules.variant import Variant
from judge.store.events import EventKind
from judge.store.statuses import GameStatus, Role
from judge.timeutil import parse_duration, parse_lead_times

MISSED_IN_A_ROW = 2  # the game master hears of a player who misses this many deadlines in a row


SETTING_KEYS = {
    "press": "white, grey, both or none",
    "deadline": "movement phases, e.g. 48h",
    "retreat_deadline": "e.g. 24h",
    "adjust_deadline": "e.g. 24h",
    "grace": "e.g. 12h, or 0",
    "solo": "centres to win, or default",
    "last_year": "a year, or none",
    "anonymous": "true or false",
    "shared_addresses": "true or false",
    "master": "an address, or none",
    "assignment": "master, preference or random (before the start)",
    "tie_break": "powers in order, e.g. England,France (or none)",
    "tie_others": "play-on, draw or none",
    "combined": "true or false",
    "points": "places and their victory points, e.g. par:3,bur:2 (or none for the variant's)",
    "resolve": "ready or orders-in",
    "absence_days_per_year": "days a player may declare absent per year, e.g. 14",
    "named_draws": "true or false (DRAW PROPOSE may name the powers of the draw)",
    "abandon_after": "deadlines missed in a row before a power is in civil disorder, e.g. 3 (0: never)",
    "takeover": "open or approve (the game master approves a TAKEOVER)",
    "auth": "any or key (only mail signed with the seat's OpenPGP key acts for it)",
    "reminders": "up to three lead times before each deadline, e.g. 24h 2h, or none (a player's SET REMINDER wins)",
    "bots": "none, cd or fill (the stand-in bot plays powers in civil disorder; fill: also the empty seats at start)",
    "nmr_wait": "e.g. 12h, or 0: when orders are missing at a deadline it moves once by this much",
    "excuses": "misses per player excused before abandon_after counts, e.g. 1 (0: none)",
    "min_reliability": "the share of deadlines a joiner must have met, e.g. 0.8 (0: anyone may join)",
    "rules": "2000 or datc-3 (the rules edition adjudication follows; before the start)",
}


def _flag(value: str) -> bool:
    low = value.strip().lower()
    if low in ("true", "yes", "on", "1"):
        return True
    if low in ("false", "no", "off", "0"):
        return False
    raise GameError(T("{value}: say true or false", value=repr(value)))


def _whole(value: str, what: str) -> int:
    try:
        return int(value.strip())
    except ValueError:
        raise GameError(T("{what}: {value} is not a whole number", what=what, value=repr(value))) from None


def _seconds(value: str) -> int:
    try:
        return int(parse_duration(value).total_seconds())
    except ValueError as exc:
        raise GameError(exc.args[0]) from None


def _press(game: Game, value: str, none: bool) -> dict[str, Any]:
    if value not in [k.value for k in PressKind]:
        raise GameError(_one_of("press", PressKind))
    return {"press": PressKind(value)}


def _tie_break(game: Game, value: str, none: bool) -> dict[str, Any]:
    order = tuple(game.variant.power_named(w) or w for w in value.replace(",", " ").split())
    return {"tie_break": None if none else order}


def _points(game: Game, value: str, none: bool) -> dict[str, Any]:
    if none:
        return {"points": None}
    try:
        return {"points": read_points(value)}
    except ValueError as exc:
        raise GameError(exc.args[0]) from None


def _master(game: Game, value: str, none: bool) -> dict[str, Any]:
    if not none and "@" not in value:
        raise GameError(T("master: {address} is not a mail address", address=repr(value)))
    return {"master": None if none else value.strip().lower()}


def _assignment(game: Game, value: str, none: bool) -> dict[str, Any]:
    if game.status != GameStatus.FORMING:
        raise GameError(T("assignment can only change before the game starts"))
    if value not in [a.value for a in Assignment]:
        raise GameError(_one_of("assignment", Assignment))
    return {"assignment": Assignment(value)}


def _resolve(game: Game, value: str, none: bool) -> dict[str, Any]:
    try:
        return {"resolve": Resolve(value.strip().lower())}
    except ValueError:
        raise GameError(_one_of("resolve", Resolve)) from None


def _takeover(game: Game, value: str, none: bool) -> dict[str, Any]:
    try:
        return {"takeover": Takeover(value.strip().lower())}
    except ValueError:
        raise GameError(_one_of("takeover", Takeover)) from None


def _rules(game: Game, value: str, none: bool) -> dict[str, Any]:
    if game.status != GameStatus.FORMING:
        raise GameError(T("rules can only change before the game starts"))
    try:
        return {"rules": RulesEdition(value.strip().lower())}
    except ValueError:
        raise GameError(_one_of("rules", RulesEdition)) from None


def _auth(game: Game, value: str, none: bool) -> dict[str, Any]:
    try:
        return {"auth": Auth(value.strip().lower())}
    except ValueError:
        raise GameError(_one_of("auth", Auth)) from None


def _bots(game: Game, value: str, none: bool) -> dict[str, Any]:
    try:
        return {"bots": Bots.NONE if none else Bots(value.strip().lower())}
    except ValueError:
        raise GameError(_one_of("bots", Bots)) from None


def _share(value: str, none: bool) -> float:
    """A share written 0.8, 80% or 0,8 (none: 0)."""
    if none:
        return 0.0
    text = value.strip().replace(",", ".")
    try:
        share = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise GameError(T("min_reliability: {value} is not a share like 0.8 or 80%", value=repr(value))) from None
    if share != share:  # NaN
        raise GameError(T("min_reliability: {value} is not a share like 0.8 or 80%", value=repr(value)))
    return share


def _one_of(key: str, choices: type[StrEnum]) -> Text:
    return T("{key}: one of {choices}", key=key, choices=", ".join(c.value for c in choices))


def _duration(field: str) -> Setter:
    return lambda game, value, none: {field: _seconds(value)}


def _number(field: str) -> Setter:
    return lambda game, value, none: {field: None if none else _whole(value, field)}


def _switch(field: str) -> Setter:
    return lambda game, value, none: {field: _flag(value)}


# each key (and its aliases) -> the settings fields a value gives: (game, value, "none" given) -> fields
Setter = Callable[[Game, str, bool], dict[str, Any]]
_SETTERS: dict[str, Setter] = {
    "press": _press,
    "deadline": _duration("movement_deadline"),
    "movement_deadline": _duration("movement_deadline"),
    "retreat_deadline": _duration("retreat_deadline"),
    "adjust_deadline": _duration("adjustment_deadline"),
    "adjustment_deadline": _duration("adjustment_deadline"),
    "grace": lambda game, value, none: {"grace": 0 if value.strip() == "0" or none else _seconds(value)},
    "solo": _number("solo"),
    "last_year": _number("last_year"),
    "tie_break": _tie_break,
    "tie_others": lambda game, value, none: {"tie_others": None if none else value.strip().lower()},
    "anonymous": _switch("anonymous"),
    "shared_addresses": _switch("shared_addresses"),
    "combined": _switch("combined"),
    "points": _points,
    "named_draws": _switch("named_draws"),
    "resolve": _resolve,
    "absence_days_per_year": lambda game, value, none: {
        "absence_days_per_year": 0 if none else _whole(value, "absence_days_per_year")
    },
    "master": _master,
    "assignment": _assignment,
    "abandon_after": lambda game, value, none: {"abandon_after": 0 if none else _whole(value, "abandon_after")},
    "takeover": _takeover,
    "auth": _auth,
    "reminders": lambda game, value, none: {"reminders": _leads(value)},
    "bots": _bots,
    "nmr_wait": lambda game, value, none: {"nmr_wait": 0 if value.strip() == "0" or none else _seconds(value)},
    "excuses": lambda game, value, none: {"excuses": 0 if none else _whole(value, "excuses")},
    "min_reliability": lambda game, value, none: {"min_reliability": _share(value, none)},
    "rules": _rules,
}


def _leads(value: str) -> tuple[int, ...]:
    try:
        return parse_lead_times(value.replace(",", " ").split() or ["none"])
    except ValueError as exc:
        raise GameError(exc.args[0]) from None


def change_setting(db: Database, name: str, key: str, value: str, now: datetime, sender: str = "master") -> Game:
    """Change one of a game's settings (``SETTING_KEYS``); the players are told of changes that concern them."""
    game = get_game(db, name)
    k = key.strip().lower().replace("-", "_")
    if game.status == GameStatus.FINISHED:
        raise GameError(T("game {game} is over", game=game.name))
    s = game.settings
    none = value.strip().lower() in ("none", "default", "-", "")
    setter = _SETTERS.get(k)
    if setter is None:
        close = difflib.get_close_matches(k, list(SETTING_KEYS), n=1)
        keys = ", ".join(SETTING_KEYS)
        raise GameError(
            T(
                "unknown setting {key}; did you mean {near}? (settings: {keys})",
                key=repr(key),
                near=repr(close[0]),
                keys=keys,
            )
            if close
            else T("unknown setting {key} (settings: {keys})", key=repr(key), keys=keys)
        )
    new = dataclasses.replace(s, **setter(game, value, none))
    problems = new.check(game.variant)
    if problems:
        raise GameError(sentences(problems))
    if new == s:
        raise GameError(T("{key} is already {value}", key=k, value=value))
    if k == "shared_addresses" and not new.shared_addresses:
        seats = [p.email for p in players(db, game.id) if p.role == Role.PLAYER]
        if len(set(seats)) != len(seats):
            raise GameError(T("an address already plays two powers here; replace one of them first"))
    game.settings = new
    save_game(db, game, now)
    field = _canonical(k)
    shown = settings_view(new).get(field)
    log_event(db, game.id, now, sender, EventKind.SETTINGS, {field: shown})
    if k not in ("master", "assignment"):  # the game master's own business
        for address in dict.fromkeys(p.email for p in players(db, game.id) if p.email):
            tell(
                db,
                address,
                NoticeKind.ANNOUNCEMENT,
                now,
                game,
                what=Announcement.SETTINGS,
                detail=f"{field} = {_shown(shown)}",
            )
    if k == "resolve" and game.status == GameStatus.ACTIVE:  # every order may already be in: check now, once
        maybe_adjudicate_when_ready(db, game, now)
    return game


def _shown(value: Any) -> str:
    """A setting's new value as the players' announcement says it: ``none``, ``par:3, bur:2``, ``true``."""
    if value is None:
        return "none"
    if isinstance(value, dict):
        return ", ".join(f"{k}:{v}" for k, v in value.items())
    return str(value).lower()


def _canonical(key: str) -> str:
    return {"deadline": "movement_deadline", "adjust_deadline": "adjustment_deadline"}.get(key, key)


def settings_view(s: GameSettings) -> dict[str, Any]:
    """The settings as a host reads them: durations as 48h, 1d12h."""
    from judge.timeutil import format_duration, format_lead_times

    out: dict[str, Any] = dataclasses.asdict(s)
    for k in ("movement_deadline", "retreat_deadline", "adjustment_deadline", "grace", "nmr_wait"):
        out[k] = format_duration(timedelta(seconds=out[k]))
    if s.points is not None:
        out["points"] = dict(s.points)
    out["reminders"] = format_lead_times(s.reminders)
    return out


# --- the settings of a game created by mail (CREATE) ----------------------------------------------------------------

# the words of `judge game create`'s options that differ from the setting keys
_OPTION_ALIASES = {"assign": "assignment", "absence_days": "absence_days_per_year", "adjustment": "adjust_deadline"}
FLAGS = ("anonymous", "shared_addresses", "combined")  # options that may stand alone (meaning true)


def settings_from_options(
    variant: Variant, options: tuple[tuple[str, str | None], ...], master: str | None
) -> GameSettings:
    """A new game's settings from ``key=value`` options, read by the same setters as ``judge game settings`` (keys
    as there, or as the options of ``judge game create``: ``retreat-deadline``, ``assign``, ``absence-days``; the
    flags ``anonymous``, ``shared-addresses`` and ``combined`` may stand alone). ``master`` is the game master."""
    settings = GameSettings(master=master)
    stand_in = Game(0, "", variant, GameStatus.FORMING, settings)
    for written, value in options:
        key = written.strip().lstrip("-").lower().replace("-", "_")
        key = _OPTION_ALIASES.get(key, key)
        setter = _SETTERS.get(key)
        if setter is None or key == "master":
            known = [k for k in SETTING_KEYS if k != "master"]
            raise GameError(
                T(
                    "unknown option {option} (options: variant, {options})",
                    option=repr(written),
                    options=", ".join(known),
                )
            )
        if value is None:
            if key not in FLAGS:
                raise GameError(T("{option} needs a value: {option}=…", option=written))
            value = "true"
        none = value.strip().lower() in ("none", "default", "-", "")
        settings = dataclasses.replace(settings, **setter(stand_in, value, none))
    return settings
