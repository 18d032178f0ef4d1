"""A player's record across games (issue #24): the deadlines an address owed and met, missed or met late, the misses
excused, its resignations, abandonments and ejections — counted as they happen, in the caller's transaction
(``player_records``, migration m021), and read by address: shown to the game master at a join (``judge game show``,
``WHOIS`` by mail, the join notice) and to the player (``RECORD``); a game may refuse joiners below its
``min_reliability``. The rules are in docs/commands.md, "A player's record"."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.facts import RECORD_GAMES, RECORD_MIN_DEADLINES, is_bot_address
from judge.game.duties import owing_powers
from judge.game.lookup import GameError
from judge.game.records import Game, Player
from judge.i18n import T, Text
from judge.rules.board import Position
from judge.store import record_rows
from judge.store.events import EventKind, events_of
from judge.timeutil import iso_utc


@dataclass(frozen=True)
class Record:
    """An address's record: the sums over every game it played, and its reliability over its latest games."""

    email: str
    games: int = 0  # games in which it owed at least one deadline, or left a power
    owed: int = 0
    missed: int = 0
    late: int = 0
    excused: int = 0
    resigned: int = 0
    abandoned: int = 0
    ejected: int = 0
    recent_owed: int = 0  # over the latest RECORD_GAMES games in which it owed a deadline
    recent_met: int = 0

    @property
    def met(self) -> int:
        return self.owed - self.missed

    @property
    def reliability(self) -> float | None:
        """Deadlines met of those owed in its latest games; None while the record is too short to judge."""
        if self.recent_owed < RECORD_MIN_DEADLINES:
            return None
        return self.recent_met / self.recent_owed

    def facts(self) -> dict[str, Any]:
        """As a mail or the command line shows it."""
        out = {k: v for k, v in dataclasses.asdict(self).items()}
        out["met"] = self.met
        share = self.reliability
        out["reliability"] = None if share is None else round(share, 2)
        out["percent"] = None if share is None else round(100 * share)
        return out


def record_lines(db: Database, email: str) -> list[Text]:
    """An address's record as a reply, the game master's join notice and ``judge game show`` word it: the sums, the
    reliability (or why there is none yet) and its latest games, one line each."""
    record = record_of(db, email)
    address = email.lower()
    if not record.games:
        return [T("{address}: no record yet: no deadline owed in any game of this judge", address=address)]
    lines = [
        T("{address}: games {games}", address=address, games=record.games),
        T(
            "deadlines owed {owed}: met {met} (of them late {late}), missed {missed} (of them excused {excused})",
            owed=record.owed,
            met=record.met,
            late=record.late,
            missed=record.missed,
            excused=record.excused,
        ),
        T(
            "resigned {resigned}, abandoned (missed deadlines) {abandoned}, ejected by a game master {ejected}",
            resigned=record.resigned,
            abandoned=record.abandoned,
            ejected=record.ejected,
        ),
    ]
    share = record.reliability
    lines.append(
        T("reliability: not judged yet (fewer than {count} deadlines owed)", count=RECORD_MIN_DEADLINES)
        if share is None
        else T(
            "reliability {percent}%: {met} of {owed} deadlines met in the latest {games} games",
            percent=round(100 * share),
            met=record.recent_met,
            owed=record.recent_owed,
            games=RECORD_GAMES,
        )
    )
    for row in record_rows.records_of(db, email)[:RECORD_GAMES]:
        left = [
            word
            for key, word in (("resigned", T("resigned")), ("abandoned", T("abandoned")), ("ejected", T("ejected")))
            if row[key]
        ]
        lines.append(
            T(
                "  {game}: owed {owed}, missed {missed}, late {late}, excused {excused}{left}",
                game=row["game"] or "-",
                owed=row["owed"],
                missed=row["missed"],
                late=row["late"],
                excused=row["excused"],
                left=T("; {how}", how=left) if left else "",
            )
        )
    return lines


def record_of(db: Database, email: str) -> Record:
    rows = record_rows.records_of(db, email)
    sums = {k: sum(int(r[k]) for r in rows) for k in record_rows.COUNTERS}
    recent = [r for r in rows if r["owed"]][:RECORD_GAMES]
    games = sum(1 for r in rows if r["owed"] or r["resigned"] or r["abandoned"] or r["ejected"])
    return Record(
        email=email.lower(),
        games=games,
        recent_owed=sum(int(r["owed"]) for r in recent),
        recent_met=sum(int(r["owed"]) - int(r["missed"]) for r in recent),
        **sums,
    )


def count_phase(
    db: Database,
    game: Game,
    before: Position,
    seats: Sequence[Player],
    given: Mapping[str, Sequence[Any]],
    now: datetime,
) -> None:
    """At an adjudication: each active seat whose power owed orders owed a deadline, and missed it when it gave none;
    one whose orders came in while the judge waited past the deadline (grace, nmr_wait) met it late. A bot's seat
    and a power in civil disorder are not counted."""
    owed = owing_powers(dataclasses.replace(game, position=before))
    late = _waited_for(db, game) if game.in_grace else set()
    at = iso_utc(now)
    for seat in seats:
        if not seat.active or seat.power not in owed or is_bot_address(seat.email):
            continue
        missed = not given.get(seat.power)
        record_rows.count(
            db, seat.email, game.id, at, owed=1, missed=int(missed), late=int(not missed and seat.power in late)
        )


def _waited_for(db: Database, game: Game) -> set[str]:
    """The powers the judge is waiting for past the deadline of the current phase (the game's last grace event: a
    game waits once a phase, and ``in_grace`` is cleared when the phase is played)."""
    waits = events_of(db, game.id, EventKind.GRACE)
    return set((waits[-1][1] or {}).get("late") or ()) if waits else set()


def count_leaving(db: Database, game: Game, seat: Player, how: str, now: datetime) -> None:
    """A seat left its power: ``resigned``, ``abandoned`` (civil disorder after missed deadlines) or ``ejected``."""
    if seat.power and not is_bot_address(seat.email):
        record_rows.count(db, seat.email, game.id, iso_utc(now), **{how: 1})


def count_excused(db: Database, game: Game, seat: Player, now: datetime) -> None:
    record_rows.count(db, seat.email, game.id, iso_utc(now), excused=1)


def excused_so_far(db: Database, game: Game, seat: Player) -> int:
    return record_rows.excused_in(db, seat.email, game.id)


def refuse_unreliable(db: Database, game: Game, email: str) -> None:
    """A game with ``min_reliability`` refuses an address that met fewer of its recent deadlines; one whose record is
    too short to judge (a new address) is welcome."""
    needed = game.settings.min_reliability
    if not needed:
        return
    record = record_of(db, email)
    share = record.reliability
    if share is not None and share < needed:
        raise GameError(
            T(
                "{game} asks its players to have met {needed}% of their deadlines; {address} met {met} of the "
                "{owed} deadlines of its latest games ({percent}%)",
                game=game.name,
                needed=round(100 * needed),
                address=email.lower(),
                met=record.recent_met,
                owed=record.recent_owed,
                percent=round(100 * share),
            )
        )
