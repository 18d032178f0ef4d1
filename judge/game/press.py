"""Press between powers (``PRESS TO``, ``BROADCAST``), postal press (published with the next results), diaries (kept
until the game ends) and a player's own choice of white or grey press.

White press names its sender; grey press does not. A game allows ``white``, ``grey``, ``both`` (each message
chooses: ``PRESS TO EG GREY``, else the player's ``SET PRESS``, else white) or ``none``. An anonymous game's press is
always grey, whatever its setting says. Recipients are named by power names or initials (``EG``), or ``ALL``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlite_utils import Database

from judge.facts import PressKind, Shade
from judge.game.lookup import GameError
from judge.game.notices import ANONYMOUS_SENDER, Notice, NoticeKind, post
from judge.game.records import Game, Player, log_event, players
from judge.i18n import T, Text
from judge.rules.variant import Variant
from judge.store import press_rows
from judge.store.events import EventKind
from judge.store.statuses import PLAYING, Role
from judge.timeutil import iso_utc

EVERYONE = "everyone"


def powers_named(variant: Variant, names: Sequence[str]) -> list[str]:
    """The powers ``names`` stand for, in the order written, each once: full names in any case, or a word of
    initials (``EG`` is England and Germany) where each initial belongs to one power only. A word that is neither
    is refused with the variant's powers."""
    out: list[str] = []
    for name in names:
        found = variant.power_named(name)
        found_list = [found] if found is not None else _initials(variant, name)
        if not found_list:
            raise GameError(
                T(
                    "{variant} has no power {name}; it has {powers}",
                    variant=variant.name,
                    name=repr(name),
                    powers=[variant.power(p) for p in variant.powers],
                )
            )
        out += [p for p in found_list if p not in out]
    return out


def _initials(variant: Variant, word: str) -> list[str]:
    """The powers a word of initials names (``EG``), or [] when a letter names no power or several."""
    by_letter: dict[str, list[str]] = {}
    for power in variant.powers:
        by_letter.setdefault(power[0].upper(), []).append(power)
    if not word.isalpha() or len(word) > len(variant.powers):
        return []
    letters = [by_letter.get(letter.upper(), []) for letter in word]
    if any(len(powers) != 1 for powers in letters):
        return []
    return [powers[0] for powers in letters]


def shade_of(db: Database, game: Game, player: Player, asked: Shade | None) -> Shade:
    """The shade a message goes in: the game's rule (grey in an anonymous game), or in a game allowing both what
    the message asks, else the player's SET PRESS, else white. Asking for a shade the game does not allow is refused."""
    kind = game.settings.press
    if kind is PressKind.NONE:
        raise GameError(T("game {game} has no press", game=game.name))
    if game.settings.anonymous:
        if asked == Shade.WHITE:
            raise GameError(T("game {game} is anonymous: its press is always grey (without your name)", game=game.name))
        return Shade.GREY
    if kind is PressKind.BOTH:
        chosen = asked or press_rows.press_shade(db, player.id) or Shade.WHITE
        return Shade(chosen)
    only = Shade(kind)  # the game's one shade
    if asked is not None and asked != only:
        raise GameError(T("game {game} allows only {shade} press", game=game.name, shade=T(kind)))
    return only


def send_press(
    db: Database,
    game: Game,
    player: Player,
    to: Sequence[str] | None,
    asked: Shade | None,
    body: str,
    now: datetime,
) -> Text:
    """PRESS TO … / BROADCAST: the press mailed at once to the powers named (None: everyone in the game, observers
    too); the answer for the sender's reply. Nothing is sent when a name or the shade is wrong."""
    shade = shade_of(db, game, player, asked)
    seats = players(db, game.id)
    wanted = powers_named(game.variant, to) if to is not None else []
    if to is None:
        recipients = [p.email for p in seats]
    else:
        recipients = [p.email for p in seats if p.power in wanted and p.role == Role.PLAYER]
    recipients = [a for a in dict.fromkeys(recipients) if a != player.email]
    to_label = ", ".join(wanted) if to is not None else EVERYONE
    sender = ANONYMOUS_SENDER if shade is Shade.GREY else player.power
    facts = {"sender": sender, "to_label": to_label, "body": body}
    post(db, [Notice(address, NoticeKind.PRESS, game, facts) for address in recipients], now)
    detail = {"from": player.power, "to": to_label, "grey": shade is Shade.GREY, "body": body}
    log_event(db, game.id, now, player.email, EventKind.PRESS, detail)
    told = [game.variant.power(p) for p in wanted] if to is not None else [T("everyone")]
    if shade is Shade.GREY:
        return T("press sent to {to} without your name (grey press)", to=told)
    return T("press sent to {to}", to=told)


def keep_postal_press(db: Database, game: Game, player: Player, asked: Shade | None, body: str, now: datetime) -> Text:
    """POSTAL PRESS … ENDPRESS: kept, and published to everyone with the next results mail (or the game-over mail)."""
    shade = shade_of(db, game, player, asked)
    _running(game)
    assert game.position is not None
    press_rows.add_postal(
        db, game.id, player.power or "", shade is Shade.GREY, game.position.phase.code, body, iso_utc(now)
    )
    log_event(db, game.id, now, player.email, EventKind.PRESS, {"from": player.power, "postal": True, "body": body})
    if shade is Shade.GREY:
        return T("postal press kept without your name; it is published to everyone with the next results")
    return T("postal press kept; it is published to everyone with the next results")


def write_diary(db: Database, game: Game, player: Player, body: str, now: datetime) -> Text:
    """DIARY … ENDDIARY: kept private until the game ends, then mailed to everyone with the game-over mail."""
    _running(game)
    assert game.position is not None
    press_rows.add_diary(db, game.id, player.power or "", game.position.phase.code, body, iso_utc(now))
    count = press_rows.diary_count(db, game.id, player.power or "")
    return T(
        "diary entry kept ({count} so far); nobody reads it before the game ends, then everyone gets the diaries",
        count=count,
    )


def set_press_shade(db: Database, game: Game, player: Player, shade: Shade) -> Text:
    """SET PRESS GREY / WHITE: the player's default in a game that allows both."""
    if game.settings.press is not PressKind.BOTH or game.settings.anonymous:
        kind = (
            PressKind.GREY
            if game.settings.anonymous and game.settings.press is not PressKind.NONE
            else game.settings.press
        )
        raise GameError(
            T("game {game} has no press", game=game.name)
            if kind is PressKind.NONE
            else T("game {game} allows only {shade} press", game=game.name, shade=T(kind))
        )
    press_rows.set_press_shade(db, player.id, shade.value)
    if shade == Shade.GREY:
        return T("your press in {game} goes without your name unless a message says WHITE", game=game.name)
    return T("your press in {game} is signed unless a message says GREY", game=game.name)


def _running(game: Game) -> None:
    if game.status not in PLAYING or game.position is None:
        raise GameError(T("game {game} is {status}: it is not running", game=game.name, status=T(game.status)))
