"""Deadlines: reminders before them, grace periods and adjudication after them; each game in its own write transaction
checked again inside it."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlite_utils import Database

from judge.game import notices, reminders
from judge.game.absences import away_players
from judge.game.adjudication import adjudicate
from judge.game.duties import late_players, owed
from judge.game.notices import Announcement, Notice, NoticeKind, post
from judge.game.records import (
    Game,
    load_game,
    log_event,
    players,
    save_game,
    save_player,
)
from judge.store import game_rows, write
from judge.store.events import EventKind
from judge.store.statuses import GameStatus
from judge.timeutil import iso_utc


def remind(db: Database, now: datetime, limit: int | None = None) -> int:
    """Remind the players whose chosen moments before the deadline have come (``judge.game.reminders``); return how
    many games were looked at.

    A game is looked at when its next reminder moment has come, or its deadline moved since that moment was worked
    out; each in its own write transaction, checked again inside it (still active, the deadline set and not passed,
    the phase unchanged), so a pause, an extension or an adjudication landing in between is respected. A player is
    told only when he still owes something (orders, or READY where the game waits for it), and not while he is away
    (SET ABSENCE); each reminder lists what is still owed.
    """
    done = 0
    for row in game_rows.games_to_remind(db, iso_utc(now)):
        if limit is not None and done >= limit:
            break
        with write(db):
            game = load_game(db, row["name"])
            if (
                game is None
                or game.status != GameStatus.ACTIVE
                or game.deadline is None
                or game.position is None
                or game.phase != row["phase"]
                or game.deadline <= now
            ):
                continue
            remind_game(db, game, now)
            done += 1
    return done


def remind_game(db: Database, game: Game, now: datetime) -> None:
    """Look at every seat of ``game`` (active, with a deadline) at ``now``: remind, keep what was passed, and note
    when to look next."""
    assert game.deadline is not None and game.position is not None
    length = game.settings.deadline_for(game.position.phase.step)
    away = away_players(db, game, now)
    next_at: list[datetime] = []
    for p in players(db, game.id):
        if not p.active:
            continue
        seen = reminders.look(p.lead_times(game), game.deadline, game.position.phase.code, length, p.reminded, now)
        if seen.due and p.id not in away:
            still = owed(db, game, p)
            if any(still.values()):
                notices.reminder(db, game, p, now, still)
        if seen.reminded != p.reminded:
            p.reminded = seen.reminded
            save_player(db, p)
        if seen.next_at is not None:
            next_at.append(seen.next_at)
    at = min(next_at, default=game.deadline)
    game_rows.set_remind_at(db, game.id, iso_utc(at), iso_utc(game.deadline))


def due_games(db: Database, now: datetime, limit: int | None = None) -> list[tuple[str, str]]:
    """(name, phase) of the active games whose deadline has passed, earliest deadline first."""
    return game_rows.due_games(db, iso_utc(now), limit)


def tick(db: Database, now: datetime, limit: int | None = None) -> list[str]:
    """Adjudicate active games whose deadline has passed (after a grace period, when the game has one), at most
    ``limit`` of them; return the names of those adjudicated.

    Each game is its own write transaction that checks again that the game is still active, its deadline still due
    and its phase unchanged: a game master's ``process``, ``extend`` or ``pause`` (or another round) that landed
    since the choice wins, and the game is left alone.
    """
    remind(db, now)
    return [name for name, phase in due_games(db, now, limit) if tick_game(db, name, phase, now)]


def tick_game(db: Database, name: str, phase: str, now: datetime) -> bool:
    """One game whose deadline was seen passed at ``phase``: in its own write transaction, checked again, then
    adjudicated (True), or given its grace period, or left alone when something changed meanwhile (False)."""
    with write(db):
        game = load_game(db, name)
        if (
            game is None
            or game.status != GameStatus.ACTIVE
            or game.deadline is None
            or game.deadline > now
            or game.phase != phase
        ):
            return False
        seats = players(db, game.id)
        late = late_players(db, game, seats)
        wait = max(game.settings.grace, game.settings.nmr_wait)  # one wait a phase, the longer of the two
        if wait and not game.in_grace and late:
            game.in_grace = True
            game.deadline = now + timedelta(seconds=wait)
            save_game(db, game, now)
            log_event(
                db, game.id, now, "judge", EventKind.GRACE, {"late": [p.power for p in late], "phase": game.phase}
            )
            for p in late:
                notices.late_notice(db, game, p, now)
            if game.settings.nmr_wait:  # the others hear that the deadline moved (not who is late)
                waited = {p.email for p in late}
                others = [p for p in seats if p.email not in waited]
                post(
                    db,
                    [
                        Notice(to, NoticeKind.ANNOUNCEMENT, game, {"what": Announcement.WAITING})
                        for to in notices.everyone(game, others)
                    ],
                    now,
                )
            return False
        adjudicate(db, game, now, "deadline")
        return True
