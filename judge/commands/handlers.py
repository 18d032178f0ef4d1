"""One handler per command: ``HANDLERS`` maps each kind of line the command language reads to a function that acts on
the store and returns an :class:`Answer` (a value; the reply is worded once, in the reader's language).

A handler raises :class:`GameError` for a request that cannot be carried out (the caller answers "ERROR: …" on its
line); anything else it raises is an internal error, undone by the caller's savepoint for that line alone.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.commands import language as c
from judge.commands.master_commands import HANDLERS as MASTER_HANDLERS
from judge.commands.reply import Answer, DeadlineLine, Lines, Row, Verdict
from judge.commands.sandbox_reply import run_sandbox_text
from judge.commands.security import masked, one_new_password, sign_on
from judge.commands.session import Session, signed
from judge.data.catalog import load_variant, variant_names
from judge.facts import LANGUAGES, MIN_PASSWORD_LENGTH
from judge.game import draws, press, service, summaries
from judge.game.absences import declare_absence, withdraw_absences
from judge.game.future_orders import clear_future_orders, keep_future_order, later_phases
from judge.game.order_sets import merge_orders
from judge.game.passwords import hash_password
from judge.game.records import Game, log_event, players, save_player, set_orders, set_user, user_settings
from judge.game.service import GameError
from judge.game.settings import Resolve
from judge.i18n import T, Text, format_length, phase_words, translate
from judge.reports import outbox
from judge.reports.render import render_mail
from judge.rules.parse import ORDER_WORDS
from judge.rules.phase import Phase
from judge.store.events import EventKind
from judge.store.mail_queue import kept_picture
from judge.store.statuses import GameStatus
from judge.timeutil import check_timezone

Handler = Callable[[Database, Session, Any], Answer]


def shown(entry: c.Item | c.LineProblem) -> str:
    """How a line is quoted back in the reply: never with a password in it."""
    if isinstance(entry, c.SignOn):
        return masked(entry)
    return c.mask_secrets(entry.text)


def _order(db: Database, s: Session, item: c.OrderLine) -> Answer:
    unknown = _unknown_command(s, item.text)
    if unknown is not None:
        raise GameError(unknown)
    game, player = signed(db, s)
    if game.status not in ("active", "paused") or game.position is None:
        raise GameError(T("game {game} is {status}: no orders are due", game=game.name, status=T(game.status)))
    if not player.active:
        raise GameError(T("{power} no longer gives orders in {game}", power=T(player.power or ""), game=game.name))
    if s.future_phase is not None:
        return Answer.of(item.text, keep_future_order(db, game, player, s.future_phase, item.text, s.now))
    answer = Answer.of(item.text, merge_orders(db, game, player, item.text, s.now))
    s.changed_orders = s.changed_orders or answer.verdict is Verdict.OK
    return answer


def _ready(db: Database, s: Session, item: c.Ready) -> Answer:
    _game, player = signed(db, s)
    player.ready = item.ready
    save_player(db, player)
    s.ready_changed = True
    return Answer(item.text, T("ready") if item.ready else T("not ready"))


def _clear(db: Database, s: Session, item: c.Clear) -> Answer:
    game, player = signed(db, s)
    if s.future_phase is not None:
        clear_future_orders(db, game, player, s.future_phase)
        return Answer(
            item.text, T("your orders kept for {phase} are withdrawn", phase=phase_words(Phase.parse(s.future_phase)))
        )
    if game.phase:
        set_orders(db, game, game.phase, player.power or "", [], s.now)
    return Answer(item.text, T("all your orders for this phase are withdrawn"))


def _draw(db: Database, s: Session, item: c.Draw) -> Answer:
    game, player = signed(db, s)
    return Answer.of(item.text, draws.vote(db, game, player, item.action, s.now, item.powers))


def _resign(db: Database, s: Session, item: c.Resign) -> Answer:
    game, player = signed(db, s)
    if player.resigned:
        return Answer(item.text, T("you have already resigned"))
    player.resigned, player.ready = True, False
    save_player(db, player)
    log_event(db, game.id, s.now, player.email, EventKind.RESIGN, {"power": player.power})
    for p in players(db, game.id):
        if p.id != player.id:
            outbox.send(db, p.email, "resigned", s.now, game=game, player=player)
    draws.recount(db, game, s.now)
    return Answer(item.text, T("{power} has resigned; its units are in civil disorder", power=T(player.power or "")))


def _press(db: Database, s: Session, item: c.Press) -> Answer:
    """PRESS TO … / BROADCAST: mailed at once; POSTAL PRESS: kept for the next results (judge.game.press)."""
    game, player = signed(db, s)
    if item.postal:
        return Answer(item.text, press.keep_postal_press(db, game, player, item.shade, item.body, s.now))
    return Answer(item.text, press.send_press(db, game, player, item.to, item.shade, item.body, s.now))


def _join(db: Database, s: Session, item: c.Join) -> Answer:
    one_new_password(s)
    seat = service.join_game(db, item.game, s.msg.sender, item.password, s.now, preferences=item.preferences)
    if s.game is None:  # the JOIN password signs on for the rest of the message (SET LANGUAGE …)
        s.game, s.player = service.get_game(db, item.game), seat
    return Answer(
        shown(item),
        T(
            "{address} joined {game}; the game starts when the game master starts it",
            address=seat.email,
            game=item.game.lower(),
        ),
    )


def _observe(db: Database, s: Session, item: c.Observe) -> Answer:
    service.observe_game(db, item.game, s.msg.sender, s.now)
    return Answer(item.text, T("you will receive the results of {game}", game=item.game.lower()))


def _list(db: Database, s: Session, item: c.ListGames) -> Answer:
    return Answer(item.text, T("see below"), note=_list_text(db, item.game, s.reply_to, s.now))


def _history(db: Database, s: Session, item: c.History) -> Answer:
    _costly(s, "HISTORY")
    language = user_settings(db, s.reply_to)["language"]
    return Answer(item.text, T("see below"), note=_history_text(db, item.game, item.phase, language))


def _sandbox(db: Database, s: Session, item: c.Sandbox) -> Answer:
    if item.from_game is None:
        return Answer("SANDBOX", T("see below"), note=run_sandbox_text(item.body))
    from judge.game.sandbox_game import from_game

    game_name = item.from_game
    note = run_sandbox_text(item.body, lambda data: from_game(db, game_name, data), game_name)
    return Answer("SANDBOX", T("see below"), note=note)


def _set_password(db: Database, s: Session, item: c.SetPassword) -> Answer:
    game, player = signed(db, s)
    if len(item.password) < MIN_PASSWORD_LENGTH:
        raise GameError(T("choose a password of at least {count} characters", count=MIN_PASSWORD_LENGTH))
    one_new_password(s)
    player.password_hash = hash_password(item.password)
    save_player(db, player)
    log_event(db, game.id, s.now, s.msg.sender, EventKind.PASSWORD, {"power": player.power})
    return Answer("SET PASSWORD ****", T("your password is changed"))


def _settings_address(db: Database, s: Session) -> str:
    """Whose settings a SET TIMEZONE or SET LANGUAGE changes: the game master's own address when the master signed
    on (MASTER) and no player did, else the player's."""
    if s.master_of is not None and s.player is None:
        return s.msg.sender
    _game, player = signed(db, s, setting=True)
    return player.email


def _set_timezone(db: Database, s: Session, item: c.SetTimezone) -> Answer:
    address = _settings_address(db, s)
    try:
        zone = check_timezone(item.zone)
    except ValueError as exc:
        raise GameError(exc.args[0]) from None
    set_user(db, address, timezone=zone)
    return Answer(item.text, T("deadlines will be shown in {zone}", zone=zone))


def _set_language(db: Database, s: Session, item: c.SetLanguage) -> Answer:
    address = _settings_address(db, s)
    if item.language not in LANGUAGES:
        raise GameError(T("the judge speaks {languages}", languages=", ".join(LANGUAGES)))
    set_user(db, address, language=item.language)
    return Answer(item.text, T("replies will be in {language}", language=T(_LANGUAGE_NAMES[item.language])))


_LANGUAGE_NAMES = {"en": "English", "ru": "Russian", "de": "German"}


def _help(db: Database, s: Session, item: c.Help) -> Answer:
    return Answer(item.text, T("see below"), note=render_mail("help", user_settings(db, s.msg.sender)["language"]).text)


def _sign_off(db: Database, s: Session, item: c.SignOff) -> Answer:
    return Answer(item.text, T("end of message"))


HANDLERS: dict[type[Any], Handler] = {
    c.SignOn: sign_on,
    c.OrderLine: _order,
    c.Ready: _ready,
    c.Clear: _clear,
    c.Draw: _draw,
    c.Resign: _resign,
    c.Press: _press,
    c.Join: _join,
    c.Observe: _observe,
    c.ListGames: _list,
    c.History: _history,
    c.Sandbox: _sandbox,
    c.SetPassword: _set_password,
    c.SetTimezone: _set_timezone,
    c.SetLanguage: _set_language,
    c.Help: _help,
    c.SignOff: _sign_off,
    c.MyOrders: lambda db, s, item: _my_orders(db, s, item),
    c.WhoGame: lambda db, s, item: _whogame(db, s, item),
    c.Summary: lambda db, s, item: _summary(db, s, item),
    c.GetFile: lambda db, s, item: _get_file(db, s, item),
    c.MapOf: lambda db, s, item: _map(db, s, item),
}


def run(db: Database, s: Session, item: c.Item) -> Answer:
    """Act on one line: the handler of its kind."""
    return HANDLERS[type(item)](db, s, item)


# --- unknown commands -----------------------------------------------------------------------------------------------


def _unknown_command(s: Session, text: str) -> Text | None:
    """An order line whose first word is neither a word of an order nor a place of the game's map (of any shipped
    map before a sign-on) is an unknown command (``WHOGAME``, ``SUMMARY``): say so, with the nearest command."""
    words = text.split()
    head = words[0].strip(".:,;!?").lower() if words else ""
    if not head.isalpha() or head in ORDER_WORDS:
        return None
    maps = [s.game.variant.geo] if s.game is not None else [_shipped_map(name) for name in variant_names()]
    if any(any(key[0] == head for key in geo.names) for geo in maps if geo is not None):
        return None
    near = _nearest_command(head)
    if near is not None:
        return T(
            "{word} is not a command or an order; did you mean {command}? Send HELP for the commands",
            word=words[0].upper(),
            command=near,
        )
    return T("{word} is not a command or an order; send HELP for the commands", word=words[0].upper())


def _nearest_command(word: str) -> str | None:
    """The known command closest to ``word`` by spelling (``SIGNOF`` -> ``SIGNOFF``, ``REDY`` -> ``READY``)."""
    close = difflib.get_close_matches(word.upper(), c.known_commands(), n=1, cutoff=0.6)
    return close[0] if close else None


@functools.cache
def _shipped_map(name: str) -> Any:
    try:
        return load_variant(name).geo
    except Exception:  # noqa: BLE001 - a broken host variant must not stop the message
        return None


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
            variant=game.variant.name,
            status=T(game.status),
            phase=phase,
        )
    ]
    if game.deadline is not None:
        lines.append(DeadlineLine(game.deadline, user_settings(db, to)["timezone"], now))
    playing = game.status in ("active", "paused")
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
        lines.append(T("  {power}: supply centres {count}", power=T(power), count=len(centres)))
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
    who = "" if game.settings.anonymous else p["email"]
    power: Text | str = T(p["power"]) if p["power"] else "?"
    return Row(((power, 12), (who, 26), (states, 0)), indent="  ", trim=True)


def _history_text(db: Database, name: str, phase: str | None, language: str) -> Text | str:
    """HISTORY: the results of every played phase (the latest 30 in full, the earlier ones named), or of one phase,
    each as its results mail told it, in the reader's language."""
    game = service.get_game(db, name)
    told = summaries.phase_results(db, game, phase.upper() if phase else None)
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
    if game.status not in ("active", "paused") or game.position is None:
        raise GameError(T("game {game} is {status}: no orders are due", game=game.name, status=T(game.status)))
    lines: list[Text | Row] = []
    for held in summaries.my_order_sets(db, game, player):
        lines.append(T("{power}, {phase}:", power=T(held["power"]), phase=phase_words(held["phase"])))
        if not held["owes"]:
            lines.append(_indented(T("{power} owes no orders in this phase", power=T(held["power"]))))
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
            variant=game.variant.name,
            status=T(game.status),
            phase=phase,
        )
    ]
    for seat in seats:
        states = [T("resigned")] if seat.resigned else [T("eliminated")] if seat.eliminated else []
        power: Text | str = T(seat.power) if seat.power else "?"
        lines.append(Row(((power, 12), (seat.email or "", 26), (states, 0)), indent="  ", trim=True))
    if hidden:
        lines.append(T("This game is anonymous: players' addresses are not shown."))
    if observers:
        lines.append(T("Observers: {count}", count=observers))
    return Answer(item.text, T("see below"), note=Lines(tuple(lines)))


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
        cells: list[tuple[Text | str, int]] = [(T(power), 12)]
        cells += [(str(counts.get(power, 0)), 6) for _, counts in table]
        lines.append(Row(tuple(cells), indent="  ", trim=True))
    for power, year in told.eliminated:
        lines.append(T("{power} was eliminated in {year}", power=T(power), year=year))
    for change in told.changes:
        if change.power:
            lines.append(_change_words(change))
    return Answer(item.text, T("see below"), note=Lines(tuple(lines)))


_TOPICS = ("help", "rules", "orders")


def _get_file(db: Database, s: Session, item: c.GetFile) -> Answer:
    """GET HELP, GET ORDERS (guides kept as templates per language), GET RULES [game] (the game's house rules)."""
    language = user_settings(db, s.msg.sender)["language"]
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
        T("House rules of {game} ({variant}):", game=game.name, variant=variant.name),
        T(
            "Deadlines: movement {movement}, retreats {retreats}, adjustments {adjustments}",
            movement=format_length(st.movement_deadline, language),
            retreats=format_length(st.retreat_deadline, language),
            adjustments=format_length(st.adjustment_deadline, language),
        ),
    ]
    if st.grace:
        lines.append(T("Orders are still taken {length} after a deadline", length=format_length(st.grace, language)))
    lines.append(
        T("Press: none")
        if st.press == "none"
        else T("Press: grey (the sender is not named)")
        if st.press == "grey" or st.anonymous
        else T("Press: white (signed by its sender)")
        if st.press == "white"
        else T("Press: white or grey, as each message chooses (signed unless it says GREY)")
    )
    total = rule.total(variant.centres)
    line = rule.threshold(total, year)
    lines.append(
        T("A power wins alone with {count} points (in {year})", count=line, year=year)
        if rule.uses_points
        else T("A power wins alone with {count} supply centres (in {year})", count=line, year=year)
    )
    if rule.last_year is not None:
        lines.append(T("After the Fall of {year} the leader wins", year=rule.last_year))
    if rule.tie_break:
        lines.append(T("A tie of leaders goes by the order {powers}", powers=[T(p) for p in rule.tie_break]))
    if rule.tie_others is not None:
        lines.append(
            T("A tie that order does not settle is a draw among the tied leaders")
            if rule.tie_others.value == "draw"
            else T("A tie that order does not settle plays on")
        )
    if st.combined:
        lines.append(T("A player holding several powers counts them together for victory"))
    lines.append(T("A draw needs the votes of every player still in the game"))
    if st.named_draws:
        lines.append(T("A draw proposal may name the powers that share it (DRAW PROPOSE England France)"))
    if st.anonymous:
        lines.append(T("Anonymous: players' addresses are not shown until the game ends"))
    return Lines(tuple(lines))


def _map(db: Database, s: Session, item: c.MapOf) -> Answer:
    """MAP: a mail of its own with the board picture of the current phase, or of a played phase with its orders."""
    _costly(s, "MAP")
    game = service.get_game(db, _named_game(s, item.game, "MAP"))
    picture = summaries.phase_picture(db, game, item.phase)
    if picture is None:
        if item.phase is None:
            raise GameError(T("{game} has not started yet", game=game.name))
        raise GameError(T("{game} has no phase {phase}", game=game.name, phase=item.phase))
    language = user_settings(db, s.reply_to)["language"]
    picture_id = kept_picture(db, game.id, picture.phase, language) if picture.after is not None else None
    image: bytes | None = None
    if picture_id is None:
        png = outbox.map_picture(game, picture.before, picture.lines, language, picture.after)
        if png is None:
            raise GameError(T("the map of {variant} cannot be drawn", variant=game.variant.name))
        if picture.after is not None:
            picture_id = outbox.store_picture(db, game, picture.phase, language, outbox.palette_png(png), s.now)
        else:
            image = outbox.palette_png(png)
    outbox.send(
        db,
        s.reply_to,
        "map",
        s.now,
        game=game,
        image=image,
        picture_id=picture_id,
        has_map=True,
        phase=picture.before.phase,
        played=picture.after is not None,
    )
    return Answer(
        item.text, T("the map of {phase} is sent in a mail of its own", phase=phase_words(picture.before.phase))
    )


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


# --- SET WAIT, SET NOWAIT, PHASE ------------------------------------------------------------------------------------


def _set_wait(db: Database, s: Session, item: c.SetWait) -> Answer:
    """SET WAIT / SET NOWAIT: kept for this player in this game until withdrawn; NOWAIT may let the phase resolve."""
    game, player = signed(db, s, setting=True)
    player.wait = item.wait
    save_player(db, player)
    s.ready_changed = True  # the early resolution is checked again once the message is handled
    if game.settings.resolve is not Resolve.ORDERS_IN:
        return Answer(
            item.text,
            T(
                "noted; game {game} resolves early only when everyone is READY, so it waits for you anyway",
                game=game.name,
            )
            if item.wait
            else T("noted; game {game} resolves early only when everyone is READY", game=game.name),
        )
    if item.wait:
        return Answer(item.text, T("game {game} will wait for the deadline or your READY", game=game.name))
    return Answer(item.text, T("game {game} may resolve as soon as every order due is in", game=game.name))


def _phase_for(db: Database, s: Session, item: c.PhaseFor) -> Answer:
    """PHASE …: the order lines after it (in this message) are kept for that later phase; the current phase's code
    goes back to ordering for now."""
    game, _player = signed(db, s)
    if game.position is None or game.status not in ("active", "paused"):
        raise GameError(T("game {game} is {status}: no orders are due", game=game.name, status=T(game.status)))
    if item.phase == game.position.phase.code:
        s.future_phase = None
        return Answer(item.text, T("the orders that follow are for the current phase"))
    s.future_phase = item.phase  # even when refused: the lines that follow must not count for the current phase
    allowed = later_phases(game.position.phase)
    if Phase.parse(item.phase) not in allowed:
        raise GameError(
            T(
                "orders can be kept for {phases} only (the game is in {phase}); the orders that follow are refused",
                phases=[phase_words(p) for p in allowed],
                phase=phase_words(game.position.phase),
            )
        )
    return Answer(
        item.text,
        T("the orders that follow are kept for {phase}", phase=phase_words(Phase.parse(item.phase))),
    )


HANDLERS[c.SetWait] = _set_wait
HANDLERS[c.PhaseFor] = _phase_for


# --- SET ABSENCE ----------------------------------------------------------------------------------------------------


def _set_absence(db: Database, s: Session, item: c.SetAbsence) -> Answer:
    """SET ABSENCE <first> [TO <last>]: no deadline of the game falls in those days; SET ABSENCE CLEAR."""
    game, player = signed(db, s, setting=True)
    if item.first is None:
        return Answer(item.text, withdraw_absences(db, game, player, s.now))
    return Answer(item.text, declare_absence(db, game, player, item.first, item.last, s.now))


HANDLERS[c.SetAbsence] = _set_absence


# --- DIARY, SET PRESS -----------------------------------------------------------------------------------------------


def _diary(db: Database, s: Session, item: c.Diary) -> Answer:
    """DIARY … ENDDIARY: kept private until the game ends, then mailed to everyone."""
    game, player = signed(db, s)
    return Answer(item.text, press.write_diary(db, game, player, item.body, s.now))


def _set_press(db: Database, s: Session, item: c.SetPress) -> Answer:
    """SET PRESS GREY / WHITE: the player's default shade in a game allowing both."""
    game, player = signed(db, s, setting=True)
    return Answer(item.text, press.set_press_shade(db, game, player, item.shade))


HANDLERS[c.Diary] = _diary
HANDLERS[c.SetPress] = _set_press

# --- the game master by mail, TAKEOVER (judge.commands.master_commands) ---------------------------------------------

HANDLERS.update(MASTER_HANDLERS)
