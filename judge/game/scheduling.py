"""Deadlines: reminders before them, grace periods and adjudication after them; each game in its own write transaction
checked again inside it."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlite_utils import Database

from judge.game import notices
from judge.game.adjudication import adjudicate
from judge.game.duties import late_players
from judge.game.records import (
    load_game,
    log_event,
    players,
    save_game,
)
from judge.game.settings import GameSettings
from judge.rules.phase import Phase
from judge.store import game_rows, write
from judge.store.events import EventKind
from judge.store.statuses import GameStatus
from judge.timeutil import iso_utc, parse_iso_utc

REMINDER_BEFORE = timedelta(hours=12)


def _reminder_window(settings: GameSettings, phase_code: str) -> timedelta:
    """Reminders go out 12 hours before the deadline, or a quarter of the phase's time when that is shorter."""
    return min(REMINDER_BEFORE, settings.deadline_for(Phase.parse(phase_code).step) / 4)


def remind(db: Database, now: datetime, limit: int | None = None) -> int:
    """Remind players who have sent no orders yet, once per phase; return how many games were reminded.

    Games are chosen by a read, and each is checked again inside its own write transaction (still active, the
    deadline still set and not passed, the phase unchanged, not reminded yet), so a pause, an extension or an
    adjudication landing in between is respected.
    """
    done = 0
    for row in game_rows.unreminded_games(db, iso_utc(now), iso_utc(now + REMINDER_BEFORE)):
        if limit is not None and done >= limit:
            break
        try:
            window = _reminder_window(GameSettings.from_json(row["settings"]), row["phase"])
        except (ValueError, KeyError, TypeError):
            continue
        if parse_iso_utc(row["deadline"]) - now > window:
            continue
        with write(db):
            game = load_game(db, row["name"])
            if (
                game is None
                or game.status != GameStatus.ACTIVE
                or game.deadline is None
                or game.position is None
                or game.reminded
                or game.phase != row["phase"]
                or game.deadline <= now
                or game.deadline - now > _reminder_window(game.settings, game.position.phase.code)
            ):
                continue
            for p in late_players(db, game, players(db, game.id)):
                notices.reminder(db, game, p, now)
            game.reminded = True
            save_game(db, game, now)
            done += 1
    return done


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
        if game.settings.grace and not game.in_grace and late:
            game.in_grace = True
            game.deadline = now + timedelta(seconds=game.settings.grace)
            save_game(db, game, now)
            log_event(db, game.id, now, "judge", EventKind.GRACE, {"late": [p.power for p in late]})
            for p in late:
                notices.late_notice(db, game, p, now)
            return False
        adjudicate(db, game, now, "deadline")
        return True
