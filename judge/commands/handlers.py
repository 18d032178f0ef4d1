"""One handler per command: ``HANDLERS`` maps each kind of line the command language reads to a function that acts on
the store and returns an :class:`Answer` (a value; the reply is worded once, in the reader's language).

A handler raises :class:`GameError` for a request that cannot be carried out (the caller answers "ERROR: …" on its
line); anything else it raises is an internal error, undone by the caller's savepoint for that line alone.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable
from typing import Any

from sqlite_utils import Database

from judge.commands import items as c
from judge.commands import signed_mail
from judge.commands.grammar import known_commands, mask_secrets
from judge.commands.info_commands import HANDLERS as INFO_HANDLERS
from judge.commands.master_commands import HANDLERS as MASTER_HANDLERS
from judge.commands.reply import Answer, Verdict
from judge.commands.sandbox_reply import run_sandbox_text
from judge.commands.security import masked, one_new_password, sign_on
from judge.commands.session import Session, signed
from judge.data.catalog import load_variant, variant_names
from judge.facts import LANGUAGES, MIN_PASSWORD_LENGTH
from judge.game import deadline_mail, draws, press, service
from judge.game.absences import declare_absence, withdraw_absences
from judge.game.future_orders import clear_future_orders, keep_future_order, later_phases
from judge.game.order_sets import merge_orders
from judge.game.passwords import hash_password
from judge.game.records import log_event, players, save_player, set_orders, set_user, user_settings
from judge.game.service import GameError
from judge.game.settings import Resolve
from judge.game.track_record import count_leaving
from judge.i18n import T, Text, outcome_openings, phase_words
from judge.reports import outbox
from judge.reports.render import render_mail
from judge.rules.geography import name_words
from judge.rules.parse import ORDER_WORDS
from judge.rules.phase import Phase
from judge.store.events import EventKind
from judge.store.statuses import PLAYING
from judge.timeutil import check_timezone, parse_lead_times

Handler = Callable[[Database, Session, Any], Answer]


def shown(entry: c.Item | c.LineProblem) -> str:
    """How a line is quoted back in the reply: never with a password in it."""
    if isinstance(entry, c.SignOn):
        return masked(entry)
    return mask_secrets(entry.text)


def _order(db: Database, s: Session, item: c.OrderLine) -> Answer:
    unknown = _unknown_command(s, item.text)
    if unknown is not None:
        raise GameError(unknown)
    game, player = signed(db, s)
    if game.status not in PLAYING or game.position is None:
        raise GameError(T("game {game} is {status}: no orders are due", game=game.name, status=T(game.status)))
    if not player.active:
        raise GameError(
            T("{power} no longer gives orders in {game}", power=game.variant.power(player.power or ""), game=game.name)
        )
    text = pasted_order(item.text)
    if s.future_phase is not None:
        return Answer.of(item.text, keep_future_order(db, game, player, s.future_phase, text, s.now))
    answer = Answer.of(item.text, merge_orders(db, game, player, text, s.now))
    s.changed_orders = s.changed_orders or answer.verdict is Verdict.OK
    return answer


_GAP = re.compile(r"(?:[ \t]{2,}|\t)(?=\S)")


def pasted_order(text: str) -> str:
    """An order line with what the judge's results said of it cut off, when a player pastes a results line back:
    ``A par - bur      succeeds``, ``F sev - bla   отскок с F ank``, ``A mun - bur erfolgreich`` are the orders."""
    firsts, whole = outcome_openings()
    for gap in _GAP.finditer(text):
        tail = text[gap.end() :].split()
        if tail and tail[0].lower().strip(":,;") in firsts:
            return text[: gap.start()].strip()
    low = text.lower().rstrip(" .")
    for phrase in whole:
        if low.endswith(" " + phrase):
            return text[: len(low) - len(phrase)].strip()
    return text


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
    count_leaving(db, game, player, "resigned", s.now)
    for p in players(db, game.id):
        if p.id != player.id:
            outbox.send(db, p.email, "resigned", s.now, game=game, player=player)
    draws.recount(db, game, s.now)
    return Answer(
        item.text,
        T("{power} has resigned; its units are in civil disorder", power=game.variant.power(player.power or "")),
    )


def _concede(db: Database, s: Session, item: c.Concede) -> Answer:
    game, player = signed(db, s)
    return Answer.of(item.text, draws.concede(db, game, player, s.now))


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


def _sandbox(db: Database, s: Session, item: c.Sandbox) -> Answer:
    if item.from_game is None:
        return Answer("SANDBOX", T("see below"), note=run_sandbox_text(item.body))
    from judge.game.sandbox_game import from_game

    game_name = item.from_game
    note = run_sandbox_text(item.body, lambda data: from_game(db, game_name, data, s.reply_to), game_name)
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
    c.Concede: _concede,
    c.Press: _press,
    c.Join: _join,
    c.Observe: _observe,
    c.Sandbox: _sandbox,
    c.SetPassword: _set_password,
    c.SetTimezone: _set_timezone,
    c.SetLanguage: _set_language,
    c.Help: _help,
    c.SignOff: _sign_off,
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
    folded = " ".join(name_words(head))  # "Böhmen" as the names are kept, "boehmen"
    if not head.isalpha() or head in ORDER_WORDS or folded in ORDER_WORDS:
        return None
    maps = [s.game.variant.geo] if s.game is not None else [_shipped_map(name) for name in variant_names()]
    if any(any(key[0] == folded for key in geo.names) for geo in maps if geo is not None):
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
    close = difflib.get_close_matches(word.upper(), known_commands(), n=1, cutoff=0.6)
    return close[0] if close else None


@functools.cache
def _shipped_map(name: str) -> Any:
    try:
        return load_variant(name).geo
    except Exception:  # noqa: BLE001 - a broken host variant must not stop the message
        return None


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
    if game.position is None or game.status not in PLAYING:
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


HANDLERS[c.SetKey] = signed_mail.set_key


HANDLERS[c.SetPress] = _set_press


# --- SET REMINDER, SET CALENDAR -------------------------------------------------------------------------------------


def _set_reminder(db: Database, s: Session, item: c.SetReminder) -> Answer:
    """SET REMINDER 24h 2h / NONE / DEFAULT: this player's reminders in this game."""
    game, player = signed(db, s, setting=True)
    leads: tuple[int, ...] | None = None
    if item.words != ("DEFAULT",):
        try:
            leads = parse_lead_times(list(item.words))
        except ValueError as exc:
            raise GameError(exc.args[0]) from None
    return Answer(item.text, deadline_mail.set_reminders(db, game, player, leads))


def _set_calendar(db: Database, s: Session, item: c.SetCalendar) -> Answer:
    """SET CALENDAR ON / OFF: deadline invitations in this player's mail of this game."""
    game, player = signed(db, s, setting=True)
    return Answer(item.text, deadline_mail.set_calendar(db, game, player, item.on))


HANDLERS[c.SetReminder] = _set_reminder
HANDLERS[c.SetCalendar] = _set_calendar


# --- the information commands (judge.commands.info_commands), the game master by mail and TAKEOVER
# (judge.commands.master_commands) -------------------------------------------------------------------------------------

HANDLERS.update(INFO_HANDLERS)
HANDLERS.update(MASTER_HANDLERS)
