"""The mail the game master gets: a game fills, a player keeps missing deadlines."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.game.duties import owing_powers
from judge.game.notices import NoticeKind, tell
from judge.game.records import Game, players
from judge.rules.position_json import position_from_json
from judge.store.events import EventKind, events_of
from judge.store.phases import played_phases

MISSED_IN_A_ROW = 2  # the game master hears of a player who misses this many deadlines in a row

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


def after_adjudication(db: Database, game: Game, before: Any, submitted: dict[str, list[str]], now: datetime) -> None:
    """Tell the game master about each player who has now missed ``MISSED_IN_A_ROW`` deadlines in a row (once)."""
    if not game.settings.master:
        return
    was = dataclasses.replace(game, position=before)
    owed = owing_powers(was)
    for seat in players(db, game.id):
        if not seat.active or seat.power not in owed or submitted.get(seat.power):
            continue
        if _missed_in_a_row(db, game, seat.power) == MISSED_IN_A_ROW:
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


def _missed_in_a_row(db: Database, game: Game, power: str) -> int:
    """Deadlines in a row, up to the last adjudicated phase, at which ``power`` owed orders and gave none."""
    missed = 0
    taken_over = ""  # a new player starts with a clean slate
    for at, detail in events_of(db, game.id, EventKind.REPLACE):
        if (detail or {}).get("power") == power:
            taken_over = max(taken_over, at)
    for row in played_phases(db, game.id, latest_first=True):
        if taken_over and row["adjudicated_at"] <= taken_over:
            break
        pos = position_from_json(game.variant, json.loads(row["board_before"]))
        if power not in owing_powers(dataclasses.replace(game, position=pos)):
            continue
        if json.loads(row["orders"] or "{}").get(power):
            break
        missed += 1
        if missed > MISSED_IN_A_ROW:
            break
    return missed
