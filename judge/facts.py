"""Facts of the judge that more than one part of it needs: each is written here once and imported everywhere.

Only plain values (no behaviour, no imports of the judge's own packages; the languages are the catalogs found), so
that every layer may import them.
"""

from __future__ import annotations

import re
from datetime import timedelta
from enum import StrEnum
from pathlib import Path

# The languages the judge speaks: English (the templates' own words) and each catalog
# judge/i18n/locale/<language>/LC_MESSAGES/judge.po (a language is its catalog and nothing else); the first ones in
# the order they came, any other after them alphabetically.
_CATALOGS = sorted(
    p.parent.parent.name for p in (Path(__file__).parent / "i18n" / "locale").glob("*/LC_MESSAGES/judge.po")
)
LANGUAGES: tuple[str, ...] = tuple(dict.fromkeys(["en", *(c for c in ("ru", "de") if c in _CATALOGS), *_CATALOGS]))


class PressKind(StrEnum):
    """Press a game allows (each message chooses in a game that allows both: white unless the player says GREY or
    SET PRESS GREY). An anonymous game's press is always grey."""

    WHITE = "white"  # signed
    GREY = "grey"  # the sender is hidden
    BOTH = "both"
    NONE = "none"


class Shade(StrEnum):
    """Whether one message of press names its sender (``PRESS TO EG GREY``, ``SET PRESS WHITE``)."""

    WHITE = "white"  # signed
    GREY = "grey"  # without the sender's name


class Assignment(StrEnum):
    """How powers are given out at the start of a game."""

    MASTER = "master"  # the game master assigns each
    PREFERENCE = "preference"  # the players' preferences (JOIN … France Italy), then at random
    RANDOM = "random"


# The shortest password a player may choose (JOIN, SET PASSWORD, the game master's seat and replace commands).
MIN_PASSWORD_LENGTH = 4
RECORD_GAMES = 10  # a player's reliability counts the deadlines of his latest games, this many
RECORD_MIN_DEADLINES = 5  # a record of fewer deadlines owed is too short to judge: nobody is refused for it

# A game's name: one word of letters, digits, - and _, starting with a letter or digit, at most 40 characters.
MAX_GAME_NAME_LENGTH = 40
GAME_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{MAX_GAME_NAME_LENGTH - 1}}}\Z")

# Answers to one address per hour (a mail loop stops here), and the age past which mail is not acted on: the
# defaults of [judge] max_replies_per_hour and max_mail_age_days.
MAX_REPLIES_PER_HOUR = 30
MAX_MAIL_AGE_DAYS = 7

# The longest deadline (a phase's length, or how far away a deadline may be set).
MAX_DEADLINE_DAYS = 60
MAX_DEADLINE = timedelta(days=MAX_DEADLINE_DAYS)


def archive_page(game: str, language: str) -> str:
    """Where a game's page in ``language`` is in the public archive (``[web] dir``, docs/web.md), relative to its top:
    ``g/`` (``g/index.html``, English), ``g/index.ru.html``."""
    return f"{game}/" if language == "en" else f"{game}/index.{language}.html"


def is_game_name(text: str) -> bool:
    """Whether ``text`` is a valid game name (in any case; games are stored lower-cased)."""
    return GAME_NAME.match(text) is not None


class Resolve(StrEnum):
    """When a phase is adjudicated before its deadline."""

    READY = "ready"  # when every player who owes orders has said READY (seed 001)
    ORDERS_IN = "orders-in"  # as soon as every power that owes orders has a complete set in, unless a player waits


class Auth(StrEnum):
    """Which mail may act for a seat of the game (issue #20)."""

    ANY = "any"  # the seat's password, or a signature by the seat's registered OpenPGP key
    KEY = "key"  # only mail signed by the seat's key (a password sign-on may register the key, nothing else)


class Bots(StrEnum):
    """Where a game lets the stand-in bot (judge.bots) play a power nobody plays."""

    NONE = "none"  # never: a power in civil disorder holds, disbands and removes by the rules' civil disorder
    CD = "cd"  # the bot plays every power in civil disorder until someone takes it over
    FILL = "fill"  # as cd, and the game starts with bots in the seats nobody joined (a practice game)


# the address of a seat the bot fills (``germany@bot.invalid``): the reserved .invalid domain, never mailed
BOT_DOMAIN = "bot.invalid"


def is_bot_address(address: str) -> bool:
    return address.lower().endswith("@" + BOT_DOMAIN)


class Takeover(StrEnum):
    """How a power in civil disorder gets a new player (TAKEOVER by mail)."""

    OPEN = "open"  # at once, for whoever asks first
    APPROVE = "approve"  # when the game master approves (APPROVE <power> by mail, or judge game approve)


# The organizer of a calendar invitation queued before ``judge serve`` ever recorded the judge's address
# (judge.reports.outbox); the SMTP side puts the address it sends from in its place (judge.transport.smtp).
PLACEHOLDER_ORGANIZER = "judge@judge.invalid"
