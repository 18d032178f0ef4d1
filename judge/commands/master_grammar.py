"""The game master's commands by mail (MASTER, CREATE, SET DEADLINE, PROCESS, PAUSE, RESUME, EJECT, TERMINATE,
REPLACE, APPROVE, REJECT) and TAKEOVER: each read into its item, or the reason it cannot be."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from judge.commands.arguments import NAME_SEPARATORS, POWER, Maker, Parse, both, game_word, not_a_game, not_a_power
from judge.commands.items import (
    CreateGame,
    DecideTakeover,
    Eject,
    MasterAction,
    MasterControl,
    MasterSignOn,
    ReplacePower,
    SetDeadline,
    TakeOver,
    Terminate,
    WhoIs,
)
from judge.rules.words import Reason

_MASTER_USAGE = Reason("MASTER needs a game and its master password: MASTER mygame secret")
_CREATE_USAGE = Reason(
    "CREATE needs a new game's name and a master password, then options if you like: "
    "CREATE mygame secret variant=classic deadline=48h press=grey"
)
_DEADLINE_USAGE = Reason(
    "SET DEADLINE needs a change or a time: SET DEADLINE +24h, SET DEADLINE -12h or SET DEADLINE 2026-12-05 18:00"
)
_EJECT_USAGE = Reason("EJECT needs a power: EJECT France")
_TERMINATE_USAGE = Reason("TERMINATE needs DRAW and the powers, or ABANDONED: TERMINATE DRAW England France")
_REPLACE_USAGE = Reason(
    "REPLACE needs a power, the new player's address and a password: REPLACE France new@example.org secret"
)
_TAKEOVER_USAGE = Reason("TAKEOVER needs a game, a power and your password: TAKEOVER mygame France secret")
_DURATION_WORD = re.compile(r"(?:\d{1,4}[A-Za-z]{1,7}){1,4}\Z")
_OPTION = re.compile(r"-{0,2}([A-Za-z][A-Za-z_-]*)(?:=(\S*))?\Z")


def _master_signon(args: list[str]) -> Maker | Reason:
    if len(args) not in (1, 2):  # MASTER mygame alone: a mail signed with the game master's key
        return _MASTER_USAGE
    game = game_word(args[0])
    if game is None:
        return both(not_a_game(args[0]), _MASTER_USAGE)
    password = args[1] if len(args) == 2 else ""
    return lambda n, t: MasterSignOn(n, t, game, password)


def _create(args: list[str]) -> Maker | Reason:
    if len(args) < 2:
        return _CREATE_USAGE
    game = game_word(args[0])
    if game is None:
        return both(not_a_game(args[0]), _CREATE_USAGE)
    password = args[1]
    options: list[tuple[str, str | None]] = []
    for word in args[2:]:
        found = _OPTION.match(word)
        if found is None:
            return both(Reason("{word} is not an option written like deadline=48h", word=repr(word)), _CREATE_USAGE)
        options.append((found.group(1), found.group(2)))
    kept = tuple(options)
    return lambda n, t: CreateGame(n, t, game, password, kept)


def _set_deadline(args: list[str]) -> Maker | Reason:
    if not args:
        return _DEADLINE_USAGE
    if len(args) == 1 and args[0][:1] in "+-":
        by = args[0][1:]  # the server reads the duration (judge.timeutil.parse_duration)
        if not _DURATION_WORD.match(by):
            return _DEADLINE_USAGE
        shorten = args[0][0] == "-"
        return lambda n, t: SetDeadline(n, t, by, shorten, None)
    if len(args) > 2:
        return _DEADLINE_USAGE
    text = "T".join(args).replace("Z", "+00:00")
    try:
        to = datetime.fromisoformat(text)
    except ValueError:
        return _DEADLINE_USAGE
    return lambda n, t: SetDeadline(n, t, None, False, to)


def _control(action: MasterAction) -> Callable[[list[str]], Maker | Reason]:
    def parse(args: list[str]) -> Maker | Reason:
        if args:
            command = action.upper()
            return Reason("{command} takes nothing after it: write {command} alone on its line", command=command)
        return lambda n, t: MasterControl(n, t, action)

    return parse


def _eject(args: list[str]) -> Maker | Reason:
    if len(args) != 1 or not POWER.match(args[0]):
        return _EJECT_USAGE
    power = args[0]
    return lambda n, t: Eject(n, t, power)


def _terminate(args: list[str]) -> Maker | Reason:
    how = args[0].upper() if args else ""
    if how == "ABANDONED" and len(args) == 1:
        return lambda n, t: Terminate(n, t, None)
    names = tuple(name for name in NAME_SEPARATORS.split(" ".join(args[1:])) if name)
    if how != "DRAW" or not names:
        return _TERMINATE_USAGE
    bad = next((name for name in names if not POWER.match(name)), None)
    if bad is not None:
        return both(not_a_power(bad), _TERMINATE_USAGE)
    return lambda n, t: Terminate(n, t, names)


def _replace(args: list[str]) -> Maker | Reason:
    if len(args) != 3 or not POWER.match(args[0]) or "@" not in args[1]:
        return _REPLACE_USAGE
    power, email, password = args
    return lambda n, t: ReplacePower(n, t, power, email, password)


def _takeover(args: list[str]) -> Maker | Reason:
    if len(args) != 3:
        return _TAKEOVER_USAGE
    game = game_word(args[0])
    if game is None:
        return both(not_a_game(args[0]), _TAKEOVER_USAGE)
    if not POWER.match(args[1]):
        return both(not_a_power(args[1]), _TAKEOVER_USAGE)
    power, password = args[1], args[2]
    return lambda n, t: TakeOver(n, t, game, power, password)


def _decide(approve: bool) -> Callable[[list[str]], Maker | Reason]:
    def parse(args: list[str]) -> Maker | Reason:
        if len(args) != 1 or not POWER.match(args[0]):
            command = "APPROVE" if approve else "REJECT"
            return Reason("{command} needs the power: {command} France", command=command)
        power = args[0]
        return lambda n, t: DecideTakeover(n, t, power, approve)

    return parse


_WHOIS_USAGE = Reason("WHOIS needs an address: WHOIS someone@example.org")
_ADDRESS = re.compile(r"[^@\s<>]{1,64}@[^@\s<>]{1,255}\Z")


def _whois(args: list[str]) -> Maker | Reason:
    if len(args) != 1:
        return _WHOIS_USAGE
    address = args[0].strip("<>").lower()
    if not _ADDRESS.match(address):
        return _WHOIS_USAGE
    return lambda n, t: WhoIs(n, t, address)


MASTER_SETTINGS: dict[str, Parse] = {"DEADLINE": _set_deadline}
MASTER_COMMANDS: dict[str, Parse] = {
    "MASTER": _master_signon,
    "CREATE": _create,
    "PROCESS": _control("process"),
    "PAUSE": _control("pause"),
    "RESUME": _control("resume"),
    "EJECT": _eject,
    "TERMINATE": _terminate,
    "REPLACE": _replace,
    "TAKEOVER": _takeover,
    "APPROVE": _decide(True),
    "REJECT": _decide(False),
    "WHOIS": _whois,
}
