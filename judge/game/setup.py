"""Setting a game up: creating it, seating players and observers, assigning powers and starting it.

Every function works inside the caller's transaction and takes ``now`` from the caller: nothing here reads the clock."""

from __future__ import annotations

import difflib
import json
import random
from datetime import datetime

from sqlite_utils import Database

from judge.facts import MAX_GAME_NAME_LENGTH, MIN_PASSWORD_LENGTH, Assignment, Bots, is_game_name
from judge.game import notices
from judge.game.absences import clear_of_absences
from judge.game.bot_seats import fill_seats
from judge.game.lookup import GameError, get_game, no_such_power, unknown_variant
from judge.game.master_notices import game_filled, joined
from judge.game.passwords import hash_password
from judge.game.ports import load_variant
from judge.game.records import (
    Game,
    Player,
    insert_game,
    insert_player,
    load_game,
    log_event,
    players,
    save_game,
    save_player,
)
from judge.game.settings import GameSettings
from judge.game.track_record import refuse_unreliable
from judge.i18n import T, sentences
from judge.store.events import EventKind
from judge.store.statuses import GameStatus, Role


def create_game(
    db: Database, name: str, variant_name: str, settings: GameSettings, now: datetime, sender: str = "master"
) -> Game:
    key = name.strip().lower()
    if not is_game_name(key):
        raise GameError(
            T(
                "a game name is 1 to {count} letters, digits, '-' or '_', starting with a letter or digit",
                count=MAX_GAME_NAME_LENGTH,
            )
        )
    if load_game(db, key) is not None:
        raise GameError(T("a game called {name} already exists", name=repr(key)))
    try:
        variant = load_variant(variant_name)
    except KeyError as exc:
        raise GameError(unknown_variant(exc)) from None
    problems = settings.check(variant)
    if problems:
        raise GameError(sentences(problems))
    game = insert_game(db, key, variant, settings, now)
    log_event(
        db, game.id, now, sender, EventKind.CREATE, {"variant": variant.key, "settings": json.loads(settings.to_json())}
    )
    return game


def join_game(
    db: Database,
    name: str,
    email: str,
    password: str,
    now: datetime,
    *,
    power: str | None = None,
    preferences: tuple[str, ...] = (),
    sender: str | None = None,
) -> Player:
    """Seat a player in a forming game (by the master with a power, or by mail with preferences)."""
    game = get_game(db, name)
    if game.status != GameStatus.FORMING:
        raise GameError(T("game {game} has already started; ask the game master to replace a player", game=game.name))
    if not password or len(password) < MIN_PASSWORD_LENGTH:
        raise GameError(T("choose a password of at least {count} characters", count=MIN_PASSWORD_LENGTH))
    seated = [p for p in players(db, game.id) if p.role == Role.PLAYER]
    if any(p.email == email.lower() for p in seated) and not game.settings.shared_addresses:
        raise GameError(T("{address} has already joined {game}", address=email, game=game.name))
    if len(seated) >= len(game.variant.powers):
        raise GameError(T("{game} is full ({count} players)", game=game.name, count=len(game.variant.powers)))
    if power is not None:
        found = game.variant.power_named(power)
        if found is None:
            raise GameError(no_such_power(game, power))
        if any(p.power == found for p in seated):
            raise GameError(T("{power} is already taken in {game}", power=game.variant.power(found), game=game.name))
        power = found
    _check_preferences(game, preferences)
    if sender != "master":  # the game master seats whom he chooses
        refuse_unreliable(db, game, email)
    prefs = [p for p in (game.variant.power_named(x) for x in preferences) if p]
    player = Player(0, game.id, power, email.lower(), hash_password(password), preferences=prefs)
    insert_player(db, player, now)
    log_event(db, game.id, now, sender or email, EventKind.JOIN, {"email": email.lower(), "power": power})
    if sender != "master":
        joined(db, game, email.lower(), power, now)
    if len(seated) + 1 == len(game.variant.powers):
        game_filled(db, game, now)
    return [p for p in players(db, game.id) if p.email == email.lower() and p.role == Role.PLAYER][-1]


def _check_preferences(game: Game, preferences: tuple[str, ...]) -> None:
    """Every power a JOIN prefers must be one of the variant's."""
    unknown = [x for x in preferences if game.variant.power_named(x) is None]
    if unknown:  # a typo ('Frnace') is an error, not a silently dropped wish
        near = difflib.get_close_matches(unknown[0].lower(), [p.lower() for p in game.variant.powers], n=1, cutoff=0.5)
        named = {p.lower(): p for p in game.variant.powers}
        if near:
            raise GameError(
                T(
                    "{variant} has no power {name}; did you mean {power}? Nothing was changed; send JOIN again",
                    variant=game.variant.name,
                    name=repr(unknown[0]),
                    power=T(named[near[0]]),
                )
            )
        raise GameError(
            T(
                "{variant} has no power {name}; it has {powers}. Nothing was changed; send JOIN again",
                variant=game.variant.name,
                name=repr(unknown[0]),
                powers=[game.variant.power(p) for p in game.variant.powers],
            )
        )


def observe_game(db: Database, name: str, email: str, now: datetime) -> None:
    game = get_game(db, name)
    if any(p.email == email.lower() for p in players(db, game.id)):
        return
    insert_player(db, Player(0, game.id, None, email.lower(), "", role=Role.OBSERVER), now)
    log_event(db, game.id, now, email, EventKind.OBSERVE, None)


def start_game(db: Database, name: str, now: datetime, rng: random.Random, sender: str = "master") -> Game:
    game = get_game(db, name)
    if game.status != GameStatus.FORMING:
        raise GameError(T("game {game} is not forming (it is {status})", game=game.name, status=T(game.status)))
    seated = [p for p in players(db, game.id) if p.role == Role.PLAYER]
    powers = list(game.variant.powers)
    fill = game.settings.bots is Bots.FILL and 0 < len(seated) < len(powers)
    if len(seated) != len(powers) and not fill:
        raise GameError(
            T("{game} needs {count} players and has {seated}", game=game.name, count=len(powers), seated=len(seated))
        )
    _assign_powers(seated, powers, game.settings.assignment, rng)
    for p in seated:
        save_player(db, p)
    if fill:
        fill_seats(db, game, now)
    variant = game.variant
    game.position = variant.start_position()
    game.status = GameStatus.ACTIVE
    game.deadline = clear_of_absences(db, game, now + game.settings.deadline_for(game.position.phase.step))
    save_game(db, game, now)
    log_event(db, game.id, now, sender, EventKind.START, {p.power: p.email for p in seated})
    notices.game_started(db, game, players(db, game.id), now)
    return game


def _assign_powers(seated: list[Player], powers: list[str], how: Assignment, rng: random.Random) -> None:
    free = [p for p in powers if p not in {s.power for s in seated}]
    waiting = [s for s in seated if s.power is None]
    if how is Assignment.MASTER and waiting:
        raise GameError(
            T(
                "the game master assigns powers, and these players have none yet: {addresses}",
                addresses=[s.email for s in waiting],
            )
        )
    rng.shuffle(waiting)
    if how is Assignment.PREFERENCE:
        for s in waiting:
            wanted = [p for p in s.preferences if p in free]
            if wanted:
                s.power = wanted[0]
                free.remove(wanted[0])
    rng.shuffle(free)
    for s in waiting:
        if s.power is None:
            s.power = free.pop()
