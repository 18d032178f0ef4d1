"""A game's story as typed values, read once from the store for whatever shows or exports it (the public archive's
pages, ``judge.web``; the game exports): the variant, who plays as the viewer may know it, every phase (the board
before and after, the orders with their outcomes, retreats and adjustments alike), the centres per power per year,
the public press and the result.

The viewing rule lives here, so that no page or export can show more than its viewer may see:

- ``Viewer.PUBLIC`` (the archive anyone may read) never sees an address, a password or private press; an anonymous
  game hides who plays which power until it ends (no address is shown to the public even then); a Fog of War game
  (``Variant.fog``) shows nothing of its play until it ends.
- ``Viewer.PLAYER`` sees what a player of the game is told (WHOGAME): the addresses, hidden in an anonymous game until
  it ends; Fog of War hides the play until the end as for the public.
- ``Viewer.HOST`` (the host's own tools) sees the whole story.

Nothing here is worded: the reader's words are the caller's (``judge.i18n``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from sqlite_utils import Database

from judge.game.notices import ANONYMOUS_SENDER
from judge.game.press import EVERYONE
from judge.game.records import Game, players
from judge.game.summaries import CentreSummary, centre_summary, phase_results, who_plays
from judge.rules.board import Position
from judge.rules.orders import Outcome
from judge.rules.phase import Phase
from judge.rules.position_json import position_from_json
from judge.rules.variant import Variant
from judge.store import press_rows
from judge.store.events import EventKind, events_of
from judge.store.phases import played_phases
from judge.store.statuses import GameStatus

__all__ = [
    "ANONYMOUS_SENDER",
    "GameResult",
    "OrderLine",
    "PressItem",
    "PressVenue",
    "ResultKind",
    "Story",
    "StoryPhase",
    "StorySeat",
    "Viewer",
    "fog_of_war",
    "result_of",
    "story_of",
]


class Viewer(StrEnum):
    """Who a story is told to (the module's docstring says what each may see)."""

    PUBLIC = "public"
    PLAYER = "player"
    HOST = "host"


class PressVenue(StrEnum):
    """Where public press was published: a BROADCAST to everyone, POSTAL PRESS with the results, a DIARY told at the
    end of the game."""

    BROADCAST = "broadcast"
    POSTAL = "postal"
    DIARY = "diary"


class ResultKind(StrEnum):
    SOLO = "solo"
    DRAW = "draw"
    ABANDONED = "abandoned"  # ended by the game master without a result


@dataclass(frozen=True)
class GameResult:
    """How a game ended: ``winner`` of a solo (with the powers of its combined side, if any, in ``powers``), the
    powers that share a draw, ``conceded`` by the power that gave a two-power game up, ``by`` rule or master."""

    kind: ResultKind
    winner: str | None = None
    powers: tuple[str, ...] = ()
    by: str | None = None
    conceded: str | None = None
    named: bool = False  # a draw the players voted, naming its powers


@dataclass(frozen=True)
class StorySeat:
    """A power's seat: ``address`` only where the viewer may know it (never for the public)."""

    power: str
    address: str | None
    resigned: bool
    eliminated: bool
    bot: bool


@dataclass(frozen=True)
class OrderLine:
    """One order of a played phase (or a unit that got none: ``written`` None), its outcome and why, and for a unit
    dislodged by it where it may retreat (``retreats``; empty: it is disbanded)."""

    power: str
    written: str | None  # the line as the player wrote it
    order: str | None  # the order as the judge read it (canonical, English abbreviations)
    typed: dict[str, Any] | None  # the order as JSON (judge.rules.order_json)
    outcome: Outcome | None
    reason: Any  # a judge.rules.words.Reason (or the English text kept), worded by judge.i18n
    dislodged: bool = False
    retreats: tuple[str, ...] = ()

    def facts(self) -> dict[str, Any]:
        """The line as the results mail's facts hold it (``judge.i18n.result_words`` words it)."""
        return {
            "power": self.power,
            "input": self.written,
            "order": self.order,
            "outcome": self.outcome.value if self.outcome is not None else None,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class PressItem:
    """Public press: ``sender`` a power, or ``ANONYMOUS_SENDER`` for grey press; ``phase`` the code of the phase it
    belongs to (the one played when postal press was published, the one running when a broadcast was sent)."""

    venue: PressVenue
    phase: str
    sender: str
    body: str
    at: str | None = None  # ISO UTC, where known


@dataclass(frozen=True)
class StoryPhase:
    """One phase: the board ``before`` it, its orders and their outcomes, the board ``after`` (None: the phase now
    being played, whose orders are not told), the centres per power after it (before it, for the current phase), the
    public press that belongs to it and when it was played."""

    phase: Phase
    before: Position
    after: Position | None
    lines: tuple[OrderLine, ...]
    centres: dict[str, int]
    press: tuple[PressItem, ...] = ()
    played_at: str | None = None

    @property
    def code(self) -> str:
        return self.phase.code

    @property
    def played(self) -> bool:
        return self.after is not None


@dataclass(frozen=True)
class Story:
    """A game as its viewer may see it. ``fogged``: a Fog of War game not yet over, of which nothing is told (no
    phases, centres or press); ``anonymous``: who plays is hidden (a running anonymous game)."""

    name: str
    variant: Variant
    status: GameStatus
    viewer: Viewer
    fogged: bool
    anonymous: bool
    seats: tuple[StorySeat, ...]
    phases: tuple[StoryPhase, ...]  # played, first to last, then the current one while the game runs
    years: tuple[tuple[int, dict[str, int]], ...]  # centres per power at the start and after each Fall
    points: tuple[tuple[int, dict[str, int]], ...] | None  # victory points, where the game counts them
    eliminated: tuple[tuple[str, int], ...]  # (power, the year it was left without centres)
    press: tuple[PressItem, ...]  # every public press, in the order published
    result: GameResult | None
    started_at: str | None = None
    finished_at: str | None = None

    @property
    def finished(self) -> bool:
        return self.status == GameStatus.FINISHED

    @property
    def played(self) -> tuple[StoryPhase, ...]:
        return tuple(p for p in self.phases if p.played)


def fog_of_war(variant: Variant) -> bool:
    """Whether the variant is played in Fog of War (``Variant.fog``)."""
    return variant.fog


def story_of(db: Database, game: Game, viewer: Viewer = Viewer.PUBLIC) -> Story:
    """``game``'s story as ``viewer`` may see it (the module's docstring)."""
    finished = game.status == GameStatus.FINISHED
    fogged = fog_of_war(game.variant) and not finished and viewer is not Viewer.HOST
    hide_who = game.settings.anonymous and not finished and viewer is not Viewer.HOST
    seats, _observers, _hidden = who_plays(db, game)
    addresses = {p.power: p.email for p in players(db, game.id) if p.power and p.active}
    addresses |= {p.power: p.email for p in players(db, game.id) if p.power and p.power not in addresses}
    told = viewer is Viewer.HOST or (viewer is Viewer.PLAYER and not hide_who)
    story_seats = tuple(
        StorySeat(
            s.power or "",
            addresses.get(s.power) if told else None,
            s.resigned,
            s.eliminated,
            s.bot,
        )
        for s in seats
        if s.power
    )
    started = events_of(db, game.id, EventKind.START)
    ended = events_of(db, game.id, EventKind.END) if finished else []
    played_rows = played_phases(db, game.id)
    finished_at = ended[-1][0] if ended else (played_rows[-1]["adjudicated_at"] if finished and played_rows else None)
    base = Story(
        game.name,
        game.variant,
        game.status,
        viewer,
        fogged,
        hide_who,
        story_seats,
        phases=(),
        years=(),
        points=None,
        eliminated=(),
        press=(),
        result=result_of(game),
        started_at=started[0][0] if started else None,
        finished_at=finished_at,
    )
    if fogged:
        return base
    phases = _phases(db, game, played_rows, anonymous=game.settings.anonymous)
    summary: CentreSummary = centre_summary(db, game)
    press = tuple(item for phase in phases for item in phase.press)
    if finished:
        press += tuple(
            PressItem(PressVenue.DIARY, row["phase"], row["power"], row["body"], row["written_at"])
            for row in press_rows.diary_rows(db, game.id)
        )
    return replace(
        base,
        phases=phases,
        years=tuple(summary.years),
        points=tuple(summary.points) if summary.points is not None else None,
        eliminated=tuple(summary.eliminated),
        press=press,
    )


def _phases(db: Database, game: Game, rows: list[dict[str, Any]], *, anonymous: bool) -> tuple[StoryPhase, ...]:
    """Every played phase (with the results mail's facts, ``phase_results``) and the current one."""
    broadcasts = _broadcasts(db, game, rows, anonymous=anonymous)
    out: list[StoryPhase] = []
    for row, facts in zip(rows, phase_results(db, game), strict=True):
        before = position_from_json(game.variant, _json(row["board_before"]))
        after = position_from_json(game.variant, facts["board"])
        dislodged = {
            (power, entry.get("unit")): tuple(entry.get("retreats") or ())
            for power, entries in (facts["board"].get("dislodged") or {}).items()
            for entry in entries
        }
        lines = []
        for power in game.variant.powers:
            for line in facts["results"].get(power, ()):
                unit = " ".join(str(line.get("order") or "").split()[:2])
                outcome = _outcome(line.get("outcome"))
                lines.append(
                    OrderLine(
                        power,
                        line.get("input"),
                        line.get("order"),
                        line.get("typed"),
                        outcome,
                        line.get("reason"),
                        outcome is Outcome.DISLODGED,
                        dislodged.get((power, unit), ()),
                    )
                )
        postal = tuple(
            PressItem(PressVenue.POSTAL, row["phase"], p["sender"], p["body"], row["adjudicated_at"])
            for p in facts["postal_press"]
        )
        out.append(
            StoryPhase(
                before.phase,
                before,
                after,
                tuple(lines),
                _centres(game.variant, after),
                broadcasts.get(row["phase"], ()) + postal,
                row["adjudicated_at"],
            )
        )
    if game.position is not None and game.status != GameStatus.FINISHED:
        current = game.position
        out.append(
            StoryPhase(
                current.phase,
                current,
                None,
                (),
                _centres(game.variant, current),
                broadcasts.get(current.phase.code, ()),
            )
        )
    return tuple(out)


def _broadcasts(
    db: Database, game: Game, rows: list[dict[str, Any]], *, anonymous: bool
) -> dict[str, tuple[PressItem, ...]]:
    """The press sent to everyone (BROADCAST), by the code of the phase running when it was sent: the first phase
    played at or after it (times are to the second), else the current one (a finished game's last).
    Press to some powers only is private and never read here."""
    out: dict[str, list[PressItem]] = {}
    if game.position is None or (game.status == GameStatus.FINISHED and rows):
        current = rows[-1]["phase"] if rows else ""  # a finished game runs no phase: its last one
    else:
        current = game.position.phase.code
    for at, detail in events_of(db, game.id, EventKind.PRESS):
        if not detail or detail.get("postal") or detail.get("to") != EVERYONE:
            continue
        phase = next((r["phase"] for r in rows if r["adjudicated_at"] >= at), current)  # same second: that phase
        grey = anonymous or bool(detail.get("grey"))
        sender = ANONYMOUS_SENDER if grey else str(detail.get("from") or ANONYMOUS_SENDER)
        out.setdefault(phase, []).append(PressItem(PressVenue.BROADCAST, phase, sender, str(detail.get("body")), at))
    return {phase: tuple(items) for phase, items in out.items()}


def _centres(variant: Variant, pos: Position) -> dict[str, int]:
    return {power: pos.centre_count(power) for power in variant.powers if pos.centre_count(power)}


def _outcome(value: Any) -> Outcome | None:
    try:
        return Outcome(value)
    except ValueError:
        return None


def result_of(game: Game) -> GameResult | None:
    """How ``game`` ended (None while it runs, or for a result this judge does not know)."""
    return _result(game.result) if game.status == GameStatus.FINISHED else None


def _result(result: dict[str, Any] | None) -> GameResult | None:
    if not result:
        return None
    try:
        kind = ResultKind(str(result.get("kind")))
    except ValueError:
        return None
    return GameResult(
        kind,
        result.get("winner"),
        tuple(result.get("powers") or ()),
        result.get("by"),
        result.get("conceded"),
        bool(result.get("named")),
    )


def _json(text: str) -> dict[str, Any]:
    value = json.loads(text)
    assert isinstance(value, dict)
    return value
