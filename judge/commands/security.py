"""Sign-on security and rate limits: what a forged From address cannot do (anyone can forge one).

- silence a player: when the replies to an address are over the hourly quota, its messages are still read and acted
  on; only the answer is held back, and the address gets one "replies paused until HH:MM UTC" notice per pause
  (:func:`replies_paused_until`, :func:`tell_of_pause`);
- lock a player out: failed sign-ons are counted per game and power, all senders together, and after a few of them
  the password is checked only after a growing delay — except for sign-ons from the seat's own address whose replies
  go to that address (a forger learns nothing from them), so a correct password from the player always works
  (:func:`sign_on`);
- flood the owner: the warning about failed sign-ons goes at most once an hour per seat and sums up the attempts;
- burn CPU: at most one password is checked (scrypt) per message, and at most one new password is hashed
  (:func:`one_new_password`).

Internal errors are told to a game master at most once an hour (:func:`tell_master`).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlite_utils import Database

from judge.commands import items as c
from judge.commands.reply import Answer, Verdict
from judge.commands.session import Session, reader_time
from judge.game.passwords import verify_password
from judge.game.records import Game, Player, load_game, log_event, players
from judge.game.service import GameError
from judge.i18n import T, Text
from judge.mail.message import Incoming, thread_subject
from judge.reports import outbox
from judge.store import events, mail_queue, signons
from judge.store.events import EventKind
from judge.timeutil import backoff_pause, iso_utc, parse_iso_utc

log = logging.getLogger(__name__)

MAX_FAILED_SIGNONS = 3  # failed sign-ons per game and power (in a day) before the password checks slow down
SIGNON_FAILURE_WINDOW = timedelta(hours=24)
FIRST_SIGNON_DELAY = timedelta(minutes=1)  # the wait after the first failure over MAX_FAILED_SIGNONS, then doubling
MAX_SIGNON_DELAY = timedelta(hours=12)  # the longest wait between two password checks for one seat
ALERT_INTERVAL = timedelta(hours=1)  # failed-sign-on warnings to a seat's owner, internal-error mail to a master
REPLY_WINDOW = timedelta(hours=1)


# --- the reply quota ------------------------------------------------------------------------------------------------


def replies_paused_until(db: Database, msg: Incoming, now: datetime, limit: int) -> datetime | None:
    """When replies to the sender may go again, if the hourly quota is spent; None if it is not."""
    rows = mail_queue.recent_replies(db, msg.reply_to or msg.sender, iso_utc(now - REPLY_WINDOW))
    if len(rows) < limit:
        return None
    # the quota frees up when the oldest answer that keeps it full leaves the hour
    oldest = rows[len(rows) - limit]
    return parse_iso_utc(oldest) + REPLY_WINDOW


def tell_of_pause(db: Database, msg: Incoming, now: datetime, until: datetime, limit: int) -> None:
    """The one notice of a pause: sent unless one went to this address within the last hour."""
    address = msg.reply_to or msg.sender
    if events.logged_since(db, EventKind.REPLIES_PAUSED, address, iso_utc(now - REPLY_WINDOW)):
        return
    log_event(db, None, now, address, EventKind.REPLIES_PAUSED, {"until": iso_utc(until)})
    outbox.send(
        db,
        address,
        "replies_paused",
        now,
        original_subject=thread_subject(msg.subject),
        until=until,
        limit=limit,
    )


# --- passwords ------------------------------------------------------------------------------------------------------


def one_new_password(s: Session) -> None:
    """JOIN and SET PASSWORD hash a new password (scrypt): one of them per message."""
    if s.password_hashes:
        raise GameError(
            T(
                "only one new password (JOIN or SET PASSWORD) is taken per message; send this one "
                "in a message of its own"
            )
        )
    s.password_hashes += 1


def masked(item: c.SignOn) -> str:
    """A SIGNON line as quoted back: the password as ****."""
    return f"SIGNON {item.power}{'' if item.initial else ' '}{item.game} ****"


def sign_on(db: Database, s: Session, item: c.SignOn) -> Answer:
    """SIGNON: check the password (at most one check per message, held back after repeated failures)."""
    sender = s.msg.sender
    shown = masked(item)
    # the powers of a game are public (LIST, WHOGAME): a power the game's variant does not have is named as such;
    # a game that does not exist and a wrong password are told alike
    failed = Answer(shown, T("ERROR: sign-on failed: no such game or password"), Verdict.ERROR)
    game = load_game(db, item.game)
    seat = None
    if game is not None:
        power = _power_for(game, item)
        if power is None:
            log_event(db, game.id, s.now, sender, EventKind.SIGNON_FAILED, {"game": game.name, "power": item.power})
            return Answer(shown, _unknown_power(game, item.power), Verdict.ERROR)
        seat = next((p for p in players(db, game.id) if p.role == "player" and p.power == power), None)
    if game is None or seat is None:
        log_event(
            db,
            game.id if game else None,
            s.now,
            sender,
            EventKind.SIGNON_FAILED,
            {"game": item.game.lower(), "power": item.power},
        )
        return failed
    if s.password_checks:
        return Answer(shown, T("ERROR: only one sign-on is checked per message; this one was not"), Verdict.ERROR)
    # the seat's owner, writing from the seat's address and reading the answer there, is never held back: a forger
    # of that address learns nothing from the answer
    own = seat.email == sender and s.reply_to == seat.email
    wait_until = signon_wait(db, game, seat.power or "", s.now)
    if wait_until is not None and not own:
        log_event(db, game.id, s.now, sender, EventKind.SIGNON_HELD, {"power": seat.power})
        return Answer(
            shown,
            T(
                "ERROR: too many failed sign-ons as {power} in {game}; the password was not "
                "checked; try again after {when}",
                power=game.variant.power(seat.power or ""),
                game=game.name,
                when=reader_time(db, s, wait_until),
            ),
            Verdict.ERROR,
        )
    s.password_checks += 1
    if verify_password(item.password, seat.password_hash):
        s.game, s.player = game, seat
        return Answer(
            shown, T("signed on as {power} in {game}", power=game.variant.power(seat.power or ""), game=game.name)
        )
    signons.record_failure(db, sender, iso_utc(s.now), game.name, seat.power)
    log_event(db, game.id, s.now, sender, EventKind.SIGNON_FAILED, {"game": item.game.lower(), "power": item.power})
    if not own:
        _alert_owner(db, game, seat, s.now)
    return failed


def _unknown_power(game: Game, written: str) -> Text:
    """A sign-on's power that the game's variant does not have, named with the variant's powers (in the reader's
    language when worded)."""
    return T(
        "ERROR: sign-on failed: {name} is not a power of game {game}; its powers are {powers}",
        name=repr(written),
        game=game.name,
        powers=[game.variant.power(p) for p in game.variant.powers],
    )


def _power_for(game: Game, item: c.SignOn) -> str | None:
    if not item.initial:
        return game.variant.power_named(item.power)
    matches = [p for p in game.variant.powers if p[0].upper() == item.power.upper()]
    return matches[0] if len(matches) == 1 else None


def _failures(db: Database, game: Game, power: str, since: datetime) -> list[dict[str, Any]]:
    return signons.failures_since(db, game.name, power, iso_utc(since))


def signon_wait(db: Database, game: Game, power: str, now: datetime) -> datetime | None:
    """Until when password checks for this seat wait, after too many failures in the last day; None: no wait.

    The first ``MAX_FAILED_SIGNONS`` failures cost nothing; after that each failure doubles the wait after it, from
    ``FIRST_SIGNON_DELAY`` up to ``MAX_SIGNON_DELAY``.
    """
    failures = _failures(db, game, power, now - SIGNON_FAILURE_WINDOW)
    extra = len(failures) - MAX_FAILED_SIGNONS
    if extra < 0:
        return None
    until = parse_iso_utc(failures[-1]["at"]) + backoff_pause(extra + 1, FIRST_SIGNON_DELAY, MAX_SIGNON_DELAY)
    return until if until > now else None


def _alert_owner(db: Database, game: Game, seat: Player, now: datetime) -> None:
    """Warn the seat's owner of failed sign-ons from other addresses: at most once an hour, summing them up."""
    recent = events.last_logged_at(db, game.id, EventKind.SIGNON_ALERT, seat.email)
    if recent is not None and recent > iso_utc(now - ALERT_INTERVAL):
        return
    since = now - SIGNON_FAILURE_WINDOW
    if recent is not None:
        since = max(since, parse_iso_utc(recent))
    failures = [f for f in _failures(db, game, seat.power or "", since) if f["address"] != seat.email]
    if not failures:
        return
    addresses = list(dict.fromkeys(f["address"] for f in failures))
    hidden = 0
    if game.settings.anonymous:  # an anonymous game never shows a player's address to another player
        seats = {p.email for p in players(db, game.id)}
        hidden = sum(1 for a in addresses if a in seats)
        addresses = [a for a in addresses if a not in seats]
    shown = addresses[:5] + ([f"{len(addresses) - 5} more"] if len(addresses) > 5 else [])
    log_event(db, game.id, now, seat.email, EventKind.SIGNON_ALERT, {"power": seat.power, "attempts": len(failures)})
    outbox.send(
        db,
        seat.email,
        "signon_alert",
        now,
        game=game,
        player=seat,
        attempts=len(failures),
        addresses=shown,
        hidden=hidden,
        since=since,
    )


# --- internal errors ------------------------------------------------------------------------------------------------


def tell_master(db: Database, s: Session, master_address: str, what: Text | str, *, partial: bool) -> None:
    """Mail the game master (of the game signed on to, else the judge's) about an internal error, at most hourly."""
    to = ""
    game = s.game
    if game is None and s.mentioned:
        try:
            game = load_game(db, s.mentioned)
        except Exception:  # noqa: BLE001 - the store may be what failed; the host's master address is still told
            game = None
    if game is not None and game.settings.master:
        to = game.settings.master.lower()
    to = to or master_address.lower()
    if not to:
        log.error("internal error in message %s from %s, and no game master to tell", s.msg.message_id, s.msg.sender)
        return
    since = s.now - ALERT_INTERVAL
    earlier = events.count_since(db, EventKind.INTERNAL_ERROR, to, iso_utc(since))
    log_event(
        db,
        game.id if game else None,
        s.now,
        to,
        EventKind.INTERNAL_ERROR,
        {"message_id": s.msg.message_id, "from": s.msg.sender, "what": str(what)},
    )
    if earlier:
        return
    try:
        outbox.send(
            db,
            to,
            "internal_error",
            s.now,
            game=game,
            sender=s.msg.sender,
            message_id=s.msg.message_id,
            when=s.now,
            what=what,
            partial=partial,
            count=1,
            since=since,
        )
    except Exception:  # telling the master must not undo the message
        log.exception("could not queue the internal-error mail to %s", to)
