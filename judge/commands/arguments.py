"""The words a command takes, read the same way by every command: power names, game names, phase codes, and the
reason a wrong line gets (the problem, then the command's valid form)."""

from __future__ import annotations

import re
from collections.abc import Callable

from judge.commands.items import Item
from judge.facts import Shade, is_game_name
from judge.rules.words import Reason

POWER = re.compile(r"[^\W\d_][\w-]*\Z")
NAME_SEPARATORS = re.compile(r"[\s,;:]+")
SHADES: dict[str, Shade] = {"GREY": Shade.GREY, "GRAY": Shade.GREY, "WHITE": Shade.WHITE}

# Each command's reader takes the words after the command word and returns a maker of the item (given line number
# and text) or the reason it cannot be read.
Maker = Callable[[int, str], Item]
Parse = Callable[[list[str]], Maker | Reason]


def both(problem: Reason, usage: Reason) -> Reason:
    """A problem with the line, then the command's valid form."""
    return Reason("{problem}; {usage}", problem=problem, usage=usage)


def not_a_power(word: str) -> Reason:
    return Reason("{name} is not a power name", name=repr(word))


def game_word(word: str) -> str | None:
    return word.lower() if is_game_name(word) else None


def not_a_game(word: str) -> Reason:
    return Reason(
        "{name} is not a game name: a game name is one word of letters (a-z), digits, - and _", name=repr(word)
    )


def bad_phase(word: str, why: str) -> Reason:
    """What the rules engine says of a phase code it cannot read, as a sentence the reply can word."""
    if "is not like" in why:
        return Reason("phase {code} is not like S1901M, F1901R or W1901A", code=repr(word))
    return Reason(
        "phase {code}: adjustments happen in Winter, movement and retreats in Spring and Fall", code=repr(word)
    )
