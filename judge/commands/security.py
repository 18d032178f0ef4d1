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

With ``[judge] sender_check = "dkim"`` a forged From address can do nothing at all: a mail acts for a seat (or a game
master, or a new game) only when it carries a DKIM signature of its From domain that verifies
(judge.signatures.dkim); without one, every line that needs a sign-on or changes anything is refused with the reason,
and only the commands that change nothing are answered (:func:`sender_unproven`, :data:`CHANGES_NOTHING`).

Internal errors are told to a game master at most once an hour (:func:`tell_master`).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlite_utils import Database

from judge.commands import items as c
from judge.commands import signed_mail
from judge.commands.reply import Answer, Verdict
from judge.commands.session import Session, key_only_text, reader_time
from judge.game.passwords import verify_password
from judge.game.records import Game, Player, load_game, log_event, players
from judge.game.service import GameError
from judge.game.settings import Auth
from judge.i18n import T, Text
from judge.mail.message import Incoming, thread_subject
from judge.reports import outbox
from judge.signatures.dkim import DkimStatus, DkimVerdict, FailReason
from judge.store import events, mail_queue, signons
from judge.store.events import EventKind
from judge.store.key_rows import Holder
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


# --- the sender's domain proven (DKIM) -------------------------------------------------------------------------------

# The commands answered for mail whose sender is not proven: they read, and change nothing (no sign-on, no game, no
# address added anywhere: OBSERVE adds the sender as a reader, so it is not among them).
CHANGES_NOTHING: frozenset[type[c.Item]] = frozenset(
    {c.ListGames, c.History, c.WhoGame, c.Summary, c.GetFile, c.MapOf, c.Sandbox, c.Help, c.SignOff}
)


def sender_unproven(msg: Incoming, verdict: DkimVerdict | None) -> Text | None:
    """Why this mail may act for no seat (to be told to its sender), or None when it may: no sender check
    (``verdict`` None), or a DKIM pass for the very domain of the From address the judge read."""
    if verdict is None:
        return None
    domain = msg.sender.rpartition("@")[2]
    if verdict.passed and verdict.from_domain == domain:
        return None
    return T(
        "This judge acts on mail for a game only when it carries a valid DKIM signature of the sender's domain "
        "({domain}), so that mail forged in your name can do nothing; {why}. Nothing in your mail that needs a "
        "sign-on took effect; the commands that change nothing were answered.",
        domain=domain,
        why=_unproven_why(verdict, domain),
    )


def _unproven_why(verdict: DkimVerdict, domain: str) -> Text:
    if not verdict.from_domain or verdict.from_domain != domain:
        return T("its From field does not name exactly one address")
    if verdict.status is DkimStatus.NONE:
        return T("your mail carries no DKIM signature")
    if verdict.status is DkimStatus.NOT_ALIGNED:
        return T("your mail is signed by {signer}, not by {domain}", signer=verdict.domain or "?", domain=domain)
    if verdict.status is DkimStatus.HAS_LENGTH:
        return T(
            "its DKIM signature covers only the beginning of the text (l=), so anything could have been added below it"
        )
    return {
        FailReason.BODY_CHANGED: T(
            "the text was changed after it was signed (a forwarder or mailing list may do that)"
        ),
        FailReason.SIGNATURE_WRONG: T(
            "the signed header fields were changed after it was signed, or the signature does not match the key"
        ),
        FailReason.NO_KEY: T("no DKIM key for its signature was found in DNS"),
        FailReason.BAD_KEY: T(
            "the DKIM key published for its signature cannot be used (revoked, unreadable or too short)"
        ),
        FailReason.DNS_UNAVAILABLE: T("the judge could not look up the key just now; send your mail again later"),
    }.get(verdict.reason or FailReason.MALFORMED, T("its DKIM signature cannot be read or has expired"))


def refused_unproven(shown: str) -> Answer:
    """A line of a mail whose sender is not proven: not acted on."""
    return Answer.error(
        shown, T("not acted on: your mail is not proven to come from your address's domain (see below)")
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
    """A SIGNON line as quoted back: the password as **** (none when none was given)."""
    return f"SIGNON {item.power}{'' if item.initial else ' '}{item.game}{' ****' if item.password else ''}"


def sign_on(db: Database, s: Session, item: c.SignOn) -> Answer:
    """SIGNON: a good signature by the seat's registered key signs on (no password needed, none checked); else check
    the password (at most one check per message, held back after repeated failures). In a game that takes only
    signed mail, a password sign-on acts for SET KEY alone."""
    sender = s.msg.sender
    found = signed_mail.seat_of(db, item, s.signer)
    if found is not None and found[1] is not None:
        item = found[1]
    shown = masked(item)
    # the powers of a game are public (LIST, WHOGAME): a power the game's variant does not have is named as such;
    # a game that does not exist and a wrong password are told alike
    failed = Answer(shown, T("ERROR: sign-on failed: no such game or password"), Verdict.ERROR)
    if found is None or found[0].player is None:
        game = load_game(db, item.game)
        if game is not None and signed_mail.power_for(game, item) is None:
            log_event(db, game.id, s.now, sender, EventKind.SIGNON_FAILED, {"game": game.name, "power": item.power})
            return Answer(shown, _unknown_power(game, item.power), Verdict.ERROR)
        log_event(
            db,
            game.id if game else None,
            s.now,
            sender,
            EventKind.SIGNON_FAILED,
            {"game": item.game.lower(), "power": item.power},
        )
        return failed
    game, seat = found[0].game, found[0].player
    if signed_mail.signed_by_seat_key(db, s, Holder.PLAYER, seat.id):
        s.game, s.player, s.by_key, s.key_only = game, seat, True, ""
        return Answer(
            shown,
            T(
                "signed on as {power} in {game}, {signed}",
                power=game.variant.power(seat.power or ""),
                game=game.name,
                signed=signed_mail.signed_note(s),
            ),
        )
    if not item.password:
        log_event(db, game.id, s.now, sender, EventKind.SIGNON_FAILED, {"game": game.name, "power": seat.power})
        return Answer(shown, signed_mail.unsigned_refusal(game, master=False), Verdict.ERROR)
    return _password_sign_on(db, s, item, game, seat, shown, failed)


def _password_sign_on(
    db: Database, s: Session, item: c.SignOn, game: Game, seat: Player, shown: str, failed: Answer
) -> Answer:
    sender = s.msg.sender
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
        s.game, s.player, s.by_key = game, seat, False
        if game.settings.auth is Auth.KEY:
            s.key_only = game.name
            return Answer(shown, T("signed on by password; {why}", why=key_only_text(game.name)))
        s.key_only = ""
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
