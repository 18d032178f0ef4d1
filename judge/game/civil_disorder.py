"""Civil disorder and takeover: a power whose player misses ``abandon_after`` deadlines in a row is abandoned (civil
disorder: its units hold, its retreats disband, its removals follow the rules' civil-disorder rule, and it is not
waited for); anyone may ask to take over a power in civil disorder (TAKEOVER), at once or, where the game's
``takeover`` setting says ``approve``, when the game master approves.

A power is in civil disorder when its player resigned, was ejected by the game master or abandoned it, and it is not
eliminated. Taking it over gives the seat to the new address with the password it chose; the player is mailed the
start mail of the game for the current phase, and the game (players and game master) is told.

Like the rest of the game server, every function works inside the caller's transaction and takes ``now`` from it.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from enum import Enum

from sqlite_utils import Database

from judge.facts import MIN_PASSWORD_LENGTH
from judge.game import notices
from judge.game.controls import give_seat, may_hold
from judge.game.duties import owing_powers
from judge.game.lookup import GameError, get_game, no_such_power
from judge.game.notices import Notice, NoticeKind, post, tell
from judge.game.passwords import hash_password
from judge.game.records import Game, Player, log_event, players, save_player
from judge.game.settings import Takeover
from judge.game.track_record import count_excused, count_leaving, excused_so_far, record_lines, refuse_unreliable
from judge.i18n import T
from judge.rules.board import Position
from judge.rules.position_json import position_from_json
from judge.store import master_rows
from judge.store.events import EventKind, events_of
from judge.store.phases import played_phases
from judge.store.statuses import PLAYING, GameStatus, Role
from judge.timeutil import iso_utc


class TakeoverOutcome(Enum):
    TAKEN = "taken"  # the power is the new player's now
    ASKED = "asked"  # the game master decides


def in_civil_disorder(seat: Player) -> bool:
    """A power whose player resigned, was ejected or abandoned it, and that is still in the game."""
    return seat.role == Role.PLAYER and seat.power is not None and seat.resigned and not seat.eliminated


def missed_in_a_row(db: Database, game: Game, power: str, enough: int) -> int:
    """Deadlines in a row, up to the last adjudicated phase, at which ``power`` owed orders and gave none (counted up
    to ``enough`` + 1; a new player, by REPLACE or TAKEOVER, starts with a clean slate). A miss the game excused
    (``excuses``) neither counts nor breaks the row."""
    missed = 0
    taken_over = ""
    for at, detail in events_of(db, game.id, EventKind.REPLACE):
        if (detail or {}).get("power") == power:
            taken_over = max(taken_over, at)
    excused = {
        (detail or {}).get("phase")
        for _at, detail in events_of(db, game.id, EventKind.EXCUSED)
        if (detail or {}).get("power") == power
    }
    for row in played_phases(db, game.id, latest_first=True):
        if taken_over and row["adjudicated_at"] <= taken_over:
            break
        if row["phase"] in excused:
            continue
        pos = position_from_json(game.variant, json.loads(row["board_before"]))
        if power not in owing_powers(dataclasses.replace(game, position=pos)):
            continue
        if json.loads(row["orders"] or "{}").get(power):
            break
        missed += 1
        if missed > enough:
            break
    return missed


def excuse_misses(db: Database, game: Game, before: Position, submitted: dict[str, list[str]], now: datetime) -> None:
    """After an adjudication, in a game with ``excuses``: each player who owed orders and gave none, and has an excuse
    left in this game, is excused the miss (it counts toward neither abandon_after nor the game master's warning,
    though his record still shows it as missed); he is told how many excuses are left."""
    allowed = game.settings.excuses
    if not allowed or game.status != GameStatus.ACTIVE:
        return
    owed = owing_powers(dataclasses.replace(game, position=before))
    for seat in players(db, game.id):
        if not seat.active or seat.power not in owed or submitted.get(seat.power):
            continue
        used = excused_so_far(db, game, seat)
        if used >= allowed:
            continue
        count_excused(db, game, seat, now)
        detail = {"power": seat.power, "phase": before.phase.code, "email": seat.email}
        log_event(db, game.id, now, "judge", EventKind.EXCUSED, detail)
        tell(
            db,
            seat.email,
            NoticeKind.CIVIL_DISORDER,
            now,
            game,
            what="excused",
            power=seat.power,
            email=seat.email,
            count=allowed - used - 1,
            limit=game.settings.missed_limit(),
        )


def abandon_silent(db: Database, game: Game, before: Position, submitted: dict[str, list[str]], now: datetime) -> None:
    """After an adjudication: each player who owed orders, gave none and has now missed ``abandon_after`` deadlines
    in a row (excused misses left out; with ``excuses`` alone, the first miss not excused) loses the power to civil
    disorder; the game (players and game master) is told."""
    limit = game.settings.missed_limit()
    if not limit or game.status != GameStatus.ACTIVE:
        return
    owed = owing_powers(dataclasses.replace(game, position=before))
    seats = players(db, game.id)
    for seat in seats:
        if not seat.active or seat.power not in owed or submitted.get(seat.power):
            continue
        if missed_in_a_row(db, game, seat.power, limit) < limit:
            continue
        seat.resigned, seat.ready = True, False
        save_player(db, seat)
        count_leaving(db, game, seat, "abandoned", now)
        log_event(db, game.id, now, "judge", EventKind.ABANDONED, {"power": seat.power, "missed": limit})
        _tell_game(db, game, seats, now, "abandoned", seat.power, count=limit)


def _tell_game(
    db: Database, game: Game, seats: list[Player], now: datetime, what: str, power: str, **facts: object
) -> None:
    post(
        db,
        [
            Notice(to, NoticeKind.CIVIL_DISORDER, game, {"what": what, "power": power, "email": "", **facts})
            for to in notices.everyone(game, seats)
        ],
        now,
    )


def _disorderly_seat(db: Database, game: Game, power: str) -> Player:
    if game.status not in PLAYING:
        raise GameError(
            T("game {game} has not started: join it instead (JOIN)", game=game.name)
            if game.status == GameStatus.FORMING
            else T("game {game} is over", game=game.name)
        )
    found = game.variant.power_named(power)
    if found is None:
        raise GameError(no_such_power(game, power))
    seat = next((p for p in players(db, game.id) if p.role == Role.PLAYER and p.power == found), None)
    if seat is None or not in_civil_disorder(seat):
        raise GameError(
            T("{power} is not in civil disorder in {game}", power=game.variant.power(found), game=game.name)
        )
    return seat


def takeover(db: Database, name: str, power: str, email: str, password: str, now: datetime) -> TakeoverOutcome:
    """TAKEOVER: give a power in civil disorder to ``email`` at once, or ask the game master (takeover = approve)."""
    game = get_game(db, name)
    seat = _disorderly_seat(db, game, power)
    refuse_unreliable(db, game, email)
    try:
        address = may_hold(db, game, seat, email)
    except GameError:
        raise GameError(T("{address} already plays a power in {game}", address=email.lower(), game=game.name)) from None
    if len(password) < MIN_PASSWORD_LENGTH:
        raise GameError(T("choose a password of at least {count} characters", count=MIN_PASSWORD_LENGTH))
    power_name = seat.power or ""
    if game.settings.takeover is Takeover.APPROVE and game.settings.master:
        if master_rows.open_takeover(db, game.id, power_name) is not None:
            raise GameError(
                T(
                    "someone has already asked to take over {power}; the game master decides",
                    power=game.variant.power(power_name),
                )
            )
        master_rows.ask_takeover(db, game.id, power_name, address, hash_password(password), iso_utc(now))
        log_event(db, game.id, now, address, EventKind.TAKEOVER_ASKED, {"power": power_name, "email": address})
        tell(
            db,
            game.settings.master,
            NoticeKind.CIVIL_DISORDER,
            now,
            game,
            what="takeover_asked",
            power=power_name,
            email=address,
            record=record_lines(db, address),
        )
        return TakeoverOutcome.ASKED
    _hand_over(db, game, seat, address, hash_password(password), now, address)
    return TakeoverOutcome.TAKEN


def decide(db: Database, name: str, power: str, approve: bool, now: datetime, sender: str = "master") -> Player | str:
    """The game master's answer to a TAKEOVER that waits: approved, the power is the asker's (the seat is returned);
    rejected, the asker is told (their address is returned)."""
    game = get_game(db, name)
    found = game.variant.power_named(power)
    request = master_rows.open_takeover(db, game.id, found) if found is not None else None
    if request is None:
        raise GameError(
            T("nobody waits to take over {power} in {game}", power=game.variant.power(found or power), game=game.name)
        )
    if not approve:
        master_rows.decide_takeover(db, request["id"], "rejected", iso_utc(now))
        log_event(db, game.id, now, sender, EventKind.TAKEOVER_REJECTED, {"power": found, "email": request["email"]})
        tell(
            db, request["email"], NoticeKind.CIVIL_DISORDER, now, game, what="takeover_rejected", power=found, email=""
        )
        return str(request["email"])
    seat = _disorderly_seat(db, game, power)
    address = may_hold(db, game, seat, request["email"])
    master_rows.decide_takeover(db, request["id"], "approved", iso_utc(now))
    return _hand_over(db, game, seat, address, request["password_hash"], now, sender)


def _hand_over(
    db: Database, game: Game, seat: Player, address: str, password_hash: str, now: datetime, sender: str
) -> Player:
    """The seat is the new player's: they get the game's start mail for the current phase; the others are told."""
    new = give_seat(db, game, seat, address, password_hash, now, sender)
    new.ready = False
    save_player(db, new)
    seats = players(db, game.id)
    notices.game_started(db, game, seats, now, taken_over=new)
    others = [p for p in seats if p.email != new.email]
    _tell_game(db, game, others, now, "taken_over", new.power or "")
    return new


def waiting_takeovers(db: Database, game: Game) -> list[dict[str, str]]:
    """The TAKEOVER requests that wait for the game master: power, address, when asked."""
    return [
        {"power": r["power"], "email": r["email"], "asked_at": r["asked_at"]}
        for r in master_rows.open_takeovers(db, game.id)
    ]
