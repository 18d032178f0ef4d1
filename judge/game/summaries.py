"""What the information commands read of a game, as plain values: a player's own order sets (ORDERS), who plays
(WHOGAME), the centres year by year with eliminations and seat changes (SUMMARY), a played phase's picture facts
(MAP). Nothing here is worded: the command side words the values in the reader's language."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from judge.game import fog
from judge.game.adjudication import sides
from judge.game.duties import owing_powers
from judge.game.notices import (
    centre_history,
    neutral_units,
    points_history,
    points_of,
    postal_view,
    shown_scores,
    tally,
)
from judge.game.order_sets import order_summary
from judge.game.records import Game, Player, given_orders, players
from judge.game.views import plays_bot
from judge.rules.board import Position
from judge.rules.position_json import position_from_json
from judge.rules.reason_json import reason_from_json, reason_to_json
from judge.rules.turn import play
from judge.store import press_rows
from judge.store.events import EventKind, events_of
from judge.store.phases import played_phases
from judge.store.statuses import GameStatus, Role


def my_order_sets(db: Database, game: Game, player: Player) -> list[dict[str, Any]]:
    """The order set of every power the signed-on player holds in ``game`` (seats with the same address), each
    with what it still owes (``owes``: whether the power has orders to give at all in this phase)."""
    owing = owing_powers(game)
    held = [p for p in players(db, game.id) if p.active and p.email == player.email] or [player]
    return [{**order_summary(db, game, seat), "owes": seat.power in owing} for seat in held if seat.power]


@dataclass(frozen=True)
class Seat:
    power: str | None
    email: str | None  # None where the game hides who plays
    resigned: bool
    eliminated: bool
    bot: bool = False  # the stand-in bot plays it now (judge.game.views.plays_bot)


def who_plays(db: Database, game: Game) -> tuple[list[Seat], int, bool]:
    """The seats in the variant's order of powers (addresses hidden in an anonymous game until it ends), how many
    observe, and whether addresses were hidden."""
    hidden = game.settings.anonymous and game.status != GameStatus.FINISHED
    seats = [p for p in players(db, game.id) if p.role == Role.PLAYER]
    order = {power: i for i, power in enumerate(game.variant.powers)}
    seats.sort(key=lambda p: (order.get(p.power or "", len(order)), p.id))
    observers = sum(1 for p in players(db, game.id) if p.role == Role.OBSERVER)
    return (
        [Seat(p.power, None if hidden else p.email, p.resigned, p.eliminated, plays_bot(game, p)) for p in seats],
        observers,
        hidden,
    )


@dataclass(frozen=True)
class Change:
    """A seat that changed hands or was given up: ``what`` is replace, resign or eject; ``at`` an ISO UTC time."""

    at: str
    power: str
    what: EventKind


@dataclass(frozen=True)
class CentreSummary:
    years: list[tuple[int, dict[str, int]]]  # (year, centres per power) at the start and after each Fall
    eliminated: list[tuple[str, int]]  # (power, the year it was left without centres)
    changes: list[Change]
    points: list[tuple[int, dict[str, int]]] | None = None  # (year, victory points per power) where a game counts them


def centre_summary(db: Database, game: Game) -> CentreSummary:
    """The centre count of each power at the start and after each year's Fall, the years the powers were eliminated
    in, and the takeovers, resignations and ejections, oldest first."""
    years: list[tuple[int, dict[str, int]]] = []
    rows = played_phases(db, game.id)
    if rows:
        start = json.loads(rows[0]["board_before"])
        years.append((game.variant.start_year - 1, {p: len(c) for p, c in start["supply_centers"].items()}))
    elif game.position is not None:
        years.append((game.variant.start_year - 1, _counts(game.position)))
    years += [(h["year"], h["centres"]) for h in centre_history(db, game)]
    eliminated = []
    for seat in players(db, game.id):
        if seat.eliminated and seat.power:
            gone = [year for year, counts in years if not counts.get(seat.power)]
            eliminated.append((seat.power, gone[0] if gone else years[-1][0] if years else game.variant.start_year))
    changes = [
        Change(at, (detail or {}).get("power") or "", kind)
        for kind in (EventKind.REPLACE, EventKind.RESIGN, EventKind.EJECT, EventKind.ABANDONED)
        for at, detail in events_of(db, game.id, kind)
    ]
    changes.sort(key=lambda c: c.at)
    points = _points_by_year(db, game) if game.settings.victory(game.variant).uses_points else None
    return CentreSummary(years, sorted(eliminated, key=lambda e: (e[1], e[0])), changes, points)


def _points_by_year(db: Database, game: Game) -> list[tuple[int, dict[str, int]]]:
    """Each power's victory points at the start and after each year's Fall, from the stored boards."""
    rows = played_phases(db, game.id)
    start = position_from_json(game.variant, json.loads(rows[0]["board_before"])) if rows else game.position
    first = [(game.variant.start_year - 1, points_of(game, start))] if start is not None else []
    return first + [(h["year"], h["points"]) for h in points_history(db, game)]


def _counts(pos: Position) -> dict[str, int]:
    counts: dict[str, int] = {}
    for owner in pos.owners.values():
        counts[owner] = counts.get(owner, 0) + 1
    return counts


@dataclass(frozen=True)
class PhasePicture:
    """What a map of one phase draws: the board before it, the orders given with their results (none for the
    current phase), and the board after (None for the current phase)."""

    phase: str
    before: Position
    lines: list[dict[str, Any]]
    after: Position | None


def phase_picture(db: Database, game: Game, phase: str | None) -> PhasePicture | None:
    """The current phase's board (``phase`` None or the current phase), or a played phase with its orders and
    results; None when the game has no such phase."""
    if phase is None or (game.position is not None and phase == game.position.phase.code):
        return None if game.position is None else PhasePicture(game.position.phase.code, game.position, [], None)
    for row in played_phases(db, game.id):
        if row["phase"] == phase:
            before = position_from_json(game.variant, json.loads(row["board_before"]))
            after = position_from_json(game.variant, json.loads(row["board_after"]))
            return PhasePicture(row["phase"], before, json.loads(row["results"]), after)
    return None


def phase_results(
    db: Database, game: Game, phase: str | None = None, powers: tuple[str, ...] | None = None
) -> list[dict[str, Any]]:
    """The facts the results mail of each played phase was written from (all phases, first to last, or the one
    named): the phase, each power's orders and results, the board after, the centre tally with its changes, what
    became of the neutral units, the solo line, the victory points after a Fall (rebuilt from the board after it,
    in a game that counts points), the postal press published with it, the next phase and the winner of a solo won
    in it. With ``powers`` (Fog of War, judge.game.fog.reader_powers): each phase as those powers saw it."""
    out = []
    result = game.result or {}
    rows = played_phases(db, game.id)
    press = _postal_by_phase(db, game, rows)
    held = sides(db, game)
    for i, row in enumerate(rows):
        if phase is not None and row["phase"] != phase:
            continue
        before = position_from_json(game.variant, json.loads(row["board_before"]))
        board = json.loads(row["board_after"])
        after = position_from_json(game.variant, board)
        by_power: dict[str, list[dict[str, Any]]] = {}
        for line in _typed_reasons(db, game, row["phase"], before, json.loads(row["results"])):
            by_power.setdefault(line["power"], []).append(line)
        last = i == len(rows) - 1
        fall_ended = row["phase"].startswith("F") and board["phase"][0] in "WS"  # the Fall's last phase: scores
        facts = {
            "phase": before.phase,
            "results": by_power,
            "board": board,
            "next_phase": after.phase,
            "tally": tally(game, after, before),
            "neutral": neutral_units(game, before, after),
            "winner": result.get("winner") if last and result.get("kind") == "solo" else None,
            "threshold": game.settings.solo_line(game.variant, before.phase.year),
            "scores": shown_scores(game, points_of(game, after), held) if fall_ended else None,
            "postal_press": press.get(i, []),
        }
        out.append(facts if powers is None else fog.results_seen(game.variant, facts, before, after, powers))
    return out


def _typed_reasons(
    db: Database, game: Game, phase: str, before: Position, lines: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``lines`` with each reason typed, so that it is worded in the reader's language: as kept (``why``), or for a
    phase played before reasons were kept typed, the reason the rules engine gives again when the phase is played
    once more from the board before it and the orders given; a reason it does not give again word for word stays the
    English text kept."""
    if all("why" in line or not line.get("reason") for line in lines):
        return [{**line, "reason": reason_from_json(game.variant, line.get("why"))} for line in lines]
    given = given_orders(db, game, phase)
    try:
        turn = play(game.variant, before, [s for orders in given.values() for s in orders], None, sides(db, game))
    except (KeyError, ValueError, IndexError, AssertionError):  # orders that no longer fit the board: as kept
        return lines
    again = {(r.power, str(r.reason)): reason_to_json(r.reason) for r in turn.results if r.reason is not None}
    out = []
    for line in lines:
        why = line["why"] if "why" in line else again.get((line["power"], str(line.get("reason"))))
        out.append({**line, "reason": reason_from_json(game.variant, why)} if why is not None else line)
    return out


def _postal_by_phase(db: Database, game: Game, rows: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """The postal press each played phase's results mail published (by the phase's index in ``rows``): press is
    published with the first results mail of an adjudication, so it goes with the first phase played at that time
    (a phase skipped at once is played at the same moment, after it)."""
    first_at: dict[str, int] = {}
    for i, row in enumerate(rows):
        first_at.setdefault(row["adjudicated_at"], i)
    out: dict[int, list[dict[str, Any]]] = {}
    for press in press_rows.published_postal_rows(db, game.id):
        at = first_at.get(press["published_at"])
        if at is not None:
            out.setdefault(at, []).append(postal_view(press))
    return out
