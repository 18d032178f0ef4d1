"""The information commands — LIST, HISTORY, ORDERS, WHOGAME, SUMMARY, GET and MAP: each reads the store and
answers with lines (judge.commands.reply), and none changes a game. ``HANDLERS`` joins the handlers table
(judge.commands.handlers)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.commands import items as c
from judge.commands.reply import Answer, DeadlineLine, Lines, Row
from judge.commands.session import Session, signed
from judge.commands.signed_mail import judge_key_text
from judge.facts import PressKind
from judge.game import fog, service, summaries
from judge.game.records import Game, user_settings
from judge.game.service import GameError
from judge.i18n import T, Text, format_length, phase_words, translate
from judge.reports import outbox, phase_maps
from judge.reports.render import render_mail
from judge.rules.edition import RulesEdition
from judge.rules.variant import Variant
from judge.rules.words import Named
from judge.store.events import EventKind
from judge.store.statuses import PLAYING, GameStatus


def _list(db: Database, s: Session, item: c.ListGames) -> Answer:
    return Answer(item.text, T("see below"), note=_list_text(db, item.game, s.reply_to, s.now))


def _history(db: Database, s: Session, item: c.History) -> Answer:
    _costly(s, "HISTORY")
    language = user_settings(db, s.reply_to)["language"]
    return Answer(item.text, T("see below"), note=_history_text(db, item.game, item.phase, language, s.reply_to))


# --- the longer answers ---------------------------------------------------------------------------------------------


def _list_text(db: Database, name: str | None, to: str, now: datetime) -> Lines:
    """LIST: the games; or one game's players (powers only in an anonymous game), who has orders in and who is
    ready, the centres and the deadline (in the reader's zone)."""
    if not name:
        games = service.list_games(db)
        if not games:
            return Lines((T("There are no games."),))
        return Lines(
            tuple(
                Row(((g["name"], 20), (g["variant"], 10), (T(g["status"]), 14), (g["phase"] or "", 0))) for g in games
            )
        )
    game = service.get_game(db, name)
    view = service.show_game(db, name)
    phase = phase_words(game.position.phase) if game.position is not None else "-"
    lines: list[Text | Row | DeadlineLine] = [
        T(
            "{game} ({variant}): {status}, {phase}",
            game=game.name,
            variant=game.variant.title,
            status=T(game.status),
            phase=phase,
        )
    ]
    if game.deadline is not None:
        lines.append(DeadlineLine(game.deadline, user_settings(db, to)["timezone"], now))
    playing = game.status in PLAYING
    lines += [_player_row(p, game, playing) for p in view["players"]]
    if playing:
        active = [p for p in view["players"] if not p["resigned"] and not p["eliminated"]]
        lines.append(
            T(
                "Orders in: {given} of {total}; ready: {ready} of {total}",
                given=sum(1 for p in active if p["orders_submitted"]),
                total=len(active),
                ready=sum(1 for p in active if p["ready"]),
            )
        )
    for power, centres in view["supply_centers"].items():
        lines.append(T("  {power}: supply centres {count}", power=game.variant.power(power), count=len(centres)))
    return Lines(tuple(lines))


def _player_row(p: dict[str, Any], game: Game, playing: bool) -> Row:
    states: list[Text] = []
    if p["resigned"]:
        states.append(T("resigned"))
    elif p["eliminated"]:
        states.append(T("eliminated"))
    elif playing:
        states.append(T("orders in") if p["orders_submitted"] else T("no orders yet"))
        states.append(T("ready") if p["ready"] else T("not ready"))
    who = "" if game.settings.anonymous or p["bot"] else p["email"]
    power: Text | str = _seat_name(game.variant, p["power"], p["bot"]) if p["power"] else "?"
    return Row(((power, 12), (who, 26), (states, 0)), indent="  ", trim=True)


def _seat_name(variant: Variant, power: str, bot: bool) -> Text | Named:
    """A power as LIST and WHOGAME name it (the variant's word for it): "Germany (bot)" while the stand-in bot plays
    it."""
    return T("{power} (bot)", power=variant.power(power)) if bot else variant.power(power)


def _history_text(db: Database, name: str, phase: str | None, language: str, reader: str | None = None) -> Text | str:
    """HISTORY: the results of every played phase (the latest 30 in full, the earlier ones named), or of one phase,
    each as its results mail told it, in the reader's language (in a Fog of War game, as the reader's powers saw
    it)."""
    game = service.get_game(db, name)
    powers = fog.reader_powers(db, game, reader)
    told = summaries.phase_results(db, game, phase.upper() if phase else None, powers)
    if phase is not None and not told:
        raise GameError(T("{game} has no played phase {phase}", game=game.name, phase=phase.upper()))
    if not told:
        return T("Phases played in {game}: none yet", game=game.name)
    shown = told[-_HISTORY_PHASES:]
    past = dataclasses.replace(game, status=GameStatus.FINISHED)  # an old phase: no "next deadline" line
    texts = [render_mail("results", language, game=past, deadline=None, has_map=False, **facts).text for facts in shown]
    if len(told) > len(shown):
        earlier = ", ".join(f["phase"].code for f in told[: -len(shown)])
        lead = translate(
            T("Earlier phases (HISTORY {game} <phase>): {phases}", game=game.name, phases=earlier), language
        )
        texts.insert(0, lead + "\n")
    return "\n".join(texts)


_HISTORY_PHASES = 30


# --- information commands: ORDERS, WHOGAME, SUMMARY, GET, MAP -------------------------------------------------------


def _my_orders(db: Database, s: Session, item: c.MyOrders) -> Answer:
    """ORDERS: the order set of each power the sender holds in the game signed on to, and what it still owes."""
    game, player = signed(db, s)
    if game.status not in PLAYING or game.position is None:
        raise GameError(T("game {game} is {status}: no orders are due", game=game.name, status=T(game.status)))
    lines: list[Text | Row] = []
    for held in summaries.my_order_sets(db, game, player):
        lines.append(T("{power}, {phase}:", power=game.variant.power(held["power"]), phase=phase_words(held["phase"])))
        if not held["owes"]:
            lines.append(_indented(T("{power} owes no orders in this phase", power=game.variant.power(held["power"]))))
            continue
        lines += [_indented(order) for order in held["orders"]] or [_indented(T("no orders yet"))]
        if held["missing"]:
            lines.append(_indented(T("still without orders: {units}", units=", ".join(held["missing"]))))
        owed = abs(held["delta"]) - held["given"]
        if held["delta"] > 0 and owed > 0:
            lines.append(_indented(T("{count} more builds (or waives) due", count=owed)))
        elif held["delta"] < 0 and owed > 0:
            lines.append(_indented(T("{count} more removals due", count=owed)))
        lines.append(_indented(T("ready") if held["ready"] else T("not ready")))
    return Answer(item.text, T("see below"), note=Lines(tuple(lines)))


def _indented(value: Text | str) -> Row:
    return Row(((value, 0),), indent="  ")


def _named_game(s: Session, name: str | None, command: str) -> str:
    """The game a command names, else the game signed on to."""
    if name is not None:
        return name
    if s.game is not None:
        return s.game.name
    raise GameError(T("{command} needs a game: {command} mygame (or sign on first)", command=command))


def _whogame(db: Database, s: Session, item: c.WhoGame) -> Answer:
    """WHOGAME: the powers and their players (powers only while an anonymous game runs), and how many observe."""
    game = service.get_game(db, _named_game(s, item.game, "WHOGAME"))
    seats, observers, hidden = summaries.who_plays(db, game)
    phase = phase_words(game.position.phase) if game.position is not None else "-"
    lines: list[Text | Row] = [
        T(
            "{game} ({variant}): {status}, {phase}",
            game=game.name,
            variant=game.variant.title,
            status=T(game.status),
            phase=phase,
        )
    ]
    for seat in seats:
        bot = seat.bot
        states = [T("resigned")] if seat.resigned and not bot else [T("eliminated")] if seat.eliminated else []
        power: Text | str = _seat_name(game.variant, seat.power, bot) if seat.power else "?"
        email = "" if bot else seat.email or ""
        lines.append(Row(((power, 16), (email, 26), (states, 0)), indent="  ", trim=True))
    if hidden:
        lines.append(T("This game is anonymous: players' addresses are not shown."))
    if observers:
        lines.append(T("Observers: {count}", count=observers))
    return Answer(item.text, T("see below"), note=Lines(tuple(lines)))


def _my_record(db: Database, s: Session, item: c.MyRecord) -> Answer:
    """RECORD: the record of the address the reply goes to (no sign-on: nobody learns another address's record)."""
    return Answer(item.text, T("see below"), note=Lines(tuple(service.record_lines(db, s.reply_to))))


def _change_words(change: summaries.Change) -> Text:
    power, date = T(change.power), change.at[:10]
    if change.what is EventKind.REPLACE:
        return T("{power} was taken over by a new player on {date}", power=power, date=date)
    if change.what is EventKind.RESIGN:
        return T("{power} resigned on {date}", power=power, date=date)
    if change.what is EventKind.ABANDONED:
        return T("{power} fell into civil disorder (no orders) on {date}", power=power, date=date)
    return T("{power}'s player was removed by the game master on {date}", power=power, date=date)


def _summary(db: Database, s: Session, item: c.Summary) -> Answer:
    """SUMMARY: each power's centres (its victory points in a game that counts points) at the start and after each
    Fall, eliminations, seat changes."""
    game = service.get_game(db, _named_game(s, item.game, "SUMMARY"))
    told = summaries.centre_summary(db, game)
    if not told.years:
        return Answer(item.text, T("see below"), note=T("{game} has not started yet", game=game.name))
    table = told.years if told.points is None else told.points  # a game that counts points: its points
    lines: list[Text | Row] = [
        T("Supply centres in {game}, at the start and after each year:", game=game.name)
        if told.points is None
        else T("Victory points in {game}, at the start and after each year:", game=game.name)
    ]
    header: list[tuple[Text | str, int]] = [("", 12)]
    header += [(T("start") if i == 0 else str(year), 6) for i, (year, _) in enumerate(table)]
    lines.append(Row(tuple(header), indent="  ", trim=True))
    for power in game.variant.powers:
        if not any(counts.get(power) for _, counts in told.years + table):
            continue
        cells: list[tuple[Text | str, int]] = [(game.variant.power(power), 12)]
        cells += [(str(counts.get(power, 0)), 6) for _, counts in table]
        lines.append(Row(tuple(cells), indent="  ", trim=True))
    for power, year in told.eliminated:
        lines.append(T("{power} was eliminated in {year}", power=game.variant.power(power), year=year))
    for change in told.changes:
        if change.power:
            lines.append(_change_words(change))
    return Answer(item.text, T("see below"), note=Lines(tuple(lines)))


_TOPICS = ("help", "rules", "orders", "key")


def _get_file(db: Database, s: Session, item: c.GetFile) -> Answer:
    """GET HELP, GET ORDERS (guides kept as templates per language), GET RULES [game] (the game's house rules)."""
    language = user_settings(db, s.msg.sender)["language"]
    if item.topic == "key" and item.game is None:  # the judge's own public key
        return Answer(item.text, T("see below"), note=judge_key_text(s.judge_key))
    if item.topic == "rules":
        game = service.get_game(db, _named_game(s, item.game, "GET RULES"))
        return Answer(item.text, T("see below"), note=_house_rules(game, language))
    if item.game is not None or item.topic not in _TOPICS:
        raise GameError(
            T("there is no file {name}; ask for {topics}", name=repr(item.topic), topics=", ".join(_TOPICS))
        )
    template = "help" if item.topic == "help" else f"get_{item.topic}"
    return Answer(item.text, T("see below"), note=render_mail(template, language).text)


def _house_rules(game: Game, language: str) -> Lines:
    """The rules a game is played by: deadlines, grace, press, victory, draws, anonymity."""
    st, variant = game.settings, game.variant
    rule = st.victory(variant)
    year = game.position.phase.year if game.position is not None else variant.start_year
    lines: list[Text] = [
        T("House rules of {game} ({variant}):", game=game.name, variant=variant.title),
        T(
            "Deadlines: movement {movement}, retreats {retreats}, adjustments {adjustments}",
            movement=format_length(st.movement_deadline, language),
            retreats=format_length(st.retreat_deadline, language),
            adjustments=format_length(st.adjustment_deadline, language),
        ),
    ]
    lines.append(
        T("Rules edition: 2000 (the 2000 rulebook, as DATC v2.4 prefers)")
        if st.rules is RulesEdition.Y2000
        else T(
            "Rules edition: datc-3 (the changes of DATC v3.0: an army ordered via convoy never falls back to the land "
            "route, a convoy order no route needs is void, civil disorder counts to the owned centres)"
        )
    )
    if st.grace:
        lines.append(T("Orders are still taken {length} after a deadline", length=format_length(st.grace, language)))
    lines.append(
        T("Press: none")
        if st.press is PressKind.NONE
        else T("Press: grey (the sender is not named)")
        if st.press is PressKind.GREY or st.anonymous
        else T("Press: white (signed by its sender)")
        if st.press is PressKind.WHITE
        else T("Press: white or grey, as each message chooses (signed unless it says GREY)")
    )
    total = rule.total(variant.centres)
    line = rule.threshold(total, year)
    lines.append(
        T("A power wins alone with {count} points (in {year})", count=line, year=year)
        if rule.uses_points
        else T("A power wins alone with {count} supply centres (in {year})", count=line, year=year)
    )
    if rule.uses_points:
        lines.append(_point_values(game))
    if rule.last_year is not None:
        lines.append(T("After the Fall of {year} the leader wins", year=rule.last_year))
    if rule.tie_break:
        lines.append(
            T("A tie of leaders goes by the order {powers}", powers=[game.variant.power(p) for p in rule.tie_break])
        )
    if rule.tie_others is not None:
        lines.append(
            T("A tie that order does not settle is a draw among the tied leaders")
            if rule.tie_others.value == "draw"
            else T("A tie that order does not settle plays on")
        )
    elif not set(variant.powers) <= set(rule.tie_break):  # the default rule: no order settles every tie
        lines.append(T("A tie of leaders at the winning line plays on: the line needs a single leader"))
        if rule.last_year is not None:
            lines.append(T("A tie of leaders after the Fall of {year} is a draw among them", year=rule.last_year))
    if st.combined:
        lines.append(T("A player holding several powers counts them together for victory"))
    lines.append(T("A draw needs the votes of every player still in the game"))
    if st.named_draws:
        lines.append(T("A draw proposal may name the powers that share it (DRAW PROPOSE England France)"))
    if st.anonymous:
        lines.append(T("Anonymous: players' addresses are not shown until the game ends"))
    return Lines(tuple(lines))


def _point_values(game: Game) -> Text:
    """The places a points game values, as GET RULES tells them: ``Paris 3, Burgundy 2``."""
    rule, provinces = game.settings.victory(game.variant), game.variant.geo.provinces
    valued = ", ".join(f"{provinces[prov].name} {value}" for prov, value in rule.points)
    return T("Victory points: {places}; every other supply centre is worth 1", places=valued)


def _map(db: Database, s: Session, item: c.MapOf) -> Answer:
    """MAP: a mail of its own with the board picture of the current phase, or of a played phase with its orders."""
    _costly(s, "MAP")
    game = service.get_game(db, _named_game(s, item.game, "MAP"))
    language = user_settings(db, s.reply_to)["language"]
    powers = fog.reader_powers(db, game, s.reply_to)
    if powers is not None and not powers:
        raise GameError(
            T(
                "{game} is played in the fog of war: its board is shown to its players alone until it ends",
                game=game.name,
            )
        )
    # a played phase's picture: the kept one, else drawn again from the stored boards and kept again a while
    picture = phase_maps.phase_map(db, game, item.phase, language, s.now, keep=True, powers=powers)
    if picture is None:
        if item.phase is None:
            raise GameError(T("{game} has not started yet", game=game.name))
        raise GameError(T("{game} has no phase {phase}", game=game.name, phase=item.phase))
    if picture.png is None:
        raise GameError(T("the map of {variant} cannot be drawn", variant=game.variant.title))
    outbox.send(
        db,
        s.reply_to,
        "map",
        s.now,
        game=game,
        image=picture.png if picture.picture_id is None else None,
        picture_id=picture.picture_id,
        has_map=True,
        phase=picture.phase,
        played=picture.played,
    )
    return Answer(item.text, T("the map of {phase} is sent in a mail of its own", phase=phase_words(picture.phase)))


_COSTLY_PER_MESSAGE = {"MAP": 1, "HISTORY": 3}


def _costly(s: Session, command: str) -> None:
    """MAP draws a picture and HISTORY may tell thirty phases: a message gets only a few of each, so that no message
    can keep the judge busy or grow a reply without end."""
    limit = _COSTLY_PER_MESSAGE[command]
    if s.costly_reads.count(command) >= limit:
        raise GameError(
            T(
                "at most {count} {command} lines are answered per message; send the others in another message",
                count=limit,
                command=command,
            )
        )
    s.costly_reads.append(command)


HANDLERS: dict[type[Any], Callable[[Database, Session, Any], Answer]] = {
    c.ListGames: _list,
    c.History: _history,
    c.MyOrders: _my_orders,
    c.WhoGame: _whogame,
    c.MyRecord: _my_record,
    c.Summary: _summary,
    c.GetFile: _get_file,
    c.MapOf: _map,
}
