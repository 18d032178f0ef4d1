"""Adjudicating a phase: on the game master's word, when everyone is READY, or at the deadline (judge.game.scheduling);
the phase is kept, the players told (notices), eliminations, victory and draws recorded."""

from __future__ import annotations

import json
from datetime import datetime

from sqlite_utils import Database

from judge.game import notices
from judge.game.absences import clear_of_absences
from judge.game.bot_seats import bot_orders
from judge.game.draws import lapse
from judge.game.duties import has_presence, owing_powers, waiting_on
from judge.game.future_orders import open_phase
from judge.game.lookup import GameError, get_game
from judge.game.master_notices import after_adjudication
from judge.game.records import (
    Game,
    given_orders,
    load_game,
    log_event,
    players,
    save_game,
    save_player,
)
from judge.game.settings import Resolve
from judge.game.track_record import count_phase
from judge.i18n import T
from judge.rules.order_json import order_to_json
from judge.rules.orders import order_text
from judge.rules.phase import Step
from judge.rules.position_json import position_to_json
from judge.rules.reason_json import reason_from_json, reason_to_json
from judge.rules.turn import TurnResult, play
from judge.store.events import EventKind
from judge.store.phases import keep_phase
from judge.store.statuses import PLAYING, GameStatus, Role
from judge.timeutil import iso_utc


def process_game(db: Database, name: str, now: datetime, sender: str = "master") -> TurnResult:
    """Adjudicate the current phase now, as if its deadline had passed."""
    game = get_game(db, name)
    if game.status not in PLAYING:
        raise GameError(T("game {game} is {status}", game=game.name, status=T(game.status)))
    return adjudicate(db, game, now, sender)


def sides(db: Database, game: Game) -> tuple[tuple[str, ...], ...]:
    """With the ``combined`` setting: the powers each player (address) holds, when more than one, in variant order.

    Only powers still played count: one whose player resigned or was ejected (the address stays on the seat), or
    that fell into civil disorder or was eliminated, is out of the side and counts alone (docs/rules.md)."""
    if not game.settings.combined:
        return ()
    held: dict[str, list[str]] = {}
    for p in players(db, game.id):
        if p.active and p.power and p.email:
            held.setdefault(p.email, []).append(p.power)
    order = {power: i for i, power in enumerate(game.variant.powers)}
    return tuple(tuple(sorted(ps, key=order.__getitem__)) for ps in held.values() if len(ps) > 1)


def adjudicate(db: Database, game: Game, now: datetime, sender: str) -> TurnResult:
    assert game.position is not None
    variant, before = game.variant, game.position
    phase = before.phase.code
    given = given_orders(db, game, phase)  # typed as read on arrival: no order text is parsed here
    given.update(bot_orders(db, game, given))  # the stand-in's, for powers in civil disorder (the bots setting)
    submitted = {power: [s.text or "" for s in orders] for power, orders in given.items()}
    turn = play(
        variant,
        before,
        [s for orders in given.values() for s in orders],
        game.settings.victory(variant),
        sides(db, game),
        edition=game.settings.rules,
    )
    results = [
        {
            "power": r.power,
            "input": r.input,
            "order": order_text(variant.geo, r.order, before.units) if r.order is not None else None,
            "typed": order_to_json(variant.geo, r.order, before.units) if r.order is not None else None,
            "outcome": r.outcome.value,
            "reason": r.reason,
            "why": reason_to_json(r.reason),  # the reason typed, worded again in each reader's language later
        }
        for r in turn.results
    ]
    keep_phase(
        db,
        game.id,
        phase,
        {
            "board_before": json.dumps(position_to_json(variant, before)),
            "orders": json.dumps(submitted),
            "results": json.dumps(results),  # a reason also as its English text, as before
            "board_after": json.dumps(position_to_json(variant, turn.position)),
            "adjudicated_at": iso_utc(now),
        },
    )
    count_phase(db, game, before, players(db, game.id), given, now)  # the players' records (in_grace still says)
    lapse(db, game.id, turn.position.phase)
    game.position = turn.position
    game.in_grace = False
    seats = players(db, game.id)
    newly_out = []
    for p in seats:
        p.ready = False
        if p.role == Role.PLAYER and p.power and not p.eliminated and not has_presence(turn.position, p.power):
            p.eliminated = True
            newly_out.append(p)
        save_player(db, p)
    if turn.winner is not None:
        game.status, game.deadline = GameStatus.FINISHED, None
        game.result = {"kind": "solo", "winner": turn.winner}
        side = next((s for s in sides(db, game) if turn.winner in s), None)
        if side is not None:
            game.result["powers"] = list(side)
    elif turn.draw:
        game.status, game.deadline = GameStatus.FINISHED, None
        held = {side[0]: side for side in sides(db, game)}  # a combined side shares the draw with all its powers
        game.result = {
            "kind": "draw",
            "powers": sorted(p for name in turn.draw for p in held.get(name, (name,))),
            "by": "rule",
        }
    elif game.status == GameStatus.ACTIVE:
        game.deadline = clear_of_absences(db, game, now + game.settings.deadline_for(turn.position.phase.step))
    save_game(db, game, now)
    log_event(
        db,
        game.id,
        now,
        sender,
        EventKind.ADJUDICATE,
        {"phase": phase, "next": turn.position.phase.code, "winner": turn.winner},
    )
    told = [{**line, "reason": reason_from_json(variant, line["why"])} for line in results]  # as HISTORY reads it
    notices.results(db, game, seats, before, turn, told, now, sides(db, game) if turn.scores else ())
    for p in newly_out:
        notices.eliminated(db, game, p, now)
    after_adjudication(db, game, before, submitted, now)
    if game.status == GameStatus.FINISHED:
        notices.game_over(db, game, seats, now)
    kept = game.status == GameStatus.ACTIVE and open_phase(db, game, now)
    _skip_idle_phase(db, game, now)
    if kept:  # orders kept for this phase may complete it (resolve = orders-in)
        maybe_adjudicate_when_ready(db, game, now)
    return turn


def maybe_adjudicate_when_ready(db: Database, game: Game, now: datetime) -> TurnResult | None:
    """Adjudicate at once when no active player who owes orders is still waited for (judge.game.duties.waiting_on:
    everyone READY, or with ``resolve = orders-in`` every complete set in and nobody waiting).

    Called inside the caller's write transaction (the one that stored the orders or READY); the game is read again
    there, so a phase another writer has just adjudicated (or a game just paused) is left alone."""
    current = load_game(db, game.name)
    if current is None or current.phase != game.phase:
        return None
    game = current
    seats = players(db, game.id)
    owing = owing_powers(game)
    due = game.status == GameStatus.ACTIVE and any(p.active and p.power in owing for p in seats)
    if due and not waiting_on(db, game, seats):
        return adjudicate(db, game, now, "orders in" if game.settings.resolve is Resolve.ORDERS_IN else "ready")
    return None


def _skip_idle_phase(db: Database, game: Game, now: datetime) -> None:
    """A retreat or adjustment phase in which no active player owes anything (only powers in civil disorder have a
    unit to retreat or an adjustment due) is played at once: nobody is waited for."""
    if game.status != GameStatus.ACTIVE or game.position is None or game.position.phase.step is Step.MOVEMENT:
        return
    owing = owing_powers(game)
    if not any(p.active and p.power in owing for p in players(db, game.id)):
        adjudicate(db, game, now, "nobody owes")
