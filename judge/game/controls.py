"""The game master's basic controls of a running game: pause, resume, rollback to an earlier phase, and handing a
seat to another address."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from sqlite_utils import Database

from judge.game import notices
from judge.game.absences import clear_of_absences
from judge.game.duties import has_presence
from judge.game.lookup import GameError, Unchanged, get_game
from judge.game.passwords import hash_password
from judge.game.records import (
    Game,
    Player,
    log_event,
    players,
    save_game,
    save_player,
)
from judge.i18n import T
from judge.rules.position_json import position_from_json
from judge.store import draw_votes
from judge.store.absence_rows import drop_player_absences
from judge.store.events import EventKind
from judge.store.future_rows import drop_game_future_lines
from judge.store.master_rows import lapse_takeovers
from judge.store.phases import discard_phases_from
from judge.store.statuses import GameStatus, Role
from judge.timeutil import iso_utc


def pause_game(db: Database, name: str, now: datetime, sender: str = "master") -> Game:
    game = get_game(db, name)
    if game.status == GameStatus.PAUSED:
        raise Unchanged(T("game {game} is paused already", game=game.name))
    if game.status != GameStatus.ACTIVE:
        raise GameError(T("game {game} is {status}, not active", game=game.name, status=T(game.status)))
    game.paused_remaining = max(0, int((game.deadline - now).total_seconds())) if game.deadline else 0
    game.status, game.deadline = GameStatus.PAUSED, None
    save_game(db, game, now)
    log_event(db, game.id, now, sender, EventKind.PAUSE, None)
    notices.announce(db, game, players(db, game.id), now, notices.Announcement.PAUSED)
    return game


def resume_game(db: Database, name: str, now: datetime, sender: str = "master") -> Game:
    game = get_game(db, name)
    if game.status == GameStatus.ACTIVE:
        raise Unchanged(T("game {game} is running already", game=game.name))
    if game.status != GameStatus.PAUSED:
        raise GameError(T("game {game} is {status}, not paused", game=game.name, status=T(game.status)))
    game.status = GameStatus.ACTIVE
    game.deadline = clear_of_absences(db, game, now + timedelta(seconds=max(game.paused_remaining or 0, 3600)))
    game.paused_remaining = None
    save_game(db, game, now)
    log_event(db, game.id, now, sender, EventKind.RESUME, None)
    notices.announce(db, game, players(db, game.id), now, notices.Announcement.RESUMED)
    return game


def replace_player(
    db: Database, name: str, power: str, email: str, password: str, now: datetime, sender: str = "master"
) -> Player:
    game = get_game(db, name)
    found = game.variant.power_named(power)
    seat = next((p for p in players(db, game.id) if p.role == Role.PLAYER and p.power == found), None)
    if seat is None:
        raise GameError(
            T(
                "nobody plays {power} in {game}",
                power=game.variant.power(found) if found else repr(power),
                game=game.name,
            )
        )
    return give_seat(db, game, seat, email, hash_password(password), now, sender)


def give_seat(
    db: Database, game: Game, seat: Player, email: str, password_hash: str, now: datetime, sender: str
) -> Player:
    """Hand ``seat`` to ``email`` with the (hashed) password: the seat plays again; requests to take it over lapse."""
    old = seat.email
    seat.email, seat.password_hash, seat.resigned = email.lower(), password_hash, False
    seat.wait = False  # SET WAIT, absences, reminders and SET CALENDAR were the old player's
    seat.reminders, seat.calendar = None, True
    drop_player_absences(db, seat.id)
    save_player(db, seat)
    lapse_takeovers(db, game.id, seat.power or "", iso_utc(now))
    log_event(db, game.id, now, sender, EventKind.REPLACE, {"power": seat.power, "from": old, "to": email.lower()})
    return seat


def may_hold(db: Database, game: Game, seat: Player, email: str) -> str:
    """The address (lower case) that may take ``seat`` over: a mail address, not the seat's own, and holding no
    other power of the game unless the game allows shared addresses."""
    address = email.strip().lower()
    if "@" not in address:
        raise GameError(T("{address} is not a mail address", address=repr(email)))
    if seat.email == address and not seat.resigned:
        raise GameError(
            T(
                "{address} already plays {power} in {game}",
                address=address,
                power=game.variant.power(seat.power or ""),
                game=game.name,
            )
        )
    others = [p.power for p in players(db, game.id) if p.role == Role.PLAYER and p.email == address and p.id != seat.id]
    if others and not game.settings.shared_addresses:
        raise GameError(
            T(
                "{address} already plays {powers} in {game}; one address holds two powers only where the game "
                "allows it (judge game settings {game} shared_addresses true)",
                address=address,
                powers=[T(str(p)) for p in others],
                game=game.name,
            )
        )
    return address


def rollback_game(db: Database, name: str, phase_code: str, now: datetime, sender: str = "master") -> Game:
    """Return the game to the start of an earlier phase; later phases and their orders are discarded (logged)."""
    game = get_game(db, name)
    code = phase_code.strip().upper()
    discarded = discard_phases_from(db, game.id, code)
    if discarded is None:
        raise GameError(T("{game} has no played phase {phase}", game=game.name, phase=code))
    board_before, later = discarded
    draw_votes.lapse_open(db, game.id)
    drop_game_future_lines(db, game.id)  # orders kept for later phases were given for a course the game no longer takes
    game.position = position_from_json(game.variant, json.loads(board_before))
    game.status, game.result, game.in_grace = GameStatus.ACTIVE, None, False
    game.deadline = clear_of_absences(db, game, now + game.settings.deadline_for(game.position.phase.step))
    for p in players(db, game.id):
        p.ready = False
        p.eliminated = p.eliminated and not has_presence(game.position, p.power)
        save_player(db, p)
    save_game(db, game, now)
    log_event(db, game.id, now, sender, EventKind.ROLLBACK, {"to": code, "discarded": later})
    notices.announce(db, game, players(db, game.id), now, notices.Announcement.ROLLED_BACK)
    return game
