"""Notices: the mail the game server has for players and the game master, as values.

The game server decides who is told what (a ``Notice``: recipient, kind, game, the facts for the template, the map
to draw); it renders nothing. The mail side, given to the game server through ``judge.game.ports``, renders each
notice in the recipient's language and queues it (``judge.reports.outbox``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlite_utils import Database

from judge.facts import Bots, PressKind, is_bot_address
from judge.game import fog, invitations, ports
from judge.game.duties import owing_powers
from judge.game.invitations import Invitation, Why
from judge.game.records import Game, Player, players, user_settings
from judge.game.views import plays_bot
from judge.i18n import T, format_length
from judge.rules.adjustments import adjustment_delta
from judge.rules.board import Position, unit_text
from judge.rules.phase import Step
from judge.rules.position_json import position_from_json, position_to_json
from judge.rules.turn import TurnResult
from judge.rules.variant import NEUTRAL
from judge.rules.visibility import fogged
from judge.store import press_rows
from judge.store.phases import played_phases
from judge.store.statuses import GameStatus, Role
from judge.timeutil import iso_utc


class NoticeKind(StrEnum):
    """What a notice tells; each kind is a mail template of the same name in templates/en/."""

    GAME_STARTED = "game_started"
    ANNOUNCEMENT = "announcement"
    RESULTS = "results"
    REMINDER = "reminder"
    ELIMINATED = "eliminated"
    GAME_OVER = "game_over"
    LATE_NOTICE = "late_notice"
    DRAW = "draw"
    SEAT_CHANGE = "seat_change"
    MASTER_NOTICE = "master_notice"
    FUTURE_ORDERS = "future_orders"  # orders kept for a later phase (PHASE …), checked when it opened
    DEADLINE_MOVED = "deadline_moved"  # a player's declared absence moved the deadline
    PRESS = "press"  # press from one power to others (PRESS TO, BROADCAST)
    CIVIL_DISORDER = "civil_disorder"  # a power abandoned, taken over; a TAKEOVER asked of the master, or refused


class Announcement(StrEnum):
    """What an announcement (``NoticeKind.ANNOUNCEMENT``) tells of a game; the template words each."""

    PAUSED = "paused"
    RESUMED = "resumed"
    ROLLED_BACK = "rolled back"
    EXTENDED = "extended"  # the deadline is later
    WAITING = "waiting"  # orders were missing at the deadline: it moved once (nmr_wait)
    SHORTENED = "shortened"  # the deadline is earlier
    SETTINGS = "settings"  # a setting changed (``detail`` says which)
    DELETED = "deleted"


# What a grey press mail shows as its sender (the templates word it in each language).
ANONYMOUS_SENDER = "an anonymous power"


@dataclass(frozen=True)
class MapRequest:
    """The board picture a notice carries: ``position`` with ``lines`` (the phase's orders) drawn on it, after the
    phase when ``after`` is given; kept once per game, ``phase`` and language."""

    phase: str
    position: Position
    lines: Sequence[Mapping[str, Any]] = ()
    after: Position | None = None
    seen: frozenset[int] | None = None  # Fog of War: the provinces the reader sees on the board drawn (None: all)


@dataclass(frozen=True)
class Notice:
    """One mail for one address. With ``shared``, the facts do not depend on the recipient, so the mail side may
    render it once per language and time zone for every notice of the same batch. ``invitation``: the calendar
    event the mail carries (its own for each recipient, even in a shared notice)."""

    to: str
    kind: NoticeKind
    game: Game | None
    facts: Mapping[str, Any] = field(default_factory=dict)
    picture: MapRequest | None = None
    shared: bool = False
    invitation: Invitation | None = None


def post(db: Database, notices: Sequence[Notice], now: datetime) -> None:
    """Hand ``notices`` (one event's mail) to the mail side, inside the caller's transaction. Each notice of a game
    whose ``bots`` setting lets the stand-in play carries ``bots``: the powers it plays now, which the mail names as
    bots (``| seat``)."""
    notices = [n for n in notices if not is_bot_address(n.to)]  # a seat the bot fills is never mailed
    if not notices:
        return
    bots: dict[int, list[str]] = {}
    for n in notices:
        if n.game is not None and n.game.settings.bots is not Bots.NONE and n.game.id not in bots:
            bots[n.game.id] = [p.power for p in players(db, n.game.id) if p.power and plays_bot(n.game, p)]
    notices = [
        replace(n, facts={**n.facts, "bots": bots[n.game.id]}) if n.game is not None and n.game.id in bots else n
        for n in notices
    ]
    ports.deliver(db, notices, now)


def tell(
    db: Database,
    to: str,
    kind: NoticeKind,
    now: datetime,
    game: Game | None = None,
    *,
    invitation: Invitation | None = None,
    **facts: Any,
) -> None:
    """Post a single notice."""
    post(db, [Notice(to, kind, game, facts, invitation=invitation)], now)


def everyone(game: Game, seats: Sequence[Player]) -> list[str]:
    """Every seat's address once (one mail even for two powers), and the game master's."""
    to = list(dict.fromkeys(p.email for p in seats))
    if game.settings.master and game.settings.master.lower() not in to:
        to.append(game.settings.master.lower())
    return to


_PRESS_RULES = {
    PressKind.WHITE: T("Press: signed messages between powers (PRESS TO <power> … ENDPRESS, BROADCAST)."),
    PressKind.GREY: T("Press: messages between powers without the sender's name (grey press)."),
    PressKind.BOTH: T(
        "Press: each message signed or not, as its sender chooses (PRESS TO <powers> GREY, SET PRESS GREY); "
        "signed unless they say so."
    ),
    PressKind.NONE: T("Press: none; powers cannot write to each other through the judge."),
}


def game_started(
    db: Database, game: Game, seats: Sequence[Player], now: datetime, *, taken_over: Player | None = None
) -> None:
    """The start mail: the powers and their units (addresses only when the game is not anonymous), the map, the
    deadline lengths, the press rule and the game master. With ``taken_over``: the same, for the current phase, to
    the one player who has just taken a power over (TAKEOVER)."""
    assert game.position is not None
    pos, geo, st = game.position, game.variant.geo, game.settings
    anonymous = st.anonymous
    by_power = {s.power: s for s in seats if s.power}
    table = [
        {
            "power": power,
            "email": "" if anonymous or power not in by_power else by_power[power].email,
            "units": sorted(f"{u.kind.value} {geo.loc_names[u.loc]}" for u in pos.units_of(power)),
        }
        for power in game.variant.powers
    ]
    picture = MapRequest("start" if taken_over is None else f"now-{pos.phase.code}", pos)
    out = []
    for p in seats:
        if taken_over is not None and p.id != taken_over.id:
            continue
        seats_shown = table
        shown_picture: MapRequest | None = picture
        powers = fog.reader_powers(db, game, p.email, seats)
        if powers is not None:  # Fog of War: the units he sees, on a picture of his own
            seen = fog.sight(game.variant, powers, pos).after
            seats_shown = [{**row, "units": [u for u in row["units"] if _at(game, u) in seen]} for row in table]
            key = f"{picture.phase} {fog.viewer_key(powers)}"
            shown_picture = MapRequest(key, pos, seen=seen) if powers else None
        language = user_settings(db, p.email)["language"]
        lengths = {
            "movement": format_length(st.movement_deadline, language),
            "retreat": format_length(st.retreat_deadline, language),
            "adjustment": format_length(st.adjustment_deadline, language),
            "grace": format_length(st.grace, language) if st.grace else "",
        }
        facts = {
            "player": p,
            "powers": {s.power: "" if anonymous else s.email for s in seats if s.power},
            "seats": seats_shown,
            "anonymous": anonymous,
            "lengths": lengths,
            "press_rule": _PRESS_RULES[PressKind.GREY]
            if anonymous and st.press is not PressKind.NONE
            else _PRESS_RULES.get(st.press, T(st.press)),
            "master": st.master or "",
            "taken_over": taken_over is not None,
        }
        if shown_picture is None:  # an observer of a Fog of War game: no picture of the board
            facts["has_map"] = False
        invitation = invitations.request(db, game, seats, p.email, now)
        out.append(Notice(p.email, NoticeKind.GAME_STARTED, game, facts, shown_picture, invitation=invitation))
    post(db, out, now)


def _at(game: Game, unit: str) -> int | None:
    """The province of a unit written ``A par`` or ``F stp/sc``."""
    loc = game.variant.geo.by_loc_name.get(unit.split()[-1])
    return game.variant.geo.loc_province[loc] if loc is not None else None


def announce(
    db: Database,
    game: Game,
    seats: Sequence[Player],
    now: datetime,
    what: Announcement,
    to: Sequence[str] | None = None,
) -> None:
    """Tell ``to`` (everyone by default) what became of the game; one that moves the deadline carries its event
    again (a pause cancels it)."""
    post(
        db,
        [
            Notice(
                a, NoticeKind.ANNOUNCEMENT, game, {"what": what}, invitation=moved_event(db, game, seats, a, now, what)
            )
            for a in (everyone(game, seats) if to is None else to)
        ],
        now,
    )


def moved_event(
    db: Database, game: Game, seats: Sequence[Player], address: str, now: datetime, what: Announcement | None = None
) -> Invitation | None:
    """The calendar event a mail telling of ``what`` carries to ``address``: the current deadline where it moved
    (``None``: moved by an absence), the cancel of the open event where the game paused."""
    if what is Announcement.PAUSED:
        return invitations.cancel(db, game, seats, address, now, Why.PAUSED)
    if what in (None, Announcement.RESUMED, Announcement.ROLLED_BACK, Announcement.EXTENDED, Announcement.SHORTENED):
        return invitations.request(db, game, seats, address, now)
    return None


def tally(game: Game, pos: Position, before: Position | None = None) -> list[dict[str, Any]]:
    """Per power: centres now and their change in this phase, units, and the builds (+) or removals (-) due."""
    rows = []
    for power in game.variant.powers:
        centres = pos.centre_count(power)
        units = len(pos.units_of(power))
        change = centres - before.centre_count(power) if before is not None else 0
        if not centres and not units and not change:
            continue
        delta = adjustment_delta(game.variant, pos, power) if pos.phase.step is Step.ADJUSTMENT else 0
        geo = game.variant.geo
        now_owned = {c for c, owner in pos.owners.items() if owner == power}
        was_owned = {c for c, owner in before.owners.items() if owner == power} if before is not None else now_owned
        rows.append(
            {
                "power": power,
                "centres": centres,
                "change": change,
                "units": units,
                "delta": delta,
                "gains": sorted(geo.provinces[c].named for c in now_owned - was_owned),
                "losses": sorted(geo.provinces[c].named for c in was_owned - now_owned),
                "unit_list": sorted(f"{u.kind.value} {geo.loc_names[u.loc]}" for u in pos.units_of(power)),
            }
        )
    return rows


def neutral_units(game: Game, before: Position, after: Position) -> dict[str, Any]:
    """The neutral units (nobody's: ``[neutral] units``, or the units of absent powers with ``absent = "neutral"``),
    which have no order line: what became of each in a movement phase (``fates``: it held, or it was dislodged and
    disbanded at once) and those standing after the phase (``after``)."""
    geo = game.variant.geo
    fates = []
    if before.phase.step is Step.MOVEMENT:
        for prov, unit in sorted(before.units.items(), key=lambda kv: geo.loc_names[kv[1].loc]):
            if unit.power == NEUTRAL:
                stays = after.units.get(prov)
                fates.append({"unit": unit_text(geo, unit), "disbanded": stays is None or stays.power != NEUTRAL})
    standing = sorted(unit_text(geo, u) for u in after.units.values() if u.power == NEUTRAL)
    return {"fates": fates, "after": standing}


def shown_scores(
    game: Game, scores: Mapping[str, int] | None, sides: Sequence[tuple[str, ...]]
) -> dict[str, int] | None:
    """After a Fall in a game that counts points: each power's points, a combined side's under ``A+B`` — except in
    an anonymous game still running, where a side would tell who holds which powers: there each power's own."""
    if scores is None or not game.settings.victory(game.variant).uses_points:
        return None
    out = {p: scores.get(p, 0) for p in game.variant.powers}
    if game.settings.anonymous and game.status != GameStatus.FINISHED:
        return out
    for side in sides:
        out["+".join(side)] = sum(out.pop(p, 0) for p in side)
    return out


def results(
    db: Database,
    game: Game,
    seats: Sequence[Player],
    before: Position,
    turn: TurnResult,
    lines: list[dict[str, Any]],
    now: datetime,
    sides: Sequence[tuple[str, ...]] = (),
) -> None:
    """The results of the phase ``before``, the same for everyone (rendered once per language and zone)."""
    after = turn.position
    by_power: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        by_power.setdefault(line["power"], []).append(line)
    facts: dict[str, Any] = {
        "phase": before.phase,
        "results": by_power,
        "board": position_to_json(game.variant, after),
        "next_phase": after.phase,
        "tally": tally(game, after, before),
        "neutral": neutral_units(game, before, after),
        "winner": turn.winner,
        "threshold": game.settings.solo_line(game.variant, before.phase.year),
        "scores": shown_scores(game, turn.scores or None, sides),
        "postal_press": published_postal(db, game, now),
    }
    picture = MapRequest(before.phase.code, before, lines, after)
    waited = after.phase.step is Step.MOVEMENT or any(p.active and p.power in owing_powers(game) for p in seats)
    out = []
    fogged_pictures: dict[tuple[frozenset[int], frozenset[int], tuple[int, ...]], MapRequest] = {}
    for to in everyone(game, seats):
        # the next deadline; none for a phase nobody is waited for (it is played at once) or after the end
        invitation = invitations.request(db, game, seats, to, now) if waited else None
        powers = fog.reader_powers(db, game, to, seats)
        if powers is None:
            out.append(Notice(to, NoticeKind.RESULTS, game, facts, picture, shared=True, invitation=invitation))
            continue
        # Fog of War: his own results, and his own picture (shared by the readers who see the same)
        seen = fog.sight(game.variant, powers, before, after)
        shown_lines = fog.lines_seen(game.variant, lines, seen)
        own: MapRequest | None = None
        if powers:
            key = (seen.either, seen.after, tuple(id(line) for line in shown_lines))
            own = fogged_pictures.get(key)
            if own is None:
                own = fogged_pictures[key] = MapRequest(
                    f"{before.phase.code} {fog.viewer_key(powers)}",
                    fogged(before, seen.either),
                    shown_lines,
                    after,
                    seen=seen.after,
                )
        told = fog.results_seen(game.variant, facts, before, after, powers)
        if own is None:  # an observer: no picture of the board
            told["has_map"] = False
        out.append(Notice(to, NoticeKind.RESULTS, game, told, own, invitation=invitation))
    post(db, out, now)


def reminder(db: Database, game: Game, player: Player, now: datetime, owed: Mapping[str, Any]) -> None:
    """A reminder of the deadline: what ``player`` still owes (``judge.game.duties.owed``)."""
    tell(db, player.email, NoticeKind.REMINDER, now, game, player=player, owed=dict(owed))


def eliminated(db: Database, game: Game, player: Player, now: datetime) -> None:
    tell(db, player.email, NoticeKind.ELIMINATED, now, game, player=player)


def centre_history(db: Database, game: Game) -> list[dict[str, Any]]:
    """Centres per power at the end of each game year (after the Fall), from the stored phases."""
    years: dict[int, dict[str, int]] = {}
    for row in played_phases(db, game.id):
        after = json.loads(row["board_after"])
        if row["phase"].startswith("F") and after["phase"][0] in "WS":
            years[int(row["phase"][1:-1])] = {p: len(c) for p, c in after["supply_centers"].items()}
    return [{"year": year, "centres": counts} for year, counts in sorted(years.items())]


def points_of(game: Game, pos: Position) -> dict[str, int]:
    """Each power's victory points on the board ``pos`` as the game's solo line counts them: its centres at their
    values and the valued places its units stand on."""
    rule = game.settings.victory(game.variant)
    return rule.scores(game.variant.centres, dict(pos.owners), {prov: u.power for prov, u in pos.units.items()})


def points_history(db: Database, game: Game) -> list[dict[str, Any]]:
    """Victory points per power at the end of each game year (after the Fall), from the stored phases; empty in a
    game that does not count points."""
    if not game.settings.victory(game.variant).uses_points:
        return []
    years: dict[int, dict[str, int]] = {}
    for row in played_phases(db, game.id):
        after = json.loads(row["board_after"])
        if row["phase"].startswith("F") and after["phase"][0] in "WS":
            years[int(row["phase"][1:-1])] = points_of(game, position_from_json(game.variant, after))
    return [{"year": year, "points": points} for year, points in sorted(years.items())]


def published_postal(db: Database, game: Game, now: datetime) -> list[dict[str, Any]]:
    """The postal press waiting for publication (POSTAL PRESS), as a results or game-over mail shows it: sender (or
    the anonymous sender for grey press) and text. From now on it counts as published."""
    return [postal_view(row) for row in press_rows.publish_postal(db, game.id, iso_utc(now))]


def postal_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """A postal press row as a mail shows it: its sender (the anonymous sender for grey press) and text."""
    return {"sender": ANONYMOUS_SENDER if row["grey"] else row["power"], "body": row["body"]}


def game_over(db: Database, game: Game, seats: Sequence[Player], now: datetime) -> None:
    """The end: the result, the centres year by year, who played which power (told now even in an anonymous game),
    the postal press not yet published and every diary (DIARY), kept private until now."""
    history = centre_history(db, game)
    roster = [{"power": p.power, "email": p.email} for p in seats if p.role == Role.PLAYER and p.power]
    roster.sort(key=lambda r: game.variant.powers.index(r["power"]) if r["power"] in game.variant.powers else 99)
    diaries = [
        {"power": row["power"], "phase": row["phase"], "body": row["body"]}
        for row in press_rows.diary_rows(db, game.id)
    ]
    facts = {
        "result": game.result,
        "history": history,
        "points": points_history(db, game),
        "powers": list(game.variant.powers),
        "roster": roster,
        "diaries": diaries,
        "postal_press": published_postal(db, game, now),
    }
    post(
        db,
        [
            Notice(
                to, NoticeKind.GAME_OVER, game, facts, invitation=invitations.cancel(db, game, seats, to, now, Why.OVER)
            )
            for to in everyone(game, seats)
        ],
        now,
    )


def late_notice(db: Database, game: Game, player: Player, now: datetime) -> None:
    tell(db, player.email, NoticeKind.LATE_NOTICE, now, game, player=player)


def draw_news(
    db: Database, game: Game, seats: Sequence[Player], now: datetime, what: str, among: Sequence[str] | None = None
) -> None:
    """A draw was proposed (``among``: the powers it names, None for every power still in the game) or rejected; the
    proposer is never named."""
    facts = {"what": what, "among": list(among) if among is not None else None}
    post(db, [Notice(p.email, NoticeKind.DRAW, game, facts) for p in seats], now)
