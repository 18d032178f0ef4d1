"""Draws: at most one proposal per TURN; every player still in the game must accept; one refusal rejects it.

By default (seed 000) a draw is shared by every power still in the game. A game with ``named_draws`` lets a proposal
name the powers that share it (``DRAW PROPOSE England France Russia``, at least two, all still in the game); the
vote stays unanimous among every player still in the game, and the powers not named lose.

A turn (seed 000) is Spring (its movement and retreats), or Fall with its retreats and the Winter adjustments that
follow: ``S1901`` or ``F1901``. A proposal stays open through its turn and lapses when the turn ends. An accepted draw
ends the game with no winner. The ``phase`` column of the draws table holds the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.game import notices
from judge.game.lookup import GameError
from judge.game.press import powers_named
from judge.game.records import Game, Player, log_event, players, save_game
from judge.i18n import T, Text
from judge.rules.phase import Phase, Season
from judge.store import draw_votes
from judge.store.events import EventKind
from judge.store.statuses import PLAYING, DrawStatus, GameStatus


def voters(db: Database, game: Game) -> list[Player]:
    """Players who vote on a draw: not resigned, not eliminated."""
    return [p for p in players(db, game.id) if p.active]


def turn_of(phase: Phase) -> str:
    """The turn a phase belongs to: ``S1901`` (Spring), ``F1901`` (Fall and the Winter after it)."""
    season = Season.SPRING if phase.season is Season.SPRING else Season.FALL
    return f"{season.value}{phase.year}"


def _turn(game: Game) -> str:
    assert game.position is not None
    return turn_of(game.position.phase)


def _open(db: Database, game: Game) -> dict[str, Any] | None:
    return draw_votes.proposal(db, game.id, _turn(game))


def lapse(db: Database, game_id: int, now_phase: Phase) -> None:
    """An open proposal of an earlier turn lapses once the game is in another turn."""
    draw_votes.lapse_open(db, game_id, except_turn=turn_of(now_phase))


def vote(db: Database, game: Game, player: Player, action: str, now: datetime, named: Sequence[str] = ()) -> Text:
    """A player's DRAW PROPOSE (``named``: the powers it names, as written), ACCEPT or REJECT; the answer for their
    reply."""
    if game.status not in PLAYING:
        raise GameError(
            T("game {game} is {status}: there is no draw to vote on", game=game.name, status=T(game.status))
        )
    if not player.active:
        raise GameError(
            T("{power} no longer votes in {game}", power=game.variant.power(player.power or ""), game=game.name)
        )
    row = _open(db, game)
    if action == "propose":
        if row is not None:
            raise GameError(
                T(
                    "a draw has already been proposed this turn (one proposal per turn: Spring, or Fall with "
                    "its retreats and adjustments)"
                )
            )
        among = _named_powers(db, game, named) if named else None
        draw_votes.propose(db, game.id, _turn(game), player.power or "", among)
        log_event(db, game.id, now, player.email, EventKind.DRAW_PROPOSE, {"power": player.power, "among": among})
        others = [p for p in voters(db, game) if p.id != player.id]
        notices.draw_news(db, game, others, now, "proposed", among)
        if among is not None:
            return recount(db, game, now) or T(
                "draw among {powers} proposed; every player still in the game must accept",
                powers=[game.variant.power(p) for p in among],
            )
        return recount(db, game, now) or T("draw proposed; every player still in the game must accept")
    if row is None or row["status"] != DrawStatus.OPEN:
        raise GameError(T("no draw is proposed in this turn; propose one with DRAW PROPOSE"))
    votes = row["votes"]
    if action == "reject":
        votes[player.power] = "reject"
        draw_votes.record_votes(db, game.id, _turn(game), votes, DrawStatus.REJECTED)
        log_event(db, game.id, now, player.email, EventKind.DRAW_REJECT, {"power": player.power})
        notices.draw_news(db, game, [p for p in players(db, game.id) if p.id != player.id], now, "rejected")
        return T("you rejected the draw; it is off")
    votes[player.power] = "accept"
    draw_votes.record_votes(db, game.id, _turn(game), votes, DrawStatus.OPEN)
    log_event(db, game.id, now, player.email, EventKind.DRAW_ACCEPT, {"power": player.power})
    return recount(db, game, now) or T("you accepted the draw; waiting for the others")


def _named_powers(db: Database, game: Game, named: Sequence[str]) -> list[str] | None:
    """The powers a proposal names, in the variant's order; None when they are every power still in the game.
    Refused where the game does not allow it, with fewer than two powers, or with a power out of the game."""
    if not game.settings.named_draws:
        raise GameError(
            T(
                "a draw in game {game} is shared by every power still in the game: write DRAW PROPOSE alone",
                game=game.name,
            )
        )
    powers = powers_named(game.variant, named)
    still_in = {p.power for p in voters(db, game)}
    out = [p for p in powers if p not in still_in]
    if out:
        raise GameError(
            T("{powers} cannot share a draw: no longer in the game", powers=[game.variant.power(p) for p in out])
        )
    if len(powers) < 2:
        raise GameError(T("a draw needs at least two powers"))
    if set(powers) == still_in:
        return None
    return [p for p in game.variant.powers if p in powers]


def recount(db: Database, game: Game, now: datetime) -> Text | None:
    """End the game in a draw when every voter has accepted the open proposal; a message if it ended."""
    row = _open(db, game)
    if row is None or row["status"] != DrawStatus.OPEN:
        return None
    votes = row["votes"]
    still_in = voters(db, game)
    if not still_in or any(votes.get(p.power) != "accept" for p in still_in):
        return None
    draw_votes.record_votes(db, game.id, _turn(game), votes, DrawStatus.ACCEPTED)
    game.status, game.deadline = GameStatus.FINISHED, None
    named = row.get("powers")
    among = [p.power for p in still_in if p.power and (named is None or p.power in named)]
    game.result = {"kind": "draw", "powers": sorted(among)}
    if named is not None:
        game.result["named"] = True
    save_game(db, game, now)
    log_event(db, game.id, now, "judge", EventKind.DRAW, game.result)
    notices.game_over(db, game, players(db, game.id), now)
    return T("the draw is accepted by everyone: the game is over")


def concede(db: Database, game: Game, player: Player, now: datetime) -> Text:
    """``CONCEDE``: in a game of two powers (the two-player variants, or any game with two powers left in it) the
    player gives the game up and the other power wins at once."""
    if game.status not in PLAYING:
        raise GameError(T("game {game} is {status}", game=game.name, status=T(game.status)))
    still_in = [p for p in voters(db, game) if p.power]
    others = sorted({p.power for p in still_in if p.power and p.power != player.power})
    if player.power not in {p.power for p in still_in} or len(others) != 1:
        raise GameError(
            T(
                "CONCEDE ends a game of two powers: {game} has {count} powers still in it",
                game=game.name,
                count=len({p.power for p in still_in}),
            )
        )
    winner = others[0]
    game.status, game.deadline = GameStatus.FINISHED, None
    game.result = {"kind": "solo", "winner": winner, "conceded": player.power}
    save_game(db, game, now)
    log_event(db, game.id, now, player.email, EventKind.CONCEDE, game.result)
    notices.game_over(db, game, players(db, game.id), now)
    return T(
        "{power} concedes: {winner} wins game {game}",
        power=game.variant.power(player.power or ""),
        winner=game.variant.power(winner),
        game=game.name,
    )
