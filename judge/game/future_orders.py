"""Orders for a later phase of the same game (``PHASE F1901R`` and the orders after it): read when they arrive, kept
as the lines the player wrote beside the orders they were read as (typed), checked when that phase opens as if sent
then, and the player told what became of each (a notice).

A later phase is one of those between now and the next movement phase, that one included: this year's retreats and
adjustments, or the next movement. Orders kept for a phase that is skipped (nothing was due in it) are dropped when
the game passes it, and the player is told.
"""

from __future__ import annotations

from datetime import datetime

from sqlite_utils import Database

from judge.game import notices
from judge.game.notices import NoticeKind
from judge.game.order_sets import merge_given
from judge.game.records import Game, Player, players, read_given, stored_given
from judge.i18n import T, Text, phase_words
from judge.rules.parse import OrderError, parse_order
from judge.rules.phase import Phase, Season, Step
from judge.rules.turn import Submitted
from judge.store.future_rows import all_future_lines, drop_future_lines, future_lines, set_future_lines
from judge.store.statuses import Role
from judge.timeutil import iso_utc

_SEASON_ORDER = {Season.SPRING: 0, Season.FALL: 1, Season.WINTER: 2}
_STEP_ORDER = {Step.MOVEMENT: 0, Step.RETREAT: 1, Step.ADJUSTMENT: 2}


def _order_key(phase: Phase) -> tuple[int, int, int]:
    return phase.year, _SEASON_ORDER[phase.season], _STEP_ORDER[phase.step]


def later_phases(current: Phase) -> list[Phase]:
    """The phases orders may be kept for: after ``current``, up to and including the next movement phase."""
    out = [current.after()]
    while out[-1].step is not Step.MOVEMENT:
        out.append(out[-1].after())
    return out


def keep_future_order(db: Database, game: Game, player: Player, phase_code: str, text: str, now: datetime) -> Text:
    """Keep one order line for a later phase; the answer says it is kept, or why it cannot be."""
    assert game.position is not None and player.power is not None
    phase = Phase.parse(phase_code)
    allowed = later_phases(game.position.phase)
    if phase not in allowed:
        return T(
            "ERROR: orders can be kept for {phases} only (the game is in {phase})",
            phases=[phase_words(p) for p in allowed],
            phase=phase_words(game.position.phase),
        )
    parsed = parse_order(text, game.variant.geo, phase.step)
    if isinstance(parsed, OrderError):
        return T("ERROR: {reason}", reason=parsed.reason)
    kept = future_lines(db, game.id, phase.code, player.power)
    given = stored_given(game.variant.geo, [Submitted(player.power, text, parsed)])
    set_future_lines(db, game.id, phase.code, player.power, [*kept, *given], iso_utc(now))
    return T("kept for {phase}: checked when that phase opens", phase=phase_words(phase))


def clear_future_orders(db: Database, game: Game, player: Player, phase_code: str) -> None:
    drop_future_lines(db, game.id, phase_code, player.power or "")


def open_phase(db: Database, game: Game, now: datetime) -> bool:
    """The game's current phase has just opened: the orders kept for it are checked and merged as if sent now, and
    each player is told what became of them; orders kept for a phase the game has passed are dropped (told too).
    True when some kept orders were merged."""
    if game.position is None:
        return False
    current = game.position.phase
    seats = {p.power: p for p in players(db, game.id) if p.role == Role.PLAYER and p.power}
    merged = False
    for code, power, given in all_future_lines(db, game.id):
        phase = Phase.parse(code)
        if _order_key(phase) > _order_key(current):
            continue
        drop_future_lines(db, game.id, code, power)
        seat = seats.get(power)
        if seat is None:
            continue
        if phase != current or not seat.active:
            answers = [
                {"line": line, "answer": T("not used: nothing was due from you in that phase")} for line, _ in given
            ]
        else:
            answers = [
                {"line": s.text, "answer": merge_given(db, game, seat, s, now)}
                for s in read_given(game.variant.geo, power, given)
            ]
            merged = True
        notices.tell(
            db,
            seat.email,
            NoticeKind.FUTURE_ORDERS,
            now,
            game,
            player=seat,
            phase=phase_words(phase),
            answers=answers,
        )
    return merged
