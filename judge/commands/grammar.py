"""The command grammar: a line outside a block read as a command, the opening of a block (PRESS, BROADCAST, POSTAL
PRESS, DIARY, SANDBOX), a problem, or else an order line; the information commands. The SET family is read in
judge.commands.set_grammar, the game master's commands in judge.commands.master_grammar."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from judge.commands.arguments import (
    NAME_SEPARATORS,
    POWER,
    SHADES,
    Maker,
    Parse,
    bad_phase,
    both,
    game_word,
    not_a_game,
    not_a_power,
)
from judge.commands.items import (
    Clear,
    Concede,
    Draw,
    DrawAction,
    GetFile,
    Help,
    History,
    Item,
    Join,
    LineProblem,
    ListGames,
    MapOf,
    MyOrders,
    MyRecord,
    Observe,
    OrderLine,
    PhaseFor,
    Ready,
    Resign,
    SignOff,
    SignOn,
    Summary,
    WhoGame,
)
from judge.commands.master_grammar import MASTER_COMMANDS
from judge.commands.set_grammar import parse_set
from judge.facts import Shade
from judge.rules.phase import Phase
from judge.rules.words import Reason


@dataclass
class Block:
    """A PRESS, BROADCAST, POSTAL PRESS, DIARY or SANDBOX block being read (mutable only while it is open)."""

    kind: str  # the word that opened it: PRESS, BROADCAST, POSTAL, DIARY or SANDBOX
    end: str  # ENDPRESS, ENDDIARY or ENDSANDBOX
    line: int
    text: str
    to: tuple[str, ...] | None = None
    header_problem: Reason | None = None  # the opening line was wrong: the block is read but nothing is done
    unreadable: int | None = None  # the first line inside that could not be read
    body: list[tuple[int, str]] = field(default_factory=list)  # (line number, line without trailing whitespace)
    from_game: str | None = None  # SANDBOX FROM GAME name
    shade: Shade | None = None  # PRESS … GREY / WHITE
    postal: bool = False  # POSTAL PRESS


def mask_secrets(line: str) -> str:
    """A line as it may be quoted back: the password of a SIGNON, JOIN or SET PASSWORD line replaced by ****."""
    words = line.split()
    head = words[0].upper() if words else ""
    if head in ("SIGNON", "REPLACE", "TAKEOVER"):
        kept = words[:3] if len(words) >= 4 else words[:2] if len(words) == 3 else words[:1]
    elif head in ("MASTER", "CREATE"):
        kept = words[:2] if len(words) >= 3 else words[:1]
    elif head == "JOIN" or (head == "SET" and len(words) > 1 and words[1].upper().startswith("PASS")):
        kept = words[:2]
    else:
        return line
    return " ".join([*kept, "****"]) if len(words) > len(kept) else line


# --- commands -------------------------------------------------------------------------------------------------------

_TO = re.compile(r"to:?", re.IGNORECASE)
_SHADE_TWICE = Reason("say GREY or WHITE, not both")
_ALL_ALONE = Reason("ALL stands alone: PRESS TO ALL goes to everyone")
_POSTAL_USAGE = Reason(
    "write POSTAL PRESS on its line (GREY or WHITE may follow), then the text, then ENDPRESS; "
    "it is published to everyone with the next results"
)

_SIGNON_USAGE = Reason(
    "SIGNON needs a power, a game and a password: SIGNON France mygame secret (or SIGNON Fmygame secret); "
    "a mail signed with your registered key needs no password"
)
_JOIN_USAGE = Reason(
    "JOIN needs a game and a password, then the powers you prefer if you like: JOIN mygame secret France Italy"
)
_OBSERVE_USAGE = Reason("OBSERVE needs the game: OBSERVE mygame")
_LIST_USAGE = Reason("LIST takes at most a game: LIST (all games) or LIST mygame")
_HISTORY_USAGE = Reason("HISTORY needs a game and may name a phase: HISTORY mygame or HISTORY mygame F1901M")
_DRAW_USAGE = Reason("DRAW takes PROPOSE, ACCEPT or REJECT (or YES, NO): DRAW PROPOSE, DRAW ACCEPT or DRAW REJECT")
_DRAW_NAMED_USAGE = Reason("DRAW PROPOSE may name the powers of the draw: DRAW PROPOSE England France Russia")
_PRESS_USAGE = Reason(
    "PRESS needs the powers it goes to: PRESS TO France, Germany (or BROADCAST for everyone), then the "
    "text, then a line ENDPRESS"
)


_DRAW_ACTIONS: dict[str, DrawAction] = {
    "PROPOSE": "propose",
    "YES": "accept",
    "ACCEPT": "accept",
    "REJECT": "reject",
    "NO": "reject",
}
_BARE: dict[str, Callable[[int, str], Item]] = {
    "READY": lambda n, t: Ready(n, t, True),
    "UNREADY": lambda n, t: Ready(n, t, False),
    "CLEAR": Clear,
    "RESIGN": Resign,
    "SURRENDER": Resign,
    "CONCEDE": Concede,
    "HELP": Help,
    "SIGNOFF": SignOff,
}


def known_commands() -> list[str]:
    """Every command word the judge reads at the start of a line."""
    return sorted(
        {
            *_BARE,
            *_WITH_ARGUMENTS,
            "NOT READY",
            "PRESS",
            "BROADCAST",
            "SANDBOX",
            "ENDPRESS",
            "ENDSANDBOX",
            "POSTAL",
            "DIARY",
            "ENDDIARY",
        }
        - {"NOT"}
    )


def first_word(line: str) -> str:
    return line.split(None, 1)[0].upper() if line.strip() else ""


def command_or_block(number: int, line: str) -> Item | LineProblem | Block:
    """One line outside a block: a command, the start of a block, a problem, or else an order line."""
    parts = line.split(None, 1)
    head, rest = parts[0].upper(), parts[1] if len(parts) > 1 else ""
    args = rest.split()
    if head == "NOT" and args and args[0].upper() == "READY":
        head, args = "NOT READY", args[1:]
    elif head == "END" and len(args) == 1 and args[0].upper() in ("PRESS", "SANDBOX", "DIARY"):
        head, args = "END" + args[0].upper(), []

    def problem(reason: Reason) -> LineProblem:
        return LineProblem(number, mask_secrets(line), reason)

    if head in _BARE or head == "NOT READY":
        if args:
            return problem(Reason("{command} takes nothing after it: write {command} alone on its line", command=head))
        return Ready(number, line, False) if head == "NOT READY" else _BARE[head](number, line)
    if head in ("ENDPRESS", "ENDSANDBOX", "ENDDIARY"):
        opener = {"ENDPRESS": ("PRESS", "BROADCAST"), "ENDSANDBOX": "SANDBOX", "ENDDIARY": "DIARY"}[head]
        return problem(Reason("{command} without {opener} before it: nothing to end here", command=head, opener=opener))
    if head in ("PRESS", "BROADCAST", "SANDBOX"):
        return _opening(head, args, number, line, rest)
    if head == "DIARY" or (head == "POSTAL" and (not args or args[0].upper() == "PRESS")):
        return _postal_or_diary(head, args, number, line)
    if head == "POSTAL":  # "Postal address: …" is no block: this line alone is refused
        return problem(_POSTAL_USAGE)
    parse = _WITH_ARGUMENTS.get(head)
    if parse is None:
        return OrderLine(number, line)
    result = parse(args)
    if isinstance(result, Reason):
        return problem(result)
    return result(number, line)


def _opening(head: str, args: list[str], number: int, line: str, rest: str) -> Block:
    """The first line of a PRESS, BROADCAST or SANDBOX block (with the problem of a wrong one: the block is read to
    its end, and nothing is done)."""
    if head == "PRESS":
        return _press(number, line, rest.strip())
    if head == "BROADCAST" and len(args) == 1 and args[0].upper() in SHADES:
        return Block(head, "ENDPRESS", number, line, shade=SHADES[args[0].upper()])
    if head == "SANDBOX" and len(args) == 3 and [a.upper() for a in args[:2]] == ["FROM", "GAME"]:
        return Block(head, "ENDSANDBOX", number, line, from_game=args[2])
    if head == "SANDBOX" and args and args[0].upper() == "FROM":
        return Block(
            head,
            "ENDSANDBOX",
            number,
            line,
            header_problem=Reason(
                "write SANDBOX FROM GAME and the game's name on its line, then your changes and ORDERS, then ENDSANDBOX"
            ),
        )
    end = "ENDPRESS" if head == "BROADCAST" else "ENDSANDBOX"
    header = (
        Reason(
            "{command} takes nothing after it: write {command} alone on its line, then the text, then {end}",
            command=head,
            end=end,
        )
        if args
        else None
    )
    return Block(head, end, number, line, header_problem=header)


def _press(number: int, line: str, rest: str) -> Block:
    """``PRESS [TO] <powers> [GREY|WHITE]``: names, initials (``EG``) or ``ALL``; the shade may come first or last."""
    words = [name for name in NAME_SEPARATORS.split(rest) if name]
    shades = {SHADES[w.upper()] for w in words if w.upper() in SHADES}
    words = [w for w in words if w.upper() not in SHADES]
    if words and _TO.fullmatch(words[0]):
        words = words[1:]
    names: tuple[str, ...] | None = tuple(words)
    header = None
    if len(shades) > 1:
        header = Reason("{usage}; this press was not sent", usage=both(_SHADE_TWICE, _PRESS_USAGE))
    elif not words:
        header = Reason("{usage}; this press was not sent", usage=_PRESS_USAGE)
    elif any(w.upper() == "ALL" for w in words):
        if len(words) > 1:
            header = Reason("{usage}; this press was not sent", usage=both(_ALL_ALONE, _PRESS_USAGE))
        names = None
    else:
        bad = next((name for name in words if not POWER.match(name)), None)
        if bad is not None:
            header = Reason("{usage}; this press was not sent", usage=both(not_a_power(bad), _PRESS_USAGE))
    shade = next(iter(shades)) if len(shades) == 1 else None
    return Block("PRESS", "ENDPRESS", number, line, to=names, header_problem=header, shade=shade)


def _postal_or_diary(head: str, args: list[str], number: int, line: str) -> Block:
    """``POSTAL PRESS [GREY|WHITE]`` … ``ENDPRESS`` (to everyone, with the next results) or ``DIARY`` … ``ENDDIARY``.
    A wrong first line (``POSTAL`` alone, ``POSTAL PRESS`` with other words, ``DIARY`` with words after it) still opens
    the block (read to its end, nothing done), so no line of it is read as orders."""
    if head == "DIARY":
        header = (
            Reason(
                "{command} takes nothing after it: write {command} alone on its line, then the text, then {end}",
                command=head,
                end="ENDDIARY",
            )
            if args
            else None
        )
        return Block(head, "ENDDIARY", number, line, header_problem=header)
    words = [w.upper() for w in args]
    shades = {SHADES[w] for w in words[1:] if w in SHADES}
    rest = [w for w in words[1:] if w not in SHADES]
    good = bool(words) and words[0] == "PRESS" and len(shades) <= 1 and rest in ([], ["TO", "ALL"], ["ALL"])
    header = None if good else _POSTAL_USAGE
    shade = next(iter(shades)) if len(shades) == 1 else None
    return Block(head, "ENDPRESS", number, line, header_problem=header, shade=shade, postal=True)


def _signon(args: list[str]) -> Maker | Reason:
    if len(args) in (1, 2):  # SIGNON Fmygame [secret]; without a password only a mail signed with the seat's key
        joined = args[0]
        password = args[1] if len(args) == 2 else ""
        bare = _bare_signon(args) if len(args) == 2 else None
        if len(joined) < 2 or not joined[0].isalpha():
            return _SIGNON_USAGE
        joined_game = game_word(joined[1:])
        if joined_game is None:
            return both(not_a_game(joined[1:]), _SIGNON_USAGE) if bare is None else _bare_only(bare)
        initial = joined[0].upper()
        return lambda n, t: SignOn(n, t, initial, joined_game, password, True, bare)
    if len(args) != 3:
        return _SIGNON_USAGE
    power, written_game, password = args
    if not POWER.match(power):
        return both(not_a_power(power), _SIGNON_USAGE)
    game = game_word(written_game)
    if game is None:
        return both(not_a_game(written_game), _SIGNON_USAGE)
    power = power.upper() if len(power) == 1 else power
    return lambda n, t: SignOn(n, t, power, game, password, len(power) == 1)


def _bare_only(bare: tuple[str, str]) -> Maker:
    """``SIGNON France my.game``: only the reading without a password (the classic one names no game)."""
    power, game = bare
    return lambda n, t: SignOn(n, t, power, game, "", len(power) == 1)


def _bare_signon(args: list[str]) -> tuple[str, str] | None:
    """``SIGNON France mygame`` read as a power and a game without a password (what a signed mail may say), when the
    words can be that; the classic ``SIGNON Fmygame secret`` is the other reading, and the seat decides."""
    power, written_game = args
    game = game_word(written_game)
    if not POWER.match(power) or game is None:
        return None
    return (power.upper() if len(power) == 1 else power, game)


def _join(args: list[str]) -> Maker | Reason:
    if len(args) < 2:
        return _JOIN_USAGE
    game = game_word(args[0])
    if game is None:
        return both(not_a_game(args[0]), _JOIN_USAGE)
    password = args[1]
    preferences = tuple(name for name in NAME_SEPARATORS.split(" ".join(args[2:])) if name)
    bad = next((name for name in preferences if not POWER.match(name)), None)
    if bad is not None:
        return both(not_a_power(bad), _JOIN_USAGE)
    return lambda n, t: Join(n, t, game, password, preferences)


def _observe(args: list[str]) -> Maker | Reason:
    if len(args) != 1:
        return _OBSERVE_USAGE
    game = game_word(args[0])
    if game is None:
        return not_a_game(args[0])
    return lambda n, t: Observe(n, t, game)


def _list(args: list[str]) -> Maker | Reason:
    if len(args) > 1:
        return _LIST_USAGE
    if not args:
        return lambda n, t: ListGames(n, t, None)
    game = game_word(args[0])
    if game is None:
        return not_a_game(args[0])
    return lambda n, t: ListGames(n, t, game)


def _history(args: list[str]) -> Maker | Reason:
    if not 1 <= len(args) <= 2:
        return _HISTORY_USAGE
    game = game_word(args[0])
    if game is None:
        return both(not_a_game(args[0]), _HISTORY_USAGE)
    phase: str | None = None
    if len(args) == 2:
        try:
            phase = Phase.parse(args[1]).code
        except ValueError as err:
            return both(bad_phase(args[1], str(err)), _HISTORY_USAGE)
    return lambda n, t: History(n, t, game, phase)


def _draw(args: list[str]) -> Maker | Reason:
    if not args:
        return lambda n, t: Draw(n, t, "propose")
    if len(args) > 1 and args[0].upper() == "PROPOSE":  # DRAW PROPOSE England France Russia (a game option)
        names = tuple(name for name in NAME_SEPARATORS.split(" ".join(args[1:])) if name)
        bad = next((name for name in names if not POWER.match(name)), None)
        if bad is not None:
            return both(not_a_power(bad), _DRAW_NAMED_USAGE)
        return lambda n, t: Draw(n, t, "propose", names)
    action = _DRAW_ACTIONS.get(args[0].upper()) if len(args) == 1 else None
    if action is None:
        return _DRAW_USAGE
    return lambda n, t: Draw(n, t, action)


_WITH_ARGUMENTS: dict[str, Parse] = {
    "SIGNON": _signon,
    "JOIN": _join,
    "OBSERVE": _observe,
    "LIST": _list,
    "HISTORY": _history,
    "DRAW": _draw,
    "SET": parse_set,
    "PHASE": lambda args: _phase_for(args),
}
COMMAND_WORDS = (
    frozenset(_BARE) | frozenset(_WITH_ARGUMENTS) | {"NOT", "PRESS", "BROADCAST", "SANDBOX", "POSTAL", "DIARY"}
)


# --- PHASE (orders for a later phase) -------------------------------------------------------------------------------

_PHASE_USAGE = Reason(
    "PHASE needs a later phase of the game, then its orders: PHASE F1901R or PHASE Fall 1901 retreats"
)
_SEASON_WORDS = {"SPRING": "S", "FALL": "F", "AUTUMN": "F", "WINTER": "W"}
_STEP_WORDS = {
    "MOVEMENT": "M",
    "MOVEMENTS": "M",
    "MOVES": "M",
    "RETREAT": "R",
    "RETREATS": "R",
    "ADJUSTMENT": "A",
    "ADJUSTMENTS": "A",
    "BUILDS": "A",
}


def _phase_for(args: list[str]) -> Maker | Reason:
    """``PHASE F1901R``; or the phase in words, ``PHASE Fall 1901 retreats`` (a Winter needs no third word)."""
    if len(args) == 1:
        code = args[0]
    elif len(args) in (2, 3) and args[0].upper() in _SEASON_WORDS and args[1].isdigit():
        season = _SEASON_WORDS[args[0].upper()]
        step = _STEP_WORDS.get(args[2].upper(), "?") if len(args) == 3 else ("A" if season == "W" else "M")
        code = f"{season}{args[1]}{step}"
    else:
        return _PHASE_USAGE
    try:
        phase = Phase.parse(code).code
    except ValueError as err:
        return both(bad_phase(" ".join(args), str(err)), _PHASE_USAGE)
    return lambda n, t: PhaseFor(n, t, phase)


_GAME_ONLY_USAGE = {
    "WHOGAME": Reason("WHOGAME takes at most a game: WHOGAME or WHOGAME mygame"),
    "SUMMARY": Reason("SUMMARY takes at most a game: SUMMARY or SUMMARY mygame"),
}
_GET_USAGE = Reason("GET needs what to send: GET HELP, GET RULES mygame or GET ORDERS")
_MAP_USAGE = Reason("MAP may name a game and a phase: MAP, MAP mygame or MAP mygame F1901M")


def _my_orders(args: list[str]) -> Maker | Reason:
    if args:
        return Reason("{command} takes nothing after it: write {command} alone on its line", command="ORDERS")
    return MyOrders


def _record(args: list[str]) -> Maker | Reason:
    if args:
        return Reason(
            "{command} takes nothing after it: write {command} alone on its line (the game master asks WHOIS address)",
            command="RECORD",
        )
    return MyRecord


def _game_only(command: str, make: Callable[[int, str, str | None], Item]) -> Callable[[list[str]], Maker | Reason]:
    def parse(args: list[str]) -> Maker | Reason:
        if len(args) > 1:
            return _GAME_ONLY_USAGE[command]
        game = game_word(args[0]) if args else None
        if args and game is None:
            return both(not_a_game(args[0]), _GAME_ONLY_USAGE[command])
        return lambda n, t: make(n, t, game)

    return parse


def _get(args: list[str]) -> Maker | Reason:
    if not 1 <= len(args) <= 2 or not args[0].isalpha():
        return _GET_USAGE
    game = game_word(args[1]) if len(args) == 2 else None
    if len(args) == 2 and game is None:
        return both(not_a_game(args[1]), _GET_USAGE)
    topic = args[0].lower()
    return lambda n, t: GetFile(n, t, topic, game)


def _phase_code(word: str) -> str | Reason:
    try:
        return Phase.parse(word).code
    except ValueError as err:
        return bad_phase(word, str(err))


def _map(args: list[str]) -> Maker | Reason:
    if len(args) > 2:
        return _MAP_USAGE
    game: str | None = None
    phase: str | None = None
    if len(args) == 1:  # a phase of the game signed on to, or a game's current phase
        code = _phase_code(args[0])
        if not isinstance(code, Reason):
            phase = code
        elif (game := game_word(args[0])) is None:
            return both(not_a_game(args[0]), _MAP_USAGE)
    elif len(args) == 2:
        game = game_word(args[0])
        if game is None:
            return both(not_a_game(args[0]), _MAP_USAGE)
        code = _phase_code(args[1])
        if isinstance(code, Reason):
            return both(code, _MAP_USAGE)
        phase = code
    return lambda n, t: MapOf(n, t, game, phase)


_WITH_ARGUMENTS.update(
    {
        "ORDERS": _my_orders,
        "RECORD": _record,
        "WHOGAME": _game_only("WHOGAME", WhoGame),
        "SUMMARY": _game_only("SUMMARY", Summary),
        "GET": _get,
        "MAP": _map,
    }
)
COMMAND_WORDS = COMMAND_WORDS | {"ORDERS", "RECORD", "WHOGAME", "SUMMARY", "GET", "MAP"}

_WITH_ARGUMENTS.update(MASTER_COMMANDS)
COMMAND_WORDS = COMMAND_WORDS | frozenset(MASTER_COMMANDS)
