"""The game master by mail: a game's master password, who may create a game by mail, and CREATE itself.

The master password is hashed as the players' are (judge.game.passwords) and never logged. It is set when a game is
created by mail (CREATE: the sender becomes the game master), or by the host (``judge game master-password``). The
commands the game master sends after ``MASTER <game> <password>`` call the same functions as the command line
(judge.game.master, judge.game.controls, judge.game.adjudication), with the same rules.

Every function works inside the caller's transaction and takes ``now`` from the caller.
"""

from __future__ import annotations

import re
from datetime import datetime

from sqlite_utils import Database

from judge.facts import MIN_PASSWORD_LENGTH
from judge.game.lookup import GameError, get_game, unknown_variant
from judge.game.passwords import hash_password
from judge.game.ports import load_variant
from judge.game.records import Game, log_event
from judge.game.setting_changes import settings_from_options
from judge.game.setup import create_game
from judge.i18n import T
from judge.store import master_rows
from judge.store.events import EventKind
from judge.timeutil import iso_utc

MASTER_SEAT = "(master)"  # failed master sign-ons are counted under this name beside the game's powers
_VARIANT_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}\Z")


def set_master_password(db: Database, name: str, password: str, now: datetime, sender: str = "master") -> Game:
    """Set (or change) the game master's password of a game; only the fact is logged."""
    game = get_game(db, name)
    if len(password) < MIN_PASSWORD_LENGTH:
        raise GameError(T("choose a password of at least {count} characters", count=MIN_PASSWORD_LENGTH))
    master_rows.set_master_password_hash(db, game.id, hash_password(password), iso_utc(now))
    log_event(db, game.id, now, sender, EventKind.MASTER_PASSWORD, None)
    return game


def master_hash(db: Database, game: Game) -> str:
    """The stored hash of the game's master password ("" when none is set: nobody signs on as its master)."""
    return master_rows.master_password_hash(db, game.id)


def may_create(policy: str, sender: str) -> bool:
    """Whether ``sender`` may create a game by mail under ``[judge] create_by_mail``: ``anyone``, ``nobody``, or
    addresses (and ``@domain`` entries) separated by commas or spaces."""
    words = [w.lower() for w in re.split(r"[\s,;]+", policy.strip()) if w]
    if words == ["anyone"]:
        return True
    address = sender.strip().lower()
    domain = "@" + address.rpartition("@")[2]
    return any(w == address or (w.startswith("@") and w == domain) for w in words)


def create_by_mail(
    db: Database,
    name: str,
    password: str,
    options: tuple[tuple[str, str | None], ...],
    sender: str,
    now: datetime,
) -> Game:
    """CREATE: a forming game with the options' settings (the checks of ``judge game create``), the sender its game
    master with ``password``."""
    if not may_create(master_rows.create_by_mail_policy(db), sender):
        raise GameError(T("this judge does not take new games by mail from {address}", address=sender))
    if len(password) < MIN_PASSWORD_LENGTH:
        raise GameError(T("choose a password of at least {count} characters", count=MIN_PASSWORD_LENGTH))
    variant_name = "classic"
    rest = []
    for key, value in options:
        if key.strip().lstrip("-").lower() == "variant":
            if value is None or not _VARIANT_NAME.match(value.lower()):
                raise GameError(T("variant=NAME names a variant of this judge, e.g. variant=classic"))
            variant_name = value.lower()
        else:
            rest.append((key, value))
    try:
        variant = load_variant(variant_name)
    except KeyError as exc:
        raise GameError(unknown_variant(exc)) from None
    settings = settings_from_options(variant, tuple(rest), sender.strip().lower())
    game = create_game(db, name, variant_name, settings, now, sender)
    master_rows.set_master_password_hash(db, game.id, hash_password(password), iso_utc(now))
    log_event(db, game.id, now, sender, EventKind.MASTER_PASSWORD, None)
    return game
