"""The picture of a game's phase in a language, wherever it is asked for (MAP by mail, ``judge map``, an archive): the
kept one while the store has it, else drawn again from the stored boards and orders.

A played phase's picture is drawn at its deadline for its results mail and kept a while (``[judge]
picture_retention_days``, ``judge.store.upkeep.prune``); drawing is deterministic, so the picture drawn again from the
phase's row (``phases.board_before``, ``results`` with the typed orders, ``board_after``) is the same PNG, byte for
byte, as the one the results mail carried. The current phase's picture is never kept: its board is the game's
position, which a game master may still change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlite_utils import Database

from judge.game import fog
from judge.game.records import Game
from judge.game.summaries import PhasePicture, phase_picture
from judge.reports.outbox import map_picture, palette_png, store_picture
from judge.rules.phase import Phase
from judge.rules.visibility import fogged
from judge.store.mail_queue import kept_picture, picture_png


@dataclass(frozen=True)
class PhaseMap:
    """A phase's picture: ``png`` (a palette PNG as the mail carries it; None when the variant cannot be drawn),
    the kept row it is in (``picture_id``, None when it is not kept), the phase drawn and whether it was played (the
    results picture: the board after it with its orders) or is the current one."""

    phase: Phase
    played: bool
    png: bytes | None
    picture_id: int | None
    drawn: bool  # drawn now (not the kept one)


def phase_map(
    db: Database,
    game: Game,
    phase: str | None,
    language: str,
    now: datetime | None = None,
    *,
    keep: bool = False,
    powers: tuple[str, ...] | None = None,
) -> PhaseMap | None:
    """The picture of ``game``'s ``phase`` (a played phase's code; None or the current phase's code: the current
    board) in ``language``: the kept one, else drawn now; with ``keep`` (and ``now``), a played phase's picture drawn
    now is kept again, for ``picture_retention_days`` from ``now``. None when the game has no such phase. With
    ``powers`` (Fog of War, judge.game.fog.reader_powers): the picture as those powers see the phase."""
    picture = phase_picture(db, game, phase)
    if picture is None:
        return None
    seen: frozenset[int] | None = None
    if powers is not None:
        picture, seen = _seen_picture(game, picture, powers)
    played = picture.after is not None
    if played:
        kept = kept_picture(db, game.id, picture.phase, language)
        png = picture_png(db, kept) if kept is not None else None
        if kept is not None and png is not None:
            return PhaseMap(picture.before.phase, True, png, kept, drawn=False)
    drawing = map_picture(game, picture.before, picture.lines, language, picture.after, seen)
    if drawing is None:
        return PhaseMap(picture.before.phase, played, None, None, drawn=True)
    png = palette_png(drawing)
    picture_id = None
    if keep and played:
        assert now is not None, "a picture kept again needs the time it is kept from"
        picture_id = store_picture(db, game, picture.phase, language, png, now)
    return PhaseMap(picture.before.phase, played, png, picture_id, drawn=True)


def _seen_picture(game: Game, picture: PhasePicture, powers: tuple[str, ...]) -> tuple[PhasePicture, frozenset[int]]:
    """The phase as ``powers`` see it, kept under a name of its own (``S1901M France``), and the provinces seen on the
    board drawn."""
    sight = fog.sight(game.variant, powers, picture.before, picture.after)
    lines = [dict(line) for line in fog.lines_seen(game.variant, picture.lines, sight)]
    before = fogged(picture.before, sight.either) if picture.after is not None else picture.before
    key = f"{picture.phase} {fog.viewer_key(powers)}"
    return PhasePicture(key, before, lines, picture.after), sight.after
