"""Mail the game sends to its players, queued in the outbox (rendered from templates/<language>/)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.game.records import Game, Player, queue_mail, user_settings
from judge.i18n import T, format_length
from judge.reports.render import marked, render_mail
from judge.rules.adjustments import adjustment_delta
from judge.rules.board import Position
from judge.rules.phase import Step
from judge.rules.position_json import position_to_json
from judge.rules.turn import TurnResult
from judge.timeutil import format_deadline, iso_utc


def send(
    db: Database,
    to: str,
    template: str,
    now: datetime,
    *,
    game: Game | None = None,
    in_reply_to: str | None = None,
    image: bytes | None = None,
    picture_id: int | None = None,
    rendered: dict[tuple[str, str], Any] | None = None,
    thread_refs: str | None = None,
    **context: Any,
) -> None:
    """Render mail ``template`` in the recipient's language, with deadlines in their zone and UTC, and queue it.

    With ``rendered`` (a dict the caller keeps for one mail sent to many), the mail is rendered once per language
    and time zone: the context must then not depend on the recipient."""
    prefs = user_settings(db, to)
    key = (prefs["language"], prefs["timezone"])
    if rendered is not None and key in rendered:
        mail = rendered[key]
        queue_mail(
            db,
            to,
            mail.subject,
            mail.text,
            now,
            game_id=game.id if game else None,
            in_reply_to=in_reply_to,
            html=mail.html,
            image=image,
            picture_id=picture_id,
            thread_refs=thread_refs,
        )
        return
    deadline = None
    if game is not None and game.deadline is not None:
        deadline = format_deadline(game.deadline, prefs["timezone"], now, prefs["language"])
        if prefs["timezone"] != "UTC":
            deadline += f" = {game.deadline:%Y-%m-%d %H:%M} UTC"
    mail = marked(render_mail(template, prefs["language"], game=game, deadline=deadline, **context), prefs["language"])
    if rendered is not None:
        rendered[key] = mail
    queue_mail(
        db,
        to,
        mail.subject,
        mail.text,
        now,
        game_id=game.id if game else None,
        in_reply_to=in_reply_to,
        html=mail.html,
        image=image,
        picture_id=picture_id,
        thread_refs=thread_refs,
    )


def _everyone(game: Game, seats: list[Player]) -> list[str]:
    to = list(dict.fromkeys(p.email for p in seats))  # one mail per address, even for two powers
    if game.settings.master and game.settings.master.lower() not in to:
        to.append(game.settings.master.lower())
    return to


_PRESS_RULES = {
    "white": T("Press: signed messages between powers (PRESS TO <power> … ENDPRESS, BROADCAST)."),
    "grey": T("Press: messages between powers without the sender's name (grey press)."),
    "none": T("Press: none; powers cannot write to each other through the judge."),
}


def game_started(db: Database, game: Game, seats: list[Player], now: datetime) -> None:
    """The start mail: the powers and their units (addresses only when the game is not anonymous), the map, the
    deadline lengths, the press rule and the game master."""
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
    pictures: dict[str, int | None] = {}
    for p in seats:
        language = user_settings(db, p.email)["language"]
        if language not in pictures:
            png = map_picture(game, pos, [], language)
            pictures[language] = (
                store_picture(db, game, "start", language, palette_png(png), now) if png is not None else None
            )
        lengths = {
            "movement": format_length(st.movement_deadline, language),
            "retreat": format_length(st.retreat_deadline, language),
            "adjustment": format_length(st.adjustment_deadline, language),
            "grace": format_length(st.grace, language) if st.grace else "",
        }
        send(
            db,
            p.email,
            "game_started",
            now,
            game=game,
            player=p,
            picture_id=pictures[language],
            has_map=pictures[language] is not None,
            powers={s.power: "" if anonymous else s.email for s in seats if s.power},
            seats=table,
            anonymous=anonymous,
            lengths=lengths,
            press_rule=_PRESS_RULES.get(st.press, T(st.press)),
            master=st.master or "",
        )


def announce(db: Database, game: Game, seats: list[Player], now: datetime, what: str) -> None:
    for to in _everyone(game, seats):
        send(db, to, "announcement", now, game=game, what=what)


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
                "gains": sorted(geo.provinces[c].name for c in now_owned - was_owned),
                "losses": sorted(geo.provinces[c].name for c in was_owned - now_owned),
                "unit_list": sorted(f"{u.kind.value} {geo.loc_names[u.loc]}" for u in pos.units_of(power)),
            }
        )
    return rows


def map_picture(
    game: Game, pos: Position, lines: list[dict[str, Any]], language: str, after: Position | None = None
) -> bytes | None:
    """The PNG of the phase's orders drawn on the board (after the phase when ``after`` is given, as the results
    mail shows it), or None when the variant cannot be drawn."""
    try:
        from judge.reports.map_words import map_title, map_words
        from judge.reports.maps import render_map
    except ImportError:  # pragma: no cover - only while the map module is absent
        return None
    try:
        return render_map(
            game.variant,
            pos,
            lines,
            title=map_title(game.name, pos.phase, language),
            language=language,
            after=after,
            words=map_words(game.variant, language),
        )
    except ValueError:
        return None


def palette_png(png: bytes) -> bytes:
    """The picture as a palette PNG (at most 256 colours): a map of flat colours loses nothing and shrinks a lot."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        if im.mode == "P":
            return png
        small = im.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    small.save(out, format="PNG", compress_level=6)  # 9 is four times slower for 3 % less
    data = out.getvalue()
    return data if len(data) < len(png) else png


def store_picture(db: Database, game: Game, phase: str, language: str, png: bytes, now: datetime) -> int:
    """Keep the map of a phase once per language; every results mail of the phase refers to this row."""
    db.execute(
        "insert into pictures (game_id, phase, language, png, created_at) values (?, ?, ?, ?, ?) "
        "on conflict (game_id, phase, language) do update set png = excluded.png, "
        "created_at = excluded.created_at",
        [game.id, phase, language, png, iso_utc(now)],
    )
    row = list(
        db.query("select id from pictures where game_id = ? and phase = ? and language = ?", [game.id, phase, language])
    )
    return int(row[0]["id"])


def _scores(db: Database, game: Game, turn: TurnResult) -> dict[str, int] | None:
    """After a Fall in a game that counts points: each power's points, a combined side's under ``A+B``."""
    if not turn.scores or not game.settings.victory(game.variant).uses_points:
        return None
    from judge.game.service import sides

    out = {p: turn.scores.get(p, 0) for p in game.variant.powers}
    for side in sides(db, game):
        out["+".join(side)] = sum(out.pop(p, 0) for p in side)
    return out


def results(
    db: Database,
    game: Game,
    seats: list[Player],
    before: Position,
    turn: TurnResult,
    lines: list[dict[str, Any]],
    now: datetime,
) -> None:
    after = turn.position
    by_power: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        by_power.setdefault(line["power"], []).append(line)
    board = position_to_json(game.variant, after)
    context: dict[str, Any] = {
        "phase": before.phase,
        "results": by_power,
        "board": board,
        "next_phase": after.phase,
        "tally": tally(game, after, before),
        "winner": turn.winner,
        "threshold": game.settings.victory(game.variant).threshold(
            game.variant.victory.total(game.variant.centres), before.phase.year
        ),
        "scores": _scores(db, game, turn),
    }
    pictures: dict[str, int | None] = {}
    rendered: dict[tuple[str, str], Any] = {}  # the same report for everyone: rendered once per language and zone
    for to in _everyone(game, seats):
        language = user_settings(db, to)["language"]
        if language not in pictures:
            png = map_picture(game, before, lines, language, after)
            pictures[language] = (
                store_picture(db, game, before.phase.code, language, palette_png(png), now) if png is not None else None
            )
        send(
            db,
            to,
            "results",
            now,
            game=game,
            picture_id=pictures[language],
            has_map=pictures[language] is not None,
            rendered=rendered,
            **context,
        )


def reminder(db: Database, game: Game, player: Player, now: datetime) -> None:
    send(db, player.email, "reminder", now, game=game, player=player)


def eliminated(db: Database, game: Game, player: Player, now: datetime) -> None:
    send(db, player.email, "eliminated", now, game=game, player=player)


def centre_history(db: Database, game: Game) -> list[dict[str, Any]]:
    """Centres per power at the end of each game year (after the Fall), from the stored phases."""
    years: dict[int, dict[str, int]] = {}
    for row in db.query("select phase, board_after from phases where game_id = ? order by rowid", [game.id]):
        after = json.loads(row["board_after"])
        if row["phase"].startswith("F") and after["phase"][0] in "WS":
            years[int(row["phase"][1:-1])] = {p: len(c) for p, c in after["supply_centers"].items()}
    return [{"year": year, "centres": counts} for year, counts in sorted(years.items())]


def game_over(db: Database, game: Game, seats: list[Player], now: datetime) -> None:
    history = centre_history(db, game)
    for to in _everyone(game, seats):
        send(db, to, "game_over", now, game=game, result=game.result, history=history, powers=list(game.variant.powers))


def late_notice(db: Database, game: Game, player: Player, now: datetime) -> None:
    send(db, player.email, "late_notice", now, game=game, player=player)


def draw_news(db: Database, game: Game, seats: list[Player], now: datetime, what: str) -> None:
    for p in seats:
        send(db, p.email, "draw", now, game=game, what=what)
