"""The game master's toolkit: replace, eject, end, delete, deadlines and a full view of a game; settings
(judge.game.setting_changes) and the mail the game master gets (judge.game.master_notices) are named here too.

Like judge.game.service, every function works inside the caller's transaction and takes ``now`` from the caller;
mail is queued in the outbox. Each action mails only the people it concerns, once per address:

- replace: the new player (power, game, how to sign on and choose their own password) and the old one;
- eject: the ejected player;
- an extension: each player who still owes orders; a shortening: every player who owes orders this phase;
- end, settings, pause/resume (judge.game.service): every player of the game;
- delete: the players who had joined the (never started) game.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import Enum
from typing import Any

from sqlite_utils import Database

from judge.facts import MAX_DEADLINE, MAX_DEADLINE_DAYS, MIN_PASSWORD_LENGTH
from judge.game import invitations, notices
from judge.game.civil_disorder import waiting_takeovers
from judge.game.controls import may_hold, replace_player
from judge.game.duties import late_players, owing_powers
from judge.game.invitations import Why
from judge.game.lookup import GameError, Unchanged, get_game, no_such_power
from judge.game.notices import Announcement, NoticeKind, tell
from judge.game.records import Game, Player, log_event, orders_of, players, save_game, save_player
from judge.game.setting_changes import change_setting as change_setting
from judge.game.setting_changes import settings_view as settings_view
from judge.game.track_record import count_leaving, record_of
from judge.game.views import show_game
from judge.i18n import T
from judge.store import draw_votes, game_rows
from judge.store.events import EventKind
from judge.store.statuses import PLAYING, GameStatus, Role
from judge.timeutil import iso_utc


class Ending(Enum):
    """How the game master ends a game."""

    DRAW = "draw"
    ABANDONED = "abandoned"


class DeadlineChange(Enum):
    EXTENDED = "extended"
    SHORTENED = "shortened"


def _seat(db: Database, game: Game, power: str) -> Player:
    found = game.variant.power_named(power)
    if found is None:
        raise GameError(no_such_power(game, power))
    seat = next((p for p in players(db, game.id) if p.role == Role.PLAYER and p.power == found), None)
    if seat is None:
        raise GameError(T("nobody plays {power} in {game}", power=game.variant.power(found), game=game.name))
    return seat


# --- seats ---------------------------------------------------------------------------------------------------------


def replace(
    db: Database, name: str, power: str, email: str, password: str, now: datetime, sender: str = "master"
) -> Player:
    """Give ``power`` to ``email``; the new player is told how to sign on, the old one that they no longer play."""
    game = get_game(db, name)
    if game.status == GameStatus.FINISHED:
        raise GameError(T("game {game} is over", game=game.name))
    seat = _seat(db, game, power)
    if seat.email.lower() == email.strip().lower() and not seat.resigned:
        raise Unchanged(
            T(
                "{power} in {game} is played by {email} already",
                power=game.variant.power(seat.power or power),
                game=game.name,
                email=seat.email,
            )
        )
    address = may_hold(db, game, seat, email)
    if len(password) < MIN_PASSWORD_LENGTH:
        raise GameError(T("choose a password of at least {count} characters", count=MIN_PASSWORD_LENGTH))
    old = seat.email
    new = replace_player(db, game.name, seat.power or power, address, password, now, sender)
    new.ready = False
    save_player(db, new)
    seats = players(db, game.id)
    if old:
        gone = invitations.cancel(db, game, [seat], old, now, Why.LEFT)  # the seat as the old player held it
        tell(db, old, NoticeKind.SEAT_CHANGE, now, game, invitation=gone, what="replaced_out", power=new.power)
    event = invitations.request(db, game, seats, address, now)
    tell(db, address, NoticeKind.SEAT_CHANGE, now, game, invitation=event, what="replaced_in", power=new.power)
    return new


def eject(db: Database, name: str, power: str, now: datetime, sender: str = "master") -> Player:
    """Take ``power`` from its player: before the start the seat is freed; afterwards the power is in civil disorder
    (its units hold, it is not waited for) until ``replace`` gives it to someone else."""
    game = get_game(db, name)
    if game.status == GameStatus.FINISHED:
        raise GameError(T("game {game} is over", game=game.name))
    found = game.variant.power_named(power)
    seated = any(p.role == Role.PLAYER and p.power == found for p in players(db, game.id))
    if found is not None and game.status == GameStatus.FORMING and not seated:
        raise Unchanged(T("nobody plays {power} in {game}", power=game.variant.power(found), game=game.name))
    seat = _seat(db, game, power)
    if seat.resigned:
        raise Unchanged(
            T(
                "{power} in {game} has no player already (civil disorder)",
                power=game.variant.power(found or power),
                game=game.name,
            )
        )
    if game.status == GameStatus.FORMING:
        game_rows.delete_player_row(db, seat.id)
    else:
        seat.resigned, seat.ready, seat.password_hash = True, False, ""
        save_player(db, seat)
        count_leaving(db, game, seat, "ejected", now)
    log_event(db, game.id, now, sender, EventKind.EJECT, {"power": seat.power, "email": seat.email})
    gone = invitations.cancel(db, game, [seat], seat.email, now, Why.LEFT)
    tell(db, seat.email, NoticeKind.SEAT_CHANGE, now, game, invitation=gone, what="ejected", power=seat.power)
    return seat


# --- the end of a game ---------------------------------------------------------------------------------------------


def end(
    db: Database, name: str, how: Ending, now: datetime, *, draw: tuple[str, ...] = (), sender: str = "master"
) -> Game:
    """End a running game: a draw among the named powers, or abandoned (no result)."""
    game = get_game(db, name)
    if game.status == GameStatus.FINISHED:
        raise Unchanged(T("game {game} is over already", game=game.name))
    if game.status not in PLAYING:
        raise GameError(
            T(
                "game {game} is {status}; only a running game can be ended (a forming game can be deleted)"
                if game.status == GameStatus.FORMING
                else "game {game} is {status}; only a running game can be ended",
                game=game.name,
                status=T(game.status),
            )
        )
    if how is Ending.DRAW:
        powers = []
        for text in draw:
            found = game.variant.power_named(text)
            if found is None:
                raise GameError(no_such_power(game, text))
            if found not in powers:
                powers.append(found)
        if len(powers) < 2:
            raise GameError(T("a draw needs at least two powers"))
        seats = {p.power: p for p in players(db, game.id) if p.role == Role.PLAYER}
        out = [p for p in powers if p in seats and seats[p].eliminated]
        if out:
            raise GameError(
                T("{powers} cannot share a draw: no longer in the game", powers=[game.variant.power(p) for p in out])
            )
        game.result = {"kind": "draw", "powers": [p for p in game.variant.powers if p in powers], "by": "master"}
    else:
        game.result = {"kind": "abandoned", "by": "master"}
    game.status, game.deadline, game.paused_remaining, game.in_grace = GameStatus.FINISHED, None, None, False
    draw_votes.lapse_open(db, game.id)
    save_game(db, game, now)
    log_event(db, game.id, now, sender, EventKind.END, game.result)
    notices.game_over(db, game, players(db, game.id), now)
    return game


def delete(db: Database, name: str, now: datetime, sender: str = "master") -> list[str]:
    """Remove a game that never started; the players who had joined are told. Returns their addresses."""
    game = get_game(db, name)
    if game.status != GameStatus.FORMING:
        raise GameError(
            T("game {game} has started; end it instead (judge game end {game} --abandoned)", game=game.name)
        )
    told = list(dict.fromkeys(p.email for p in players(db, game.id)))
    for address in told:
        tell(db, address, NoticeKind.ANNOUNCEMENT, now, game, what=Announcement.DELETED)
    game_rows.delete_game_rows(db, game.id)
    log_event(db, None, now, sender, EventKind.DELETE, {"game": game.name, "variant": game.variant.key, "told": told})
    return told


# --- deadlines -----------------------------------------------------------------------------------------------------


def change_deadline(
    db: Database,
    name: str,
    now: datetime,
    *,
    by: timedelta | None = None,
    to: datetime | None = None,
    shorten: bool = False,
    sender: str = "master",
) -> Game:
    """Move the current deadline later (``by``), earlier (``by`` with ``shorten``), or to ``to`` (a UTC time, earlier
    or later). A paused game keeps its time left instead: ``by`` adds to it or takes from it."""
    game = get_game(db, name)
    if (by is None) == (to is None):
        raise GameError(T("give a duration (24h) or --to a time, not both"))
    if game.status == GameStatus.PAUSED:
        if to is not None:
            raise GameError(
                T("game {game} is paused: give a duration to change the time left, or resume it first", game=game.name)
            )
        assert by is not None
        left = timedelta(seconds=game.paused_remaining or 0)
        left = left - by if shorten else left + by
        if left < timedelta(hours=1):
            raise GameError(T("that leaves less than an hour; a paused game resumes with at least an hour"))
        game.paused_remaining = int(left.total_seconds())
        change = DeadlineChange.SHORTENED if shorten else DeadlineChange.EXTENDED
        detail: dict[str, Any] = {"paused_remaining": game.paused_remaining}
    else:
        if game.status != GameStatus.ACTIVE or game.deadline is None:
            raise GameError(
                T("game {game} has no running deadline (it is {status})", game=game.name, status=T(game.status))
            )
        if to is None:
            assert by is not None
            to = game.deadline - by if shorten else max(game.deadline, now) + by
        if to <= now:
            raise GameError(
                T(
                    "{when} has passed; to adjudicate now send PROCESS (by mail) or use: judge game process {game}",
                    when=iso_utc(to),
                    game=game.name,
                )
            )
        if to - now > MAX_DEADLINE:
            raise GameError(T("a deadline may be at most {count} days away", count=MAX_DEADLINE_DAYS))
        if to == game.deadline:
            raise GameError(T("the deadline is already {when}", when=iso_utc(to)))
        change = DeadlineChange.EXTENDED if to > game.deadline else DeadlineChange.SHORTENED
        # the reminders move with it (judge.game.reminders): a later one earns fresh reminders before it
        game.deadline = to
        detail = {"deadline": iso_utc(to)}
    save_game(db, game, now)
    log_event(db, game.id, now, sender, EventKind(change.value), detail)
    seats = players(db, game.id)
    if change is DeadlineChange.EXTENDED:
        concerned = late_players(db, game, seats)  # those who still owe orders
    else:
        owing = owing_powers(game)
        concerned = [p for p in seats if p.active and p.power in owing]
    notices.announce(
        db, game, seats, now, Announcement(change.value), to=list(dict.fromkeys(p.email for p in concerned))
    )
    return game


# --- settings ------------------------------------------------------------------------------------------------------


# --- a full view ---------------------------------------------------------------------------------------------------


def show(db: Database, name: str) -> dict[str, Any]:
    """``judge game show``: service.show_game plus, per player, whether they owe orders, how many lines they gave
    and READY, and every setting of the game."""
    shown = show_game(db, name)
    game = get_game(db, name)
    owing = owing_powers(game) if game.status in PLAYING else set()
    given = orders_of(db, game.id, game.phase) if game.phase else {}
    for p in shown["players"]:
        p["owes_orders"] = p["power"] in owing
        p["order_lines"] = len(given.get(p["power"], [])) if p["power"] else 0
        p["record"] = None if p["bot"] else record_of(db, p["email"]).facts()
    shown["settings"] = settings_view(game.settings)
    shown["victory"] = {
        "solo_now": game.settings.solo_line(
            game.variant, game.position.phase.year if game.position else game.variant.start_year
        )
    }
    shown["paused_remaining"] = game.paused_remaining
    shown["takeovers"] = waiting_takeovers(db, game)
    return shown


# --- mail to the game master ---------------------------------------------------------------------------------------
