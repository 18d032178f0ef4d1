"""Absences (SET ABSENCE): a player declares days on which no deadline of the game may fall, within the game's
yearly limit (``absence_days_per_year``); a deadline that would fall inside a declared absence of an active player
moves to its end, and the other players are told of a deadline moved by a new absence."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlite_utils import Database

from judge.game import notices
from judge.game.lookup import GameError
from judge.game.notices import NoticeKind
from judge.game.records import Game, Player, log_event, players, save_game, user_settings
from judge.i18n import T, Text
from judge.store.absence_rows import absence_rows, add_absence, clear_absences, days_declared
from judge.store.events import EventKind
from judge.store.statuses import GameStatus
from judge.timeutil import iso_utc, parse_iso_utc


def clear_of_absences(db: Database, game: Game, deadline: datetime) -> datetime:
    """``deadline``, or the end of the declared absence of an active player it falls in (again, until it falls in
    none: absences that overlap or touch push it on)."""
    active = {p.id for p in players(db, game.id) if p.active}
    periods = [
        (parse_iso_utc(r["starts"]), parse_iso_utc(r["ends"]))
        for r in absence_rows(db, game.id, iso_utc(deadline))
        if r["player_id"] in active
    ]
    moved = deadline
    for _ in range(len(periods)):
        inside = [end for start, end in periods if start <= moved < end]
        if not inside:
            break
        moved = max(inside)
    return moved


def away_players(db: Database, game: Game, now: datetime) -> set[int]:
    """The ids of the seats whose declared absence ``now`` falls in (no reminders for them meanwhile)."""
    return {
        r["player_id"]
        for r in absence_rows(db, game.id, iso_utc(now))
        if parse_iso_utc(r["starts"]) <= now < parse_iso_utc(r["ends"])
    }


def declare_absence(db: Database, game: Game, player: Player, first: date, last: date | None, now: datetime) -> Text:
    """Record an absence from the first to the last day (whole days in the player's time zone; one day when ``last``
    is None); move the current deadline out of it and tell the others. GameError when it cannot be taken."""
    last = last or first
    if game.status not in (GameStatus.ACTIVE, GameStatus.PAUSED, GameStatus.FORMING):
        raise GameError(T("game {game} is {status}: no deadlines to keep clear", game=game.name, status=T(game.status)))
    if last < first:
        raise GameError(T("an absence ends on or after the day it starts"))
    zone = ZoneInfo(user_settings(db, player.email)["timezone"])
    starts = datetime.combine(first, time(0), zone).astimezone(now.tzinfo)
    ends = datetime.combine(last + timedelta(days=1), time(0), zone).astimezone(now.tzinfo)
    if ends <= now:
        raise GameError(T("that absence is over already"))
    days = (last - first).days + 1
    limit = game.settings.absence_days_per_year
    used = days_declared(db, game.id, player.id, first.year)
    if used + days > limit:
        raise GameError(
            T(
                "game {game} allows at most {limit} days of absence a year; you have declared {used} in {year}, "
                "and this is {days}",
                game=game.name,
                limit=limit,
                used=used,
                year=first.year,
                days=days,
            )
        )
    add_absence(
        db,
        {
            "game_id": game.id,
            "player_id": player.id,
            "starts": iso_utc(starts),
            "ends": iso_utc(ends),
            "year": first.year,
            "days": days,
            "declared_at": iso_utc(now),
        },
    )
    log_event(
        db, game.id, now, player.email, EventKind.ABSENCE, {"power": player.power, "from": str(first), "to": str(last)}
    )
    _move_deadline(db, game, player, now)
    return T(
        "absence noted: no deadline of {game} falls from {first} to {last}",
        game=game.name,
        first=first.isoformat(),
        last=last.isoformat(),
    )


def withdraw_absences(db: Database, game: Game, player: Player, now: datetime) -> Text:
    """SET ABSENCE CLEAR: the absences that have not begun are withdrawn (a deadline already moved stays)."""
    count = clear_absences(db, game.id, player.id, iso_utc(now))
    if count:
        log_event(db, game.id, now, player.email, EventKind.ABSENCE, {"power": player.power, "cleared": count})
    return T("your absences that had not begun are withdrawn ({count})", count=count)


def _move_deadline(db: Database, game: Game, player: Player, now: datetime) -> None:
    if game.status != GameStatus.ACTIVE or game.deadline is None:
        return
    moved = clear_of_absences(db, game, game.deadline)
    if moved == game.deadline:
        return
    game.deadline = moved  # the reminders move with it (remind_for no longer matches)
    save_game(db, game, now)
    seats = players(db, game.id)
    for to in notices.everyone(game, seats):
        if to != player.email:
            event = notices.moved_event(db, game, seats, to, now)
            notices.tell(db, to, NoticeKind.DEADLINE_MOVED, now, game, invitation=event)
