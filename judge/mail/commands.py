"""From the body of a player's email to commands, order lines and problems, each with its line number.

The command language is line based: a line whose first word is a command word (in any case) is a command, any
other line is an order line for the game server to read with the rules engine. ``PRESS``/``BROADCAST`` …
``ENDPRESS`` and ``SANDBOX`` … ``ENDSANDBOX`` enclose blocks whose lines are kept as written. The message ends at
``SIGNOFF``, at a signature line (``--``), at a quote attribution (``On … wrote:``) or at
``-----Original Message-----``; lines quoted with ``>`` are skipped. See docs/commands.md.

This module is pure: no I/O, clock, database or printing. It never raises on a string, and its work is linear in
the length of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterator, Literal

from judge.rules.phase import Phase

# --- what a body is read into ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Located:
    line: int  # 1-based line number in the original text
    text: str  # the line as written, stripped (for a block: its first line)


@dataclass(frozen=True)
class SignOn(_Located):
    """``SIGNON France mygame secret``, or the classic ``SIGNON Fmygame secret`` (the power's initial, then the game).

    ``initial`` is true when ``power`` is one letter (upper-cased) that the server matches to a power's initial.
    """

    power: str
    game: str
    password: str
    initial: bool


@dataclass(frozen=True)
class OrderLine(_Located):
    """A line that is not a command: the game server reads it as an order."""


@dataclass(frozen=True)
class Ready(_Located):
    """``READY`` (true) or ``NOT READY`` / ``UNREADY`` (false)."""

    ready: bool


@dataclass(frozen=True)
class Clear(_Located):
    """``CLEAR``: withdraw all of this power's orders for the current phase."""


DrawAction = Literal["propose", "accept", "reject"]


@dataclass(frozen=True)
class Draw(_Located):
    """``DRAW PROPOSE`` (or ``DRAW``), ``DRAW ACCEPT`` (or ``DRAW YES``), ``DRAW REJECT`` (or ``DRAW NO``)."""

    action: DrawAction


@dataclass(frozen=True)
class Resign(_Located):
    """``RESIGN`` or ``SURRENDER``."""


@dataclass(frozen=True)
class Press(_Located):
    """``PRESS TO France, Germany`` … ``ENDPRESS`` (``to``: the names as written) or ``BROADCAST`` … ``ENDPRESS``.

    ``to`` is None for a broadcast (to everyone in the game).
    """

    to: tuple[str, ...] | None
    body: str


@dataclass(frozen=True)
class Join(_Located):
    """``JOIN mygame secret [France Italy …]``: the game, a password, and the powers preferred, best first."""

    game: str
    password: str
    preferences: tuple[str, ...]


@dataclass(frozen=True)
class Observe(_Located):
    """``OBSERVE mygame``."""

    game: str


@dataclass(frozen=True)
class ListGames(_Located):
    """``LIST`` (all games, ``game`` None) or ``LIST mygame``."""

    game: str | None


@dataclass(frozen=True)
class History(_Located):
    """``HISTORY mygame`` or ``HISTORY mygame F1901M`` (``phase`` as a phase code)."""

    game: str
    phase: str | None


@dataclass(frozen=True)
class Sandbox(_Located):
    """``SANDBOX`` … ``ENDSANDBOX``: the lines between, for the server to read as a position and orders."""

    body: str


@dataclass(frozen=True)
class SetPassword(_Located):
    """``SET PASSWORD newsecret``."""

    password: str


@dataclass(frozen=True)
class SetTimezone(_Located):
    """``SET TIMEZONE Europe/Berlin`` (the zone keeps its case; the server checks that it exists)."""

    zone: str


@dataclass(frozen=True)
class SetLanguage(_Located):
    """``SET LANGUAGE ru`` (lower-cased; ``pt_BR`` becomes ``pt-br``)."""

    language: str


@dataclass(frozen=True)
class Help(_Located):
    """``HELP``."""


@dataclass(frozen=True)
class SignOff(_Located):
    """``SIGNOFF``: the message ends here."""


Item = (SignOn | OrderLine | Ready | Clear | Draw | Resign | Press | Join | Observe | ListGames | History | Sandbox
        | SetPassword | SetTimezone | SetLanguage | Help | SignOff)


@dataclass(frozen=True)
class LineProblem(_Located):
    """A line that could not be read, and why (with the valid forms where they help)."""

    reason: str


@dataclass(frozen=True)
class ParsedBody:
    """The items of a message in message order, and the problems ordered by line."""

    items: tuple[Item, ...]
    problems: tuple[LineProblem, ...]


# --- the body -------------------------------------------------------------------------------------------------------

_BREAK = re.compile(r"\r\n|\r|\n")
_NON_SPACE = re.compile(r"\S")
# C0 and C1 control characters except the tab, and the Unicode line and paragraph separators.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_ORIGINAL = re.compile(r"-{2,}\s*(?:original message|исходное сообщение)\s*-{2,}", re.IGNORECASE)
_ATTRIBUTION_VERB = re.compile(r"\b(?:wrote|writes|schrieb|a écrit|пишет|написал|написала|написал\(а\))\s*:\Z",
                               re.IGNORECASE)
_ATTRIBUTION_ADDRESS = re.compile(r"@[^\s<>@]+>\s*:\Z")
_DATE_OR_ADDRESS = re.compile(r"[\d@]")
_EXCERPT = 60


def parse_body(text: str, *, max_lines: int = 400, max_line_length: int = 1000) -> ParsedBody:
    """Read the body of one email: commands and order lines as items, unreadable lines as problems.

    At most ``max_lines`` lines are read (blank and quoted lines count); a line longer than ``max_line_length``
    characters (after stripping) or with control characters in it is a problem, not an item.
    """
    items: list[Item] = []
    problems: list[LineProblem] = []
    block: _Block | None = None
    if text.startswith("\ufeff"):  # a byte-order mark left by the mail client
        text = text[1:]
    for number, start, raw in _lines(text):
        if number > max_lines:
            problem = _beyond_limit(text, start, number, max_lines)
            if problem is not None:
                problems.append(problem)
                if block is not None and block.unreadable is None:  # a block cut short is not sent or run
                    block.unreadable = problem.line
            break
        line = raw.strip()
        unreadable = _unreadable(number, line, max_line_length)
        if unreadable is not None:
            problems.append(unreadable)
            if block is not None and block.unreadable is None:
                block.unreadable = number
            continue
        if _ends_message(line):
            _drop_wrapped_attribution(number, items, block)
            break
        if block is not None:
            if _closes(line, block.end):
                _close(block, items, problems, terminated=True)
                block = None
            else:
                block.body.append((number, raw.rstrip()))
            continue
        if not line or line.startswith(">"):
            continue
        result = _command(number, line)
        if isinstance(result, _Block):
            block = result
            if result.header_problem is not None:
                problems.append(LineProblem(number, line, result.header_problem))
        elif isinstance(result, LineProblem):
            problems.append(result)
        else:
            items.append(result)
        if isinstance(result, (SignOff, LineProblem)) and _first_word(line) == "SIGNOFF":
            break  # even a SIGNOFF with words after it ends the message
    if block is not None:
        _close(block, items, problems, terminated=False)
    problems.sort(key=lambda p: p.line)
    return ParsedBody(tuple(items), tuple(problems))


def _lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(line number, offset of the line in ``text``, the line) for each line, lazily; CRLF, CR and LF all end one."""
    number, start = 0, 0
    for brk in _BREAK.finditer(text):
        number += 1
        yield number, start, text[start:brk.start()]
        start = brk.end()
    if start < len(text):
        yield number + 1, start, text[start:]


def _excerpt(line: str) -> str:
    """A line made safe to quote back in a reply: control characters replaced, cut short when long."""
    line = _CONTROL.sub("\ufffd", line[:_EXCERPT + 1])
    return line if len(line) <= _EXCERPT else line[:_EXCERPT] + "…"


def _unreadable(number: int, line: str, max_line_length: int) -> LineProblem | None:
    if len(line) > max_line_length:
        return LineProblem(number, _excerpt(line), f"this line is longer than {max_line_length} characters and was "
                                                   f"not read; put one order or command on each line")
    if _CONTROL.search(line):
        return LineProblem(number, _excerpt(line), "this line contains control characters (such as NUL) and was not "
                                                   "read; send the message as plain text")
    return None


def _beyond_limit(text: str, start: int, number: int, max_lines: int) -> LineProblem | None:
    """The problem for a message longer than ``max_lines`` lines, on its first non-blank unread line (if any)."""
    found = _NON_SPACE.search(text, start)
    if found is None:
        return None
    gap = text[start:found.start()]
    number += gap.count("\n") + gap.count("\r") - gap.count("\r\n")
    end = _BREAK.search(text, found.start())
    line = text[found.start():end.start() if end else len(text)].strip()
    return LineProblem(number, _excerpt(line), f"the message has more than {max_lines} lines; the judge read the first "
                                               f"{max_lines} and none from here on")


def _ends_message(line: str) -> bool:
    """A signature separator, a quote attribution or an original-message line: nothing from it on is read."""
    if not line or line[0] == ">":
        return False
    if line[0] == "-":
        return line == "--" or _ORIGINAL.fullmatch(line) is not None
    if line[-1] != ":":
        return False
    if _ATTRIBUTION_VERB.search(line):
        return _DATE_OR_ADDRESS.search(line) is not None
    return _ATTRIBUTION_ADDRESS.search(line) is not None


def _drop_wrapped_attribution(number: int, items: list[Item], block: _Block | None) -> None:
    """Mail clients wrap a long attribution: ``On Mon, 30 Nov 2026 at 10:00, Alice <`` / ``alice@x.org> wrote:``.

    The first half, just read as an order line (or a press line), belongs to the attribution.
    """
    if block is not None:
        if block.body and block.body[-1][0] == number - 1 and _starts_with_on(block.body[-1][1].strip()):
            block.body.pop()
    elif items and isinstance(items[-1], OrderLine) and items[-1].line == number - 1:
        if _starts_with_on(items[-1].text):
            items.pop()


def _starts_with_on(line: str) -> bool:
    return line[:3].lower() == "on "


# --- blocks ---------------------------------------------------------------------------------------------------------


@dataclass
class _Block:
    """A PRESS, BROADCAST or SANDBOX block being read (mutable only while it is open)."""

    kind: str  # the word that opened it: PRESS, BROADCAST or SANDBOX
    end: str  # ENDPRESS or ENDSANDBOX
    line: int
    text: str
    to: tuple[str, ...] | None = None
    header_problem: str | None = None  # the opening line was wrong: the block is read but nothing is done
    unreadable: int | None = None  # the first line inside that could not be read
    body: list[tuple[int, str]] = field(default_factory=list)  # (line number, line without trailing whitespace)


def _closes(line: str, end: str) -> bool:
    return len(line) <= 16 and "".join(line.split()).upper() == end


def _close(block: _Block, items: list[Item], problems: list[LineProblem], *, terminated: bool) -> None:
    what = "sandbox" if block.end == "ENDSANDBOX" else "press"
    if not terminated:
        problems.append(LineProblem(block.line, block.text, f"{block.kind} without {block.end}: the {what} ran to the "
                                                            f"end of the message; end it with a line {block.end}"))
    if block.header_problem is not None:
        return
    lines = [body for _, body in block.body]
    while lines and not lines[-1]:
        lines.pop()
    first = next((i for i, body in enumerate(lines) if body), len(lines))
    body = "\n".join(lines[first:])
    not_done = "was not run" if what == "sandbox" else "was not sent"
    if block.unreadable is not None:
        problems.append(LineProblem(block.line, block.text, f"this {what} {not_done} because line {block.unreadable} "
                                                            f"in it could not be read"))
    elif not body:
        problems.append(LineProblem(block.line, block.text, f"this {what} is empty and {not_done}; put the text "
                                                            f"between {block.kind} and {block.end}"))
    elif what == "sandbox":
        items.append(Sandbox(block.line, block.text, body))
    else:
        items.append(Press(block.line, block.text, block.to, body))


# --- commands -------------------------------------------------------------------------------------------------------

_GAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*\Z")
_POWER = re.compile(r"[^\W\d_][\w-]*\Z")
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*\Z")
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*\Z")
_NAME_SEPARATORS = re.compile(r"[\s,;:]+")
_TO = re.compile(r"to\b:?", re.IGNORECASE)

_SIGNON_USAGE = "SIGNON needs a power, a game and a password: SIGNON France mygame secret (or SIGNON Fmygame secret)"
_JOIN_USAGE = ("JOIN needs a game and a password, then the powers you prefer if you like: "
               "JOIN mygame secret France Italy")
_OBSERVE_USAGE = "OBSERVE needs the game: OBSERVE mygame"
_LIST_USAGE = "LIST takes at most a game: LIST (all games) or LIST mygame"
_HISTORY_USAGE = "HISTORY needs a game and may name a phase: HISTORY mygame or HISTORY mygame F1901M"
_DRAW_USAGE = "DRAW takes PROPOSE, ACCEPT or REJECT (or YES, NO): DRAW PROPOSE, DRAW ACCEPT or DRAW REJECT"
_SET_USAGE = ("SET needs what to set and the new value: SET PASSWORD newsecret, SET TIMEZONE Europe/Berlin or "
              "SET LANGUAGE ru")
_PRESS_USAGE = ("PRESS needs the powers it goes to: PRESS TO France, Germany (or BROADCAST for everyone), then the "
               "text, then a line ENDPRESS")

_DRAW_ACTIONS: dict[str, DrawAction] = {"PROPOSE": "propose", "YES": "accept", "ACCEPT": "accept",
                                        "REJECT": "reject", "NO": "reject"}
_BARE: dict[str, Callable[[int, str], Item]] = {
    "READY": lambda n, t: Ready(n, t, True),
    "UNREADY": lambda n, t: Ready(n, t, False),
    "CLEAR": Clear,
    "RESIGN": Resign,
    "SURRENDER": Resign,
    "HELP": Help,
    "SIGNOFF": SignOff,
}


def _first_word(line: str) -> str:
    return line.split(None, 1)[0].upper() if line.strip() else ""


def _command(number: int, line: str) -> Item | LineProblem | _Block:
    """One line outside a block: a command, the start of a block, a problem, or else an order line."""
    parts = line.split(None, 1)
    head, rest = parts[0].upper(), parts[1] if len(parts) > 1 else ""
    args = rest.split()
    if head == "NOT" and args and args[0].upper() == "READY":
        head, args = "NOT READY", args[1:]
    elif head == "END" and len(args) == 1 and args[0].upper() in ("PRESS", "SANDBOX"):
        head, args = "END" + args[0].upper(), []

    def problem(reason: str) -> LineProblem:
        return LineProblem(number, line, reason)

    if head in _BARE or head == "NOT READY":
        if args:
            return problem(f"{head} takes nothing after it: write {head} alone on its line")
        return Ready(number, line, False) if head == "NOT READY" else _BARE[head](number, line)
    if head in ("ENDPRESS", "ENDSANDBOX"):
        opener = "PRESS or BROADCAST" if head == "ENDPRESS" else "SANDBOX"
        return problem(f"{head} without {opener} before it: nothing to end here")
    if head == "PRESS":
        return _press(number, line, rest.strip())
    if head in ("BROADCAST", "SANDBOX"):
        end = "ENDPRESS" if head == "BROADCAST" else "ENDSANDBOX"
        header = f"{head} takes nothing after it: write {head} alone on its line, then the text, then {end}" if args \
            else None
        return _Block(head, end, number, line, header_problem=header)
    parse = _WITH_ARGUMENTS.get(head)
    if parse is None:
        return OrderLine(number, line)
    result = parse(args)
    if isinstance(result, str):
        return problem(result)
    return result(number, line)


def _press(number: int, line: str, rest: str) -> _Block:
    to_word = _TO.match(rest)
    if to_word:
        rest = rest[to_word.end():]
    names = tuple(name for name in _NAME_SEPARATORS.split(rest) if name)
    header = None
    if not names:
        header = f"{_PRESS_USAGE}; this press was not sent"
    else:
        bad = next((name for name in names if not _POWER.match(name)), None)
        if bad is not None:
            header = f"{bad!r} is not a power name; {_PRESS_USAGE}; this press was not sent"
    return _Block("PRESS", "ENDPRESS", number, line, to=names, header_problem=header)


# Each takes the words after the command word and returns a maker of the item (given line number and text) or the
# reason it cannot be read.
_Maker = Callable[[int, str], Item]


def _game(word: str) -> str | None:
    return word.lower() if _GAME.match(word) else None


def _not_a_game(word: str) -> str:
    return f"{word!r} is not a game name: a game name is one word of letters (a-z), digits, - and _"


def _signon(args: list[str]) -> _Maker | str:
    if len(args) == 2:
        joined, password = args
        if len(joined) < 2 or not joined[0].isalpha():
            return _SIGNON_USAGE
        game = _game(joined[1:])
        if game is None:
            return f"{_not_a_game(joined[1:])}; {_SIGNON_USAGE}"
        power = joined[0].upper()
    elif len(args) == 3:
        power, written_game, password = args
        if not _POWER.match(power):
            return f"{power!r} is not a power name; {_SIGNON_USAGE}"
        game = _game(written_game)
        if game is None:
            return f"{_not_a_game(written_game)}; {_SIGNON_USAGE}"
        power = power.upper() if len(power) == 1 else power
    else:
        return _SIGNON_USAGE
    return lambda n, t: SignOn(n, t, power, game, password, len(power) == 1)


def _join(args: list[str]) -> _Maker | str:
    if len(args) < 2:
        return _JOIN_USAGE
    game = _game(args[0])
    if game is None:
        return f"{_not_a_game(args[0])}; {_JOIN_USAGE}"
    password = args[1]
    preferences = tuple(name for name in _NAME_SEPARATORS.split(" ".join(args[2:])) if name)
    bad = next((name for name in preferences if not _POWER.match(name)), None)
    if bad is not None:
        return f"{bad!r} is not a power name; {_JOIN_USAGE}"
    return lambda n, t: Join(n, t, game, password, preferences)


def _observe(args: list[str]) -> _Maker | str:
    if len(args) != 1:
        return _OBSERVE_USAGE
    game = _game(args[0])
    if game is None:
        return _not_a_game(args[0])
    return lambda n, t: Observe(n, t, game)


def _list(args: list[str]) -> _Maker | str:
    if len(args) > 1:
        return _LIST_USAGE
    if not args:
        return lambda n, t: ListGames(n, t, None)
    game = _game(args[0])
    if game is None:
        return _not_a_game(args[0])
    return lambda n, t: ListGames(n, t, game)


def _history(args: list[str]) -> _Maker | str:
    if not 1 <= len(args) <= 2:
        return _HISTORY_USAGE
    game = _game(args[0])
    if game is None:
        return f"{_not_a_game(args[0])}; {_HISTORY_USAGE}"
    phase: str | None = None
    if len(args) == 2:
        try:
            phase = Phase.parse(args[1]).code
        except ValueError as err:
            return f"{err}; {_HISTORY_USAGE}"
    return lambda n, t: History(n, t, game, phase)


def _draw(args: list[str]) -> _Maker | str:
    if not args:
        return lambda n, t: Draw(n, t, "propose")
    action = _DRAW_ACTIONS.get(args[0].upper()) if len(args) == 1 else None
    if action is None:
        return _DRAW_USAGE
    return lambda n, t: Draw(n, t, action)


def _set(args: list[str]) -> _Maker | str:
    what = args[0].upper() if args else ""
    if what not in ("PASSWORD", "TIMEZONE", "LANGUAGE"):
        return _SET_USAGE
    if len(args) != 2:
        examples = {"PASSWORD": "SET PASSWORD newsecret (one word, no spaces)",
                    "TIMEZONE": "SET TIMEZONE Europe/Berlin", "LANGUAGE": "SET LANGUAGE ru"}
        return f"SET {what} needs one value: {examples[what]}"
    value = args[1]
    if what == "PASSWORD":
        return lambda n, t: SetPassword(n, t, value)
    if what == "TIMEZONE":
        if not _ZONE.match(value):
            return f"{value!r} is not a time zone name: write it like Europe/Berlin, America/New_York or UTC"
        return lambda n, t: SetTimezone(n, t, value)
    if not _LANGUAGE.match(value):
        return f"{value!r} is not a language code: write it like en, ru or de"
    language = value.lower().replace("_", "-")
    return lambda n, t: SetLanguage(n, t, language)


_WITH_ARGUMENTS: dict[str, Callable[[list[str]], _Maker | str]] = {
    "SIGNON": _signon,
    "JOIN": _join,
    "OBSERVE": _observe,
    "LIST": _list,
    "HISTORY": _history,
    "DRAW": _draw,
    "SET": _set,
}
