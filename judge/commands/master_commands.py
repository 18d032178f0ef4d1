"""The game master's commands by mail and TAKEOVER: each a handler that acts on the store and returns an
:class:`Answer`, calling the same game functions as ``judge game …`` (same rules, same mail to the players).

``MASTER <game> <password>`` signs on as the game master for the rest of the message (checked and held back after
repeated failures as a player's SIGNON is, counted under ``(master)`` for the game); ``CREATE`` creates a game and
signs on as its master. Passwords are never quoted back: the lines are shown with ``****``.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any
from zoneinfo import ZoneInfo

from sqlite_utils import Database

from judge.commands import items as c
from judge.commands import signed_mail
from judge.commands.grammar import mask_secrets
from judge.commands.reply import Answer, Lines, Verdict
from judge.commands.security import one_new_password, signon_wait
from judge.commands.session import Session, key_only_text, reader_time
from judge.game import civil_disorder, master, master_mail, service
from judge.game.passwords import verify_password
from judge.game.records import Game, load_game, log_event, user_settings
from judge.game.service import GameError
from judge.game.settings import Auth
from judge.i18n import T
from judge.store import signons
from judge.store.events import EventKind
from judge.store.key_rows import Holder
from judge.timeutil import iso_utc, parse_duration

Handler = Any


def _masked(item: c.Item) -> str:
    return mask_secrets(item.text)


def master_sign_on(db: Database, s: Session, item: c.MasterSignOn) -> Answer:
    """MASTER: a good signature by the game master's registered key signs on (no password needed); else check the
    game's master password (one password check per message; held back after failures)."""
    shown = _masked(item) if item.password else f"MASTER {item.game}"
    failed = Answer(shown, T("ERROR: sign-on failed: no such game or password"), Verdict.ERROR)
    game = load_game(db, item.game)
    stored = master_mail.master_hash(db, game) if game is not None else ""
    if game is not None and signed_mail.signed_by_seat_key(db, s, Holder.MASTER, game.id):
        s.master_of, s.master_by_key, s.master_key_only = game.name, True, ""
        return Answer(
            shown,
            T(
                "signed on as the game master of {game}, {signed}",
                game=game.name,
                signed=signed_mail.signed_note(s),
            ),
        )
    if game is None or not stored:
        log_event(
            db, game.id if game else None, s.now, s.msg.sender, EventKind.MASTER_SIGNON_FAILED, {"game": item.game}
        )
        return failed
    if not item.password:
        log_event(db, game.id, s.now, s.msg.sender, EventKind.MASTER_SIGNON_FAILED, {"game": game.name})
        return Answer(shown, signed_mail.unsigned_refusal(game, master=True), Verdict.ERROR)
    if s.password_checks:
        return Answer(shown, T("ERROR: only one sign-on is checked per message; this one was not"), Verdict.ERROR)
    own = bool(game.settings.master) and game.settings.master == s.msg.sender and s.reply_to == s.msg.sender
    wait_until = signon_wait(db, game, master_mail.MASTER_SEAT, s.now)
    if wait_until is not None and not own:
        log_event(db, game.id, s.now, s.msg.sender, EventKind.SIGNON_HELD, {"power": master_mail.MASTER_SEAT})
        return Answer(
            shown,
            T(
                "ERROR: too many failed sign-ons as the game master of {game}; the password was not checked; "
                "try again after {when}",
                game=game.name,
                when=reader_time(db, s, wait_until),
            ),
            Verdict.ERROR,
        )
    s.password_checks += 1
    if verify_password(item.password, stored):
        s.master_of, s.master_by_key = game.name, False
        if game.settings.auth is Auth.KEY:
            s.master_key_only = game.name
            return Answer(shown, T("signed on by password; {why}", why=key_only_text(game.name)))
        s.master_key_only = ""
        return Answer(shown, T("signed on as the game master of {game}", game=game.name))
    signons.record_failure(db, s.msg.sender, iso_utc(s.now), game.name, master_mail.MASTER_SEAT)
    log_event(db, game.id, s.now, s.msg.sender, EventKind.MASTER_SIGNON_FAILED, {"game": game.name})
    return failed


def _mastered(db: Database, s: Session) -> Game:
    """The game whose master signed on in this message, read afresh."""
    if s.master_of is None:
        raise GameError(T("sign on as the game master first: MASTER <game> <password>"))
    if s.master_key_only:
        raise GameError(key_only_text(s.master_key_only))
    return service.get_game(db, s.master_of)


def _create(db: Database, s: Session, item: c.CreateGame) -> Answer:
    one_new_password(s)
    game = master_mail.create_by_mail(db, item.game, item.password, item.options, s.msg.sender, s.now)
    s.master_of = game.name
    return Answer(
        _masked(item),
        T(
            "created {game} ({variant}); you are its game master; players join with: JOIN {game} <password>",
            game=game.name,
            variant=game.variant.title,
        ),
    )


def _set_deadline(db: Database, s: Session, item: c.SetDeadline) -> Answer:
    game = _mastered(db, s)
    to = item.to
    if to is not None and to.tzinfo is None:  # a time without an offset is in the game master's zone
        to = to.replace(tzinfo=ZoneInfo(user_settings(db, s.reply_to)["timezone"]))
    try:
        by = parse_duration(item.by) if item.by is not None else None
    except ValueError as exc:
        raise GameError(exc.args[0]) from None
    try:
        to = to.astimezone(UTC) if to is not None else None
    except (ValueError, OverflowError):
        raise GameError(T("that time is too far in the past or the future")) from None
    changed = master.change_deadline(
        db,
        game.name,
        s.now,
        by=by,
        to=to,
        shorten=item.shorten,
        sender=s.msg.sender,
    )
    if changed.deadline is None:
        return Answer(item.text, T("game {game} is paused; the time left is changed", game=game.name))
    return Answer(
        item.text,
        T("the deadline of {game} is now {when}", game=game.name, when=reader_time(db, s, changed.deadline)),
    )


def _control(db: Database, s: Session, item: c.MasterControl) -> Answer:
    game = _mastered(db, s)
    sender = s.msg.sender
    if item.action == "process":
        turn = service.process_game(db, game.name, s.now, sender)
        return Answer(item.text, T("{game}: {phase} is adjudicated", game=game.name, phase=turn.phase.code))
    if item.action == "pause":
        service.pause_game(db, game.name, s.now, sender)
        return Answer(item.text, T("{game} is paused", game=game.name))
    service.resume_game(db, game.name, s.now, sender)
    return Answer(item.text, T("{game} is running again", game=game.name))


def _eject(db: Database, s: Session, item: c.Eject) -> Answer:
    game = _mastered(db, s)
    seat = master.eject(db, game.name, item.power, s.now, s.msg.sender)
    return Answer(
        item.text, T("{power} in {game} has no player now", power=game.variant.power(seat.power or ""), game=game.name)
    )


def _terminate(db: Database, s: Session, item: c.Terminate) -> Answer:
    game = _mastered(db, s)
    how = master.Ending.ABANDONED if item.draw is None else master.Ending.DRAW
    master.end(db, game.name, how, s.now, draw=item.draw or (), sender=s.msg.sender)
    return Answer(item.text, T("{game} is over; every player is told", game=game.name))


def _replace(db: Database, s: Session, item: c.ReplacePower) -> Answer:
    game = _mastered(db, s)
    one_new_password(s)
    seat = master.replace(db, game.name, item.power, item.email, item.password, s.now, s.msg.sender)
    return Answer(
        _masked(item),
        T(
            "{power} in {game} is now played by {address}",
            power=game.variant.power(seat.power or ""),
            game=game.name,
            address=seat.email,
        ),
    )


def _takeover(db: Database, s: Session, item: c.TakeOver) -> Answer:
    one_new_password(s)
    outcome = civil_disorder.takeover(db, item.game, item.power, s.msg.sender, item.password, s.now)
    game = service.get_game(db, item.game)
    power = game.variant.power_named(item.power) or item.power
    if outcome is civil_disorder.TakeoverOutcome.ASKED:
        return Answer(
            _masked(item),
            T(
                "you asked to take over {power} in {game}; the game master decides",
                power=game.variant.power(power),
                game=game.name,
            ),
        )
    return Answer(
        _masked(item),
        T(
            "you play {power} in {game} now; sign on with SIGNON {key} {game} and your password",
            power=game.variant.power(power),
            key=power,  # the name the command takes, in any language
            game=game.name,
        ),
    )


def _decide(db: Database, s: Session, item: c.DecideTakeover) -> Answer:
    game = _mastered(db, s)
    decided = civil_disorder.decide(db, game.name, item.power, item.approve, s.now, s.msg.sender)
    if isinstance(decided, str):
        return Answer(item.text, T("the request of {address} is rejected; they are told", address=decided))
    return Answer(
        item.text,
        T(
            "{power} in {game} is now played by {address}",
            power=T(decided.power or ""),
            game=game.name,
            address=decided.email,
        ),
    )


def _whois(db: Database, s: Session, item: c.WhoIs) -> Answer:
    """WHOIS: a player's record, for the game master signed on (MASTER or CREATE earlier in the message)."""
    _mastered(db, s)
    return Answer(item.text, T("see below"), note=Lines(tuple(service.record_lines(db, item.email))))


HANDLERS: dict[type[Any], Handler] = {
    c.MasterSignOn: master_sign_on,
    c.CreateGame: _create,
    c.SetDeadline: _set_deadline,
    c.MasterControl: _control,
    c.Eject: _eject,
    c.Terminate: _terminate,
    c.ReplacePower: _replace,
    c.TakeOver: _takeover,
    c.DecideTakeover: _decide,
    c.WhoIs: _whois,
}
