"""The mail the game master gets: a game fills, a player keeps missing deadlines."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.game.civil_disorder import abandon_silent, excuse_misses, missed_in_a_row
from judge.game.duties import owing_powers
from judge.game.notices import NoticeKind, tell
from judge.game.records import Game, players
from judge.game.track_record import record_lines
from judge.store.events import EventKind, events_of

MISSED_IN_A_ROW = 2  # the game master hears of a player who misses this many deadlines in a row


def game_filled(db: Database, game: Game, now: datetime) -> None:
    """Every power has a player: the game master can start the game."""
    if game.settings.master:
        tell(
            db,
            game.settings.master,
            NoticeKind.MASTER_NOTICE,
            now,
            game,
            what="filled",
            power=None,
            email=None,
            count=len(game.variant.powers),
        )


def joined(db: Database, game: Game, email: str, power: str | None, now: datetime) -> None:
    """Someone joined by mail: the game master hears who, with the joiner's record (judge.game.track_record)."""
    if game.settings.master:
        tell(
            db,
            game.settings.master,
            NoticeKind.MASTER_NOTICE,
            now,
            game,
            what="joined",
            power=power,
            email=email,
            count=0,
            record=record_lines(db, email),
        )


def after_adjudication(db: Database, game: Game, before: Any, submitted: dict[str, list[str]], now: datetime) -> None:
    """Tell the game master about each player who has now missed ``MISSED_IN_A_ROW`` deadlines in a row (once); then
    the powers that missed the game's ``abandon_after`` are in civil disorder (judge.game.civil_disorder). A miss the
    game excuses (``excuses``) is excused first, so that it counts toward neither."""
    excuse_misses(db, game, before, submitted, now)
    if game.settings.master:
        _tell_of_silence(db, game, before, submitted, now)
    abandon_silent(db, game, before, submitted, now)


def _tell_of_silence(db: Database, game: Game, before: Any, submitted: dict[str, list[str]], now: datetime) -> None:
    assert game.settings.master
    was = dataclasses.replace(game, position=before)
    owed = owing_powers(was)
    phase = before.phase.code
    excused = {d.get("power") for _at, d in events_of(db, game.id, EventKind.EXCUSED) if d and d.get("phase") == phase}
    for seat in players(db, game.id):
        if not seat.active or seat.power not in owed or submitted.get(seat.power) or seat.power in excused:
            continue
        if missed_in_a_row(db, game, seat.power, MISSED_IN_A_ROW) == MISSED_IN_A_ROW:
            tell(
                db,
                game.settings.master,
                NoticeKind.MASTER_NOTICE,
                now,
                game,
                what="missed",
                power=seat.power,
                email=seat.email,
                count=MISSED_IN_A_ROW,
            )
