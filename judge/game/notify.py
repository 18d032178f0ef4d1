"""Mail the game sends to its players, queued in the outbox (rendered from templates/<language>/)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.game.records import Game, Player, queue_mail, user_settings
from judge.position_json import position_to_json
from judge.render import render_mail
from judge.rules.adjustments import adjustment_delta
from judge.rules.board import Position
from judge.rules.phase import Step
from judge.rules.turn import TurnResult
from judge.timeutil import format_deadline


def _send(db: Database, game: Game | None, to: str, template: str, now: datetime, **context: Any) -> None:
    prefs = user_settings(db, to)
    deadline = None
    if game is not None and game.deadline is not None:
        deadline = format_deadline(game.deadline, prefs["timezone"], now)
    subject, body = render_mail(template, prefs["language"], game=game, deadline=deadline, **context)
    queue_mail(db, to, subject, body, now, game_id=game.id if game else None)


def _everyone(game: Game, seats: list[Player]) -> list[str]:
    to = [p.email for p in seats]
    if game.settings.master and game.settings.master.lower() not in to:
        to.append(game.settings.master.lower())
    return to


def game_started(db: Database, game: Game, seats: list[Player], now: datetime) -> None:
    for p in seats:
        _send(db, game, p.email, "game_started", now, player=p,
              powers={s.power: s.email for s in seats if s.power})


def announce(db: Database, game: Game, seats: list[Player], now: datetime, what: str) -> None:
    for to in _everyone(game, seats):
        _send(db, game, to, "announcement", now, what=what)


def tally(game: Game, pos: Position) -> list[dict[str, Any]]:
    """Per power: centres, units, and the builds (+) or removals (-) due in a Winter adjustment."""
    rows = []
    for power in game.variant.powers:
        centres = pos.centre_count(power)
        units = len(pos.units_of(power))
        if not centres and not units:
            continue
        delta = adjustment_delta(game.variant, pos, power) if pos.phase.step is Step.ADJUSTMENT else 0
        rows.append({"power": power, "centres": centres, "units": units, "delta": delta})
    return rows


def results(db: Database, game: Game, seats: list[Player], before: Position, turn: TurnResult,
            lines: list[dict[str, Any]], now: datetime) -> None:
    after = turn.position
    by_power: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        by_power.setdefault(line["power"], []).append(line)
    board = position_to_json(game.variant, after)
    context: dict[str, Any] = {"phase": before.phase, "results": by_power, "board": board, "next_phase": after.phase,
               "tally": tally(game, after), "winner": turn.winner,
               "threshold": game.settings.victory(game.variant).threshold(len(game.variant.centres),
                                                                          before.phase.year)}
    for to in _everyone(game, seats):
        _send(db, game, to, "results", now, **context)


def eliminated(db: Database, game: Game, player: Player, now: datetime) -> None:
    _send(db, game, player.email, "eliminated", now, player=player)


def game_over(db: Database, game: Game, seats: list[Player], now: datetime) -> None:
    for to in _everyone(game, seats):
        _send(db, game, to, "game_over", now, result=game.result)


def late_notice(db: Database, game: Game, player: Player, now: datetime) -> None:
    _send(db, game, player.email, "late_notice", now, player=player)


def draw_news(db: Database, game: Game, seats: list[Player], now: datetime, what: str) -> None:
    for p in seats:
        _send(db, game, p.email, "draw", now, what=what)
