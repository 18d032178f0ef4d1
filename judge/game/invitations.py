"""The deadline invitations (issue #23, ``SET CALENDAR``): which calendar event a mail carries, as a value.

One event per deadline: each address of a seat gets one event per game and phase, its UID fixed when it is first
mailed. A mail that sets a deadline carries the event as a request (``METHOD:REQUEST``); when the deadline of the same
phase moves (extended, shortened, a declared absence, the game resumed, rolled back to it) the same UID goes out again
with a higher SEQUENCE, so the calendar moves the event it has instead of adding one. A pause, the end of the game and
a player leaving his seat cancel the open event (``METHOD:CANCEL``), and a request after a cancel raises the sequence
again. The row kept per event (judge.store.calendar_rows) is how the sequence rises and never falls.

An address gets invitations while one of its seats in the game plays on and none of its seats said SET CALENDAR OFF
(an address holding two powers has one calendar, one event per deadline); cancels only where a request went before.
The game server decides all this; the mail side renders it (judge.reports.ical) and the SMTP side adds the part.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlite_utils import Database

from judge.game.records import Game, Player
from judge.game.reminders import usable
from judge.store import calendar_rows
from judge.store.statuses import GameStatus, Role
from judge.store.users import known_judge_address
from judge.timeutil import iso_utc, parse_iso_utc


class Method(StrEnum):
    """The iTIP method of an invitation (RFC 5546)."""

    REQUEST = "REQUEST"
    CANCEL = "CANCEL"


class Why(StrEnum):
    """Why an event is cancelled; the calendar's description words it."""

    PAUSED = "paused"
    OVER = "over"
    LEFT = "left"  # the player no longer holds the seat (ejected, replaced)


@dataclass(frozen=True)
class Invitation:
    """One calendar event as a mail carries it: the deadline of ``phase`` for ``attendee``; ``alarm`` is how long
    before the deadline the calendar reminds (the player's first reminder), None for no alarm."""

    method: Method
    uid: str
    sequence: int
    attendee: str
    game: str
    phase: str
    deadline: datetime
    alarm: timedelta | None = None
    why: Why | None = None


def _seats_of(seats: Sequence[Player], address: str) -> list[Player]:
    return [p for p in seats if p.role == Role.PLAYER and p.power and p.email == address]


def request(db: Database, game: Game, seats: Sequence[Player], address: str, now: datetime) -> Invitation | None:
    """The event of the game's current deadline for ``address``, kept as mailed now; None when the game has no running
    deadline or the address gets no invitations (no seat of it plays on, or one of them said SET CALENDAR OFF)."""
    own = _seats_of(seats, address)
    active = [p for p in own if p.active]
    if not active or not all(p.calendar for p in own):
        return None
    if game.status != GameStatus.ACTIVE or game.deadline is None or game.position is None:
        return None
    phase = game.position.phase
    kept = calendar_rows.event_row(db, game.id, address, phase.code)
    deadline = iso_utc(game.deadline)
    if kept is None:
        uid, sequence = _new_uid(db, game, phase.code), 0
    elif kept["cancelled"] or kept["deadline"] != deadline:
        uid, sequence = kept["uid"], kept["sequence"] + 1
    else:  # the same event mailed again (a seat taken over): nothing about it changed
        uid, sequence = kept["uid"], kept["sequence"]
    _keep(db, game, address, phase.code, uid, sequence, deadline, False, now)
    leads = [lead for p in active for lead in usable(p.lead_times(game), game.settings.deadline_for(phase.step))]
    alarm = timedelta(seconds=max(leads)) if leads else None
    return Invitation(Method.REQUEST, uid, sequence, address, game.name, phase.code, game.deadline, alarm)


def cancel(
    db: Database, game: Game, seats: Sequence[Player], address: str, now: datetime, why: Why
) -> Invitation | None:
    """The cancel of the event of ``address`` still to come (a deadline after ``now`` that was mailed and not
    cancelled: the current phase's, else the latest), kept as mailed now; None when there is none or the address
    said SET CALENDAR OFF. A deadline already passed is left in the calendar as it was."""
    own = _seats_of(seats, address)
    if not own or not all(p.calendar for p in own):
        return None
    current = calendar_rows.event_row(db, game.id, address, game.phase) if game.phase else None
    if current is not None and not current["cancelled"] and current["deadline"] > iso_utc(now):
        kept: dict[str, Any] | None = current  # the deadline being played to
    else:
        kept = calendar_rows.open_event(db, game.id, address, iso_utc(now))
    if kept is None:
        return None
    sequence = kept["sequence"] + 1
    _keep(db, game, address, kept["phase"], kept["uid"], sequence, kept["deadline"], True, now)
    deadline = parse_iso_utc(kept["deadline"])
    return Invitation(Method.CANCEL, kept["uid"], sequence, address, game.name, kept["phase"], deadline, why=why)


def _new_uid(db: Database, game: Game, phase: str) -> str:
    """A new event's UID: the game and phase for a reader, random bits so that no two events ever share it, and the
    judge's domain (RFC 5545 3.8.4.7)."""
    domain = known_judge_address(db).rpartition("@")[2] or "judge.invalid"
    return f"deadline-{game.name}-{phase}-{secrets.token_hex(8)}@{domain}"


def _keep(
    db: Database,
    game: Game,
    address: str,
    phase: str,
    uid: str,
    sequence: int,
    deadline: str,
    cancelled: bool,
    now: datetime,
) -> None:
    calendar_rows.keep_event(
        db,
        {
            "game_id": game.id,
            "address": address,
            "phase": phase,
            "uid": uid,
            "sequence": sequence,
            "deadline": deadline,
            "cancelled": int(cancelled),
            "updated_at": iso_utc(now),
        },
    )
