"""Handling one incoming message: its commands and orders change the store, its replies go to the outbox.

``handle_raw`` is the one code path for the daemon and for ``judge mail handle``. The whole effect of a message —
game changes, queued replies and the record that the message was handled (by Message-ID and the sha256 of its bytes)
— commits in one transaction, so a message handled twice has no second effect.

What a forged From address cannot do (anyone can forge one):

- silence a player: when the replies to an address are over the hourly quota, its messages are still read and acted
  on; only the answer is held back, and the address gets one "replies paused until HH:MM UTC" notice per pause;
- lock a player out: failed sign-ons are counted per game and power, all senders together, and after a few of them
  the password is checked only after a growing delay — except for sign-ons from the seat's own address whose replies
  go to that address (a forger learns nothing from them), so a correct password from the player always works;
- flood the owner: the warning about failed sign-ons goes at most once an hour per seat and sums up the attempts;
- change a setting: every command that changes anything needs a sign-on (JOIN carries its own password);
- burn CPU: at most one password is checked (scrypt) per message, and at most one new password is hashed.

Each command runs in a savepoint of its own: an internal failure undoes that command only, is answered on its line,
and is told to the game master by mail (at most one such mail an hour). ``handle_message`` itself never raises.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import logging
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from sqlite_utils import Database

import judge.wiring  # noqa: F401  (the game server given its variant loader and mail side)
from judge.commands import language as c
from judge.commands.sandbox_reply import run_sandbox_text
from judge.data.catalog import load_variant, variant_names
from judge.game import draws, service
from judge.game.order_sets import merge_orders, order_summary
from judge.game.passwords import hash_password, verify_password
from judge.game.records import (
    Game,
    Player,
    load_game,
    log_event,
    players,
    save_player,
    set_orders,
    set_user,
    user_settings,
)
from judge.game.service import GameError
from judge.i18n import T, Text, phase_words, translate
from judge.mail.message import Attachment, Incoming, Problem, parse_incoming
from judge.reports import outbox
from judge.reports.render import LANGUAGES, render_mail
from judge.rules.parse import ORDER_WORDS
from judge.store import is_busy, write
from judge.timeutil import check_timezone, format_deadline, iso_utc

log = logging.getLogger(__name__)

MAX_FAILED_SIGNONS = 3  # failed sign-ons per game and power (in a day) before the password checks slow down
SIGNON_FAILURE_WINDOW = timedelta(hours=24)
MAX_SIGNON_DELAY = timedelta(hours=12)  # the longest wait between two password checks for one seat
ALERT_INTERVAL = timedelta(hours=1)  # failed-sign-on warnings to a seat's owner, internal-error mail to a master
MAX_REPLIES_PER_HOUR = 30  # answers to one address per hour: a mail loop stops here
MAX_MESSAGE_BYTES = 1_000_000
MAX_MAIL_AGE_DAYS = 7.0  # mail older than this (by its Date or by its arrival) is not acted on
MAX_TEXT_ATTACHMENTS = 3  # attached text files read as if written in the message
MAX_ENTRIES = 1000  # lines (commands, orders, problems) acted on in one message, attachments included
# Problems of a message that could not be parsed (as opposed to one that is merely too large, old or not text).
_UNPARSEABLE = frozenset({Problem.UNREADABLE, Problem.TOO_COMPLEX, Problem.HEADER_TOO_LARGE, Problem.BAD_MESSAGE_ID})


@dataclass
class Reply:
    """What the reply to this message says, built up line by line."""

    lines: list[tuple[str, Any]] = field(default_factory=list)  # (the line as written, what became of it)
    notes: list[Any] = field(default_factory=list)  # longer answers: HELP, LIST, HISTORY, SANDBOX

    def say(self, text: str, response: Any) -> None:
        """``response``: a :class:`judge.i18n.Text` (worded in the reader's language when the reply is rendered)."""
        self.lines.append((text, response))

    def worded(self, language: str) -> Reply:
        """The reply in ``language``: each line as (line, answer, is it an error)."""
        lines: list[Any] = [(text, translate(r, language), _is_error(r)) for text, r in self.lines]
        return Reply(lines, [translate(n, language) for n in self.notes])


def _is_error(response: Any) -> bool:
    return (isinstance(response, Text) and response.msgid.startswith("ERROR:")) or (
        isinstance(response, str) and response.startswith("ERROR")
    )


@dataclass
class Session:
    """The state of one message being handled: who signed on, and what changed."""

    msg: Incoming
    now: datetime
    game: Game | None = None
    player: Player | None = None
    changed_orders: bool = False
    ready_changed: bool = False
    quiet: bool = False  # the reply quota is spent: act on the message, answer nothing
    password_checks: int = 0  # scrypt verifications run for this message (at most one)
    password_hashes: int = 0  # new passwords hashed for this message (JOIN, SET PASSWORD; at most one)
    errors: list[str] = field(default_factory=list)  # internal failures of single commands
    mentioned: str = ""  # the first game a command named (whose master hears of an internal error before a sign-on)

    @property
    def scrypt_calls(self) -> int:
        return self.password_checks + self.password_hashes


@dataclass(frozen=True)
class Handled:
    outcome: str  # handled | duplicate | dropped: … | refused: … | error: …
    replies: list[dict[str, Any]]  # the outbox rows this message queued

    @property
    def rejected(self) -> bool:
        """Mail that could not be read at all (it belongs in the rejected folder)."""
        return self.outcome.startswith("refused")

    @property
    def quarantine_reason(self) -> str | None:
        """Why the message belongs in quarantine (it could not be parsed, or its handling failed), else None."""
        if self.failed:
            return f"internal error ({self.outcome})"
        problem = self.outcome.removeprefix("refused: ")
        return problem if problem in _UNPARSEABLE else None

    @property
    def failed(self) -> bool:
        """Nothing of the message took effect because of an internal error: it belongs in quarantine, not retried.

        "error" (the sender got an apology, the message is recorded as handled) or "error: <what>" (even that failed:
        nothing is recorded)."""
        return self.outcome.startswith("error")


def handle_raw(db: Database, raw: bytes, now: datetime) -> list[dict[str, Any]]:
    """Handle one raw message; return the outbox rows it queued (empty when it was a duplicate or dropped)."""
    return handle_message(db, raw, now).replies


def handle_message(
    db: Database,
    raw: bytes,
    now: datetime,
    *,
    judge_address: str = "",
    max_replies_per_hour: int = MAX_REPLIES_PER_HOUR,
    declared_size: int | None = None,
    max_mail_age_days: float = MAX_MAIL_AGE_DAYS,
    arrived: datetime | None = None,
    master_address: str = "",
) -> Handled:
    """Handle one raw message in one transaction (a savepoint when the caller has one open). Never raises.

    ``declared_size`` is the size the mail server reported when only the headers were fetched (too large to read).
    ``arrived`` is when the mail server received it (IMAP INTERNALDATE), else the topmost Received header counts.
    ``master_address`` is told of internal errors not tied to a game (a game's own master is told of its errors).
    An outcome starting with "error" means nothing was recorded: the caller should move the message aside.
    """
    try:
        msg = parse_incoming(raw, loop_token=judge_address or "judge")
        if declared_size is not None and declared_size > MAX_MESSAGE_BYTES:
            msg = replace(msg, problem=Problem.TOO_LARGE, size=declared_size)
        if judge_address and msg.sender == judge_address.lower():
            msg = replace(msg, auto=True)
        if arrived is not None:
            msg = replace(msg, arrived=arrived)
        limits = _Limits(max_replies_per_hour, max_mail_age_days, master_address)
        with write(db):
            if _seen(db, msg):
                return Handled("duplicate", [])
            first_new = _last_outbox_id(db)
            outcome = _handle_guarded(db, msg, now, limits)
            db.table("messages").insert(
                {
                    "message_id": msg.message_id,
                    "digest": msg.digest,
                    "sender": msg.sender,
                    "received_at": iso_utc(now),
                    "outcome": outcome,
                }
            )
        return Handled(outcome, list(db.query("select * from outbox where id > ? order by id", [first_new])))
    except Exception as exc:  # nothing may stop the daemon: the caller moves the message aside
        if is_busy(exc):
            raise  # the database is busy: the daemon backs off and the message is tried again, not quarantined
        log.exception("a message could not be handled at all")
        return Handled(f"error: {type(exc).__name__}", [])


@dataclass(frozen=True)
class _Limits:
    max_replies_per_hour: int
    max_mail_age_days: float
    master_address: str


def _seen(db: Database, msg: Incoming) -> bool:
    if list(db.query("select 1 from messages where digest = ?", [msg.digest])):
        return True
    return bool(msg.message_id) and bool(
        list(db.query("select 1 from messages where message_id = ? and sender = ?", [msg.message_id, msg.sender]))
    )


def _last_outbox_id(db: Database) -> int:
    rows = list(db.query("select max(id) as m from outbox"))
    return rows[0]["m"] or 0


def _handle_guarded(db: Database, msg: Incoming, now: datetime, limits: _Limits) -> str:
    """Handle the message; an unexpected failure undoes its effect and answers with an apology."""
    if msg.auto or not msg.sender:
        return "dropped: " + ("automatic message" if msg.auto else "no sender")
    paused_until = _replies_paused_until(db, msg, now, limits.max_replies_per_hour)
    if msg.problem:
        if paused_until is None:
            _reply(
                db,
                msg,
                now,
                Reply(notes=[T("Your message could not be read: {problem}.", problem=_problem_text(msg))]),
                None,
            )
        return f"refused: {msg.problem}"
    too_old = _too_old(msg, now, limits.max_mail_age_days)
    if too_old is not None:
        if paused_until is None:
            _reply(
                db,
                msg,
                now,
                Reply(
                    notes=[
                        T(
                            "Your message was written or delivered on {when} UTC, more than {days} "
                            "days ago, so nothing in it was acted on. If you still mean it, send "
                            "it again.",
                            when=f"{too_old:%Y-%m-%d %H:%M}",
                            days=f"{limits.max_mail_age_days:g}",
                        )
                    ]
                ),
                None,
            )
        return "refused: too old"
    session = Session(msg, now, quiet=paused_until is not None)
    try:
        with write(db):
            outcome = _handle(db, session)
    except Exception as exc:  # a bug must not lose the message or leave half an effect
        log.exception("handling message %s from %s failed", msg.message_id, msg.sender)
        if paused_until is None:
            _reply(
                db,
                msg,
                now,
                Reply(
                    notes=[
                        T(
                            "The judge could not handle your message because of an internal error. "
                            "Nothing in it took effect; the game master has been told."
                        )
                    ]
                ),
                None,
            )
        _tell_master(db, session, limits, type(exc).__name__, partial=False)
        return "error"
    if session.errors:
        _tell_master(db, session, limits, ", ".join(session.errors), partial=True)
    if paused_until is not None:
        _replies_paused(db, msg, now, paused_until, limits.max_replies_per_hour)
    return outcome


def _problem_text(msg: Incoming) -> Text | str:
    """What the sender is told about a message that could not be read."""
    if msg.problem is Problem.TOO_LARGE:
        return T(
            "too large ({size} KB; the judge reads at most {limit} KB)",
            size=msg.size // 1024,
            limit=MAX_MESSAGE_BYTES // 1024,
        )
    return (
        {
            Problem.HEADER_TOO_LARGE: T("its header block is over 64 KB"),
            Problem.TOO_COMPLEX: T(
                "it has more parts, encoded words or header parameters than the judge reads; send a plain-text message"
            ),
            Problem.BAD_MESSAGE_ID: T("its Message-ID has control characters in it or is too long"),
            Problem.NOT_TEXT: T("it has no text the judge can read; write your orders in the message itself"),
            Problem.UNREADABLE: T("it could not be decoded; send a plain-text message"),
        }.get(msg.problem, str(msg.problem))
        if msg.problem is not None
        else ""
    )


def _replies_paused_until(db: Database, msg: Incoming, now: datetime, limit: int) -> datetime | None:
    """When replies to the sender may go again, if the hourly quota is spent; None if it is not."""
    rows = list(
        db.query(
            "select created_at from outbox where to_addr = ? and in_reply_to is not null "
            "and created_at > ? order by created_at",
            [msg.reply_to or msg.sender, iso_utc(now - timedelta(hours=1))],
        )
    )
    if len(rows) < limit:
        return None
    # the quota frees up when the oldest answer that keeps it full leaves the hour
    oldest = rows[len(rows) - limit]["created_at"]
    return datetime.fromisoformat(oldest.replace("Z", "+00:00")) + timedelta(hours=1)


def _replies_paused(db: Database, msg: Incoming, now: datetime, until: datetime, limit: int) -> None:
    """The one notice of a pause: sent unless one went to this address within the last hour."""
    address = msg.reply_to or msg.sender
    sent = list(
        db.query(
            "select 1 from events where kind = 'replies-paused' and sender = ? and at > ?",
            [address, iso_utc(now - timedelta(hours=1))],
        )
    )
    if sent:
        return
    log_event(db, None, now, address, "replies-paused", {"until": iso_utc(until)})
    outbox.send(
        db,
        address,
        "replies_paused",
        now,
        original_subject=_thread_subject(msg.subject),
        until=f"{until:%Y-%m-%d %H:%M}",
        limit=limit,
    )


def _too_old(msg: Incoming, now: datetime, max_days: float) -> datetime | None:
    """The Date or arrival of a message older than ``max_days``, else None."""
    limit = now - timedelta(days=max_days)
    for when in (msg.date, msg.arrived):
        if when is not None and when < limit:
            return when
    return None


def _tell_master(db: Database, s: Session, limits: _Limits, what: str, *, partial: bool) -> None:
    """Mail the game master (of the game signed on to, else the judge's) about an internal error, at most hourly."""
    to = ""
    game = s.game
    if game is None and s.mentioned:
        try:
            game = load_game(db, s.mentioned)
        except Exception:  # the store may be what failed; the host's master address is still told
            game = None
    if game is not None and game.settings.master:
        to = game.settings.master.lower()
    to = to or limits.master_address.lower()
    if not to:
        log.error("internal error in message %s from %s, and no game master to tell", s.msg.message_id, s.msg.sender)
        return
    since = s.now - ALERT_INTERVAL
    earlier = list(
        db.query(
            "select count(*) as n from events where kind = 'internal-error' and sender = ? and at > ?",
            [to, iso_utc(since)],
        )
    )[0]["n"]
    log_event(
        db,
        game.id if game else None,
        s.now,
        to,
        "internal-error",
        {"message_id": s.msg.message_id, "from": s.msg.sender, "what": what},
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
            when=f"{s.now:%Y-%m-%d %H:%M}",
            what=what,
            partial=partial,
            count=1,
            since=f"{since:%Y-%m-%d %H:%M}",
        )
    except Exception:  # telling the master must not undo the message
        log.exception("could not queue the internal-error mail to %s", to)


_REPLY_PREFIX = re.compile(
    r"^(?:\s*(?:re|aw|sv|vs|antw|antwort|odp|ref|rif|réf|rép|отв|ответ|fw|fwd|wg|tr|enc|rv|"
    r"doorst)\s*(?:\[\d{1,4}\]|\(\d{1,4}\))?\s*:\s*)+",
    re.IGNORECASE,
)
_FORWARD_PREFIX = re.compile(r"\s*(?:fwd?|fw|wg|tr|enc|rv|doorst|пересл)\s*:", re.IGNORECASE)


def _thread_subject(subject: str) -> str:
    """The subject without its Re:/RE:/AW:/SV:/Antw:/Отв:/Fwd: prefixes, so that a reply says "Re:" once."""
    return _REPLY_PREFIX.sub("", subject).strip()


def _handle(db: Database, s: Session) -> str:
    msg = s.msg
    parsed = c.parse_body(msg.body)
    reply = Reply()
    entries: list[Any] = sorted([*parsed.items, *parsed.problems], key=lambda x: x.line)
    offset = max([e.line for e in entries] + [msg.body.count("\n") + 1])
    unread: list[Attachment] = []
    read = 0
    for attachment in msg.attachments:  # attached text files are read as if written below the message
        if attachment.text is None or read >= MAX_TEXT_ATTACHMENTS or len(entries) >= MAX_ENTRIES:
            unread.append(attachment)
            continue
        read += 1
        more = c.parse_body(attachment.text, max_lines=max(1, MAX_ENTRIES - len(entries)))
        found = sorted([*more.items, *more.problems], key=lambda x: x.line)
        entries += [dataclasses.replace(e, line=e.line + offset) for e in found]
        offset += max([e.line for e in found] + [attachment.text.count("\n") + 1])
    if not entries:
        reply.notes.append(T("Your message had no commands or orders in it. Send HELP for the commands."))
    for entry in entries:
        if isinstance(entry, c.LineProblem):
            reply.say(entry.text, T("ERROR: {reason}", reason=entry.reason))
            continue
        named = getattr(entry, "game", None)
        if isinstance(named, str) and named and not s.mentioned:
            s.mentioned = named
        try:
            with write(db):  # a savepoint: a failing command undoes itself only
                _command(db, s, reply, entry)
        except GameError as exc:
            reply.say(_shown(entry), T("ERROR: {reason}", reason=exc.args[0] if exc.args else ""))
        except Exception as exc:  # a bug in one command must not undo the others
            log.exception("command on line %d of message %s from %s failed", entry.line, msg.message_id, msg.sender)
            s.errors.append(f"{type(entry).__name__} on line {entry.line}: {type(exc).__name__}")
            reply.say(
                _shown(entry),
                T(
                    "ERROR: an internal error kept this line from taking effect; the other "
                    "lines are not affected and the game master has been told"
                ),
            )
    forwarded = parsed.forwarded or (parsed.quoted_mail and _FORWARD_PREFIX.match(msg.subject) is not None)
    reply.notes.extend(_unread_notes(unread, forwarded))
    summary = None
    if s.game is not None and s.player is not None:
        game = service.get_game(db, s.game.name)
        if game.status in ("active", "paused") and game.position is not None:
            summary = order_summary(db, game, s.player)
    if not s.quiet:
        _reply(db, msg, s.now, reply, summary, s)
    if s.game is not None and (s.changed_orders or s.ready_changed):
        game = service.get_game(db, s.game.name)
        service.maybe_adjudicate_when_ready(db, game, s.now)
    return "handled"


def _unread_notes(attachments: list[Attachment], forwarded: bool) -> list[Text]:
    """What the reply says about parts of the message the judge did not read."""
    notes = []
    if forwarded:
        notes.append(
            T(
                "The forwarded message in your mail was not read: the judge reads only what you write above "
                "it. Write or paste your orders into the message itself."
            )
        )
    for a in attachments[:10]:
        what = (
            T("The forwarded message")
            if a.content_type == "message/rfc822"
            else T("The attachment {name} ({type})", name=repr(a.name), type=a.content_type)
            if a.name
            else T("An attachment ({type})", type=a.content_type)
        )
        why = (
            T("the judge reads the text of your message and attached plain-text files only")
            if a.text is None
            else T(
                "the judge reads at most {files} attached text files and {lines} lines in all",
                files=MAX_TEXT_ATTACHMENTS,
                lines=MAX_ENTRIES,
            )
        )
        notes.append(
            T("{what} was not read: {why}. Write or paste your orders into the message itself.", what=what, why=why)
        )
    if len(attachments) > 10:
        notes.append(T("{count} more attachments were not read.", count=len(attachments) - 10))
    return notes


def _shown(entry: Any) -> str:
    """How a line is quoted back in the reply: never with a password in it."""
    if isinstance(entry, c.SignOn):
        return _masked(entry)
    return c.mask_secrets(entry.text)


def _reply(
    db: Database,
    msg: Incoming,
    now: datetime,
    reply: Reply,
    summary: dict[str, Any] | None,
    session: Session | None = None,
) -> None:
    game = session.game if session else None
    if game is not None:
        game = service.get_game(db, game.name)
    refs = " ".join(msg.references) or None
    to = msg.reply_to or msg.sender
    outbox.send(
        db,
        to,
        "reply",
        now,
        game=game if summary is not None else None,
        in_reply_to=msg.message_id or "",
        reply=reply.worded(user_settings(db, to)["language"]),
        summary=summary,
        original_subject=_thread_subject(msg.subject),
        thread_refs=refs,
        player=session.player if session else None,
        game_name=game.name if game else None,
    )


# --- the commands ---------------------------------------------------------------------------------------------------


def _command(db: Database, s: Session, reply: Reply, item: c.Item) -> None:
    if isinstance(item, c.SignOn):
        _signon(db, s, reply, item)
    elif isinstance(item, c.OrderLine):
        unknown = _unknown_command(s, item.text)
        if unknown is not None:
            raise GameError(unknown)
        game, player = _signed(db, s)
        if game.status not in ("active", "paused") or game.position is None:
            raise GameError(T("game {game} is {status}: no orders are due", game=game.name, status=T(game.status)))
        if not player.active:
            raise GameError(T("{power} no longer gives orders in {game}", power=T(player.power or ""), game=game.name))
        response = merge_orders(db, game, player, item.text, s.now)
        s.changed_orders = s.changed_orders or not _is_error(response)
        reply.say(item.text, response)
    elif isinstance(item, c.Ready):
        game, player = _signed(db, s)
        player.ready = item.ready
        save_player(db, player)
        s.ready_changed = True
        reply.say(item.text, T("ready") if item.ready else T("not ready"))
    elif isinstance(item, c.Clear):
        game, player = _signed(db, s)
        if game.phase:
            set_orders(db, game.id, game.phase, player.power or "", [], s.now)
        reply.say(item.text, T("all your orders for this phase are withdrawn"))
    elif isinstance(item, c.Draw):
        game, player = _signed(db, s)
        reply.say(item.text, draws.vote(db, game, player, item.action, s.now))
    elif isinstance(item, c.Resign):
        game, player = _signed(db, s)
        reply.say(item.text, _resign(db, game, player, s.now))
    elif isinstance(item, c.Press):
        game, player = _signed(db, s)
        reply.say(item.text, _press(db, game, player, item, s.now))
    elif isinstance(item, c.Join):
        _one_new_password(s)
        seat = service.join_game(db, item.game, s.msg.sender, item.password, s.now, preferences=item.preferences)
        reply.say(
            _shown(item),
            T(
                "{address} joined {game}; the game starts when the game master starts it",
                address=seat.email,
                game=item.game.lower(),
            ),
        )
        if s.game is None:  # the JOIN password signs on for the rest of the message (SET LANGUAGE …)
            s.game, s.player = service.get_game(db, item.game), seat
    elif isinstance(item, c.Observe):
        service.observe_game(db, item.game, s.msg.sender, s.now)
        reply.say(item.text, T("you will receive the results of {game}", game=item.game.lower()))
    elif isinstance(item, c.ListGames):
        reply.say(item.text, T("see below"))
        reply.notes.append(_list_text(db, item.game, s.msg.reply_to or s.msg.sender, s.now))
    elif isinstance(item, c.History):
        reply.say(item.text, T("see below"))
        reply.notes.append(_history_text(db, item.game, item.phase))
    elif isinstance(item, c.Sandbox):
        reply.say("SANDBOX", T("see below"))
        if item.from_game is not None:
            from judge.game.sandbox_game import from_game

            game_name = item.from_game
            reply.notes.append(run_sandbox_text(item.body, lambda data: from_game(db, game_name, data), game_name))
        else:
            reply.notes.append(run_sandbox_text(item.body))
    elif isinstance(item, c.SetPassword):
        game, player = _signed(db, s)
        if len(item.password) < 4:
            raise GameError(T("choose a password of at least 4 characters"))
        _one_new_password(s)
        player.password_hash = hash_password(item.password)
        save_player(db, player)
        log_event(db, game.id, s.now, s.msg.sender, "password", {"power": player.power})
        reply.say("SET PASSWORD ****", T("your password is changed"))
    elif isinstance(item, c.SetTimezone):
        game, player = _signed(db, s, what="SET")
        try:
            zone = check_timezone(item.zone)
        except ValueError as exc:
            raise GameError(exc.args[0]) from None
        set_user(db, player.email, timezone=zone)
        reply.say(item.text, T("deadlines will be shown in {zone}", zone=zone))
    elif isinstance(item, c.SetLanguage):
        game, player = _signed(db, s, what="SET")
        if item.language not in LANGUAGES:
            raise GameError(T("the judge speaks {languages}", languages=", ".join(LANGUAGES)))
        set_user(db, player.email, language=item.language)
        reply.say(item.text, T("replies will be in {language}", language=item.language))
    elif isinstance(item, c.Help):
        reply.say(item.text, T("see below"))
        reply.notes.append(render_mail("help", user_settings(db, s.msg.sender)["language"]).text)
    elif isinstance(item, c.SignOff):
        reply.say(item.text, T("end of message"))


def _unknown_command(s: Session, text: str) -> Text | None:
    """An order line whose first word is neither a word of an order nor a place of the game's map (of any shipped
    map before a sign-on) is an unknown command (``WHOGAME``, ``SUMMARY``): say so, with the nearest command."""
    words = text.split()
    head = words[0].strip(".:,;!?").lower() if words else ""
    if not head.isalpha() or head in ORDER_WORDS:
        return None
    if s.game is not None:
        maps = [s.game.variant.geo]
    else:
        maps = [_shipped_map(name) for name in variant_names()]
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
    except Exception:  # a broken host variant must not stop the message
        return None


def _one_new_password(s: Session) -> None:
    """JOIN and SET PASSWORD hash a new password (scrypt): one of them per message."""
    if s.password_hashes:
        raise GameError(
            T(
                "only one new password (JOIN or SET PASSWORD) is taken per message; send this one "
                "in a message of its own"
            )
        )
    s.password_hashes += 1


def _signed(db: Database, s: Session, what: str = "") -> tuple[Game, Player]:
    """The game and player signed on as, read afresh (an earlier line of the message may have changed them)."""
    if s.game is None or s.player is None:
        raise GameError(
            T("sign on first (SET changes your settings): SIGNON <power> <game> <password>")
            if what == "SET"
            else T("sign on first: SIGNON <power> <game> <password>")
        )
    s.game = service.get_game(db, s.game.name)
    s.player = next(p for p in players(db, s.game.id) if p.id == s.player.id)
    return s.game, s.player


def _signon(db: Database, s: Session, reply: Reply, item: c.SignOn) -> None:
    sender = s.msg.sender
    shown = _masked(item)
    game = load_game(db, item.game)
    seat = None
    if game is not None:
        power = _power_for(game, item)
        seat = next((p for p in players(db, game.id) if p.role == "player" and p.power == power), None)
    if game is None or seat is None:
        log_event(
            db,
            game.id if game else None,
            s.now,
            sender,
            "signon-failed",
            {"game": item.game.lower(), "power": item.power},
        )
        reply.say(shown, T("ERROR: sign-on failed: no such game, power or password"))
        return
    if s.password_checks:
        reply.say(shown, T("ERROR: only one sign-on is checked per message; this one was not"))
        return
    # the seat's owner, writing from the seat's address and reading the answer there, is never held back: a forger
    # of that address learns nothing from the answer
    own = seat.email == sender and (s.msg.reply_to or sender) == seat.email
    wait_until = _signon_wait(db, game, seat.power or "", s.now)
    if wait_until is not None and not own:
        log_event(db, game.id, s.now, sender, "signon-held", {"power": seat.power})
        reply.say(
            shown,
            T(
                "ERROR: too many failed sign-ons as {power} in {game}; the password was not "
                "checked; try again after {when} UTC",
                power=T(seat.power or ""),
                game=game.name,
                when=f"{wait_until:%Y-%m-%d %H:%M}",
            ),
        )
        return
    s.password_checks += 1
    if verify_password(item.password, seat.password_hash):
        s.game, s.player = game, seat
        reply.say(shown, T("signed on as {power} in {game}", power=T(seat.power or ""), game=game.name))
        return
    db.table("signon_failures").insert(
        {"address": sender, "at": iso_utc(s.now), "game": game.name, "power": seat.power}
    )
    log_event(db, game.id, s.now, sender, "signon-failed", {"game": item.game.lower(), "power": item.power})
    reply.say(shown, T("ERROR: sign-on failed: no such game, power or password"))
    if not own:
        _alert_owner(db, game, seat, s.now)


def _failures(db: Database, game: Game, power: str, since: datetime) -> list[dict[str, Any]]:
    return list(
        db.query(
            "select address, at from signon_failures where game = ? and power = ? and at > ? order by at",
            [game.name, power, iso_utc(since)],
        )
    )


def _signon_wait(db: Database, game: Game, power: str, now: datetime) -> datetime | None:
    """Until when password checks for this seat wait, after too many failures in the last day; None: no wait.

    The first ``MAX_FAILED_SIGNONS`` failures cost nothing; after that each failure doubles the wait after it, from
    one minute up to ``MAX_SIGNON_DELAY``.
    """
    failures = _failures(db, game, power, now - SIGNON_FAILURE_WINDOW)
    extra = len(failures) - MAX_FAILED_SIGNONS
    if extra < 0:
        return None
    delay = min(timedelta(minutes=2 ** min(extra, 20)), MAX_SIGNON_DELAY)
    until = datetime.fromisoformat(failures[-1]["at"].replace("Z", "+00:00")) + delay
    return until if until > now else None


def _alert_owner(db: Database, game: Game, seat: Player, now: datetime) -> None:
    """Warn the seat's owner of failed sign-ons from other addresses: at most once an hour, summing them up."""
    recent = list(
        db.query(
            "select at from events where game_id = ? and kind = 'signon-alert' and sender = ? order by id desc limit 1",
            [game.id, seat.email],
        )
    )
    if recent and recent[0]["at"] > iso_utc(now - ALERT_INTERVAL):
        return
    since = now - SIGNON_FAILURE_WINDOW
    if recent:
        since = max(since, datetime.fromisoformat(recent[0]["at"].replace("Z", "+00:00")))
    failures = [f for f in _failures(db, game, seat.power or "", since) if f["address"] != seat.email]
    if not failures:
        return
    addresses = list(dict.fromkeys(f["address"] for f in failures))
    shown = addresses[:5] + ([f"{len(addresses) - 5} more"] if len(addresses) > 5 else [])
    log_event(db, game.id, now, seat.email, "signon-alert", {"power": seat.power, "attempts": len(failures)})
    outbox.send(
        db,
        seat.email,
        "signon_alert",
        now,
        game=game,
        player=seat,
        attempts=len(failures),
        addresses=shown,
        since=f"{since:%Y-%m-%d %H:%M}",
    )


def _masked(item: c.SignOn) -> str:
    return f"SIGNON {item.power}{'' if item.initial else ' '}{item.game} ****"


def _power_for(game: Game, item: c.SignOn) -> str | None:
    if not item.initial:
        return game.variant.power_named(item.power)
    matches = [p for p in game.variant.powers if p[0].upper() == item.power.upper()]
    return matches[0] if len(matches) == 1 else None


def _resign(db: Database, game: Game, player: Player, now: datetime) -> Text:
    if player.resigned:
        return T("you have already resigned")
    player.resigned, player.ready = True, False
    save_player(db, player)
    log_event(db, game.id, now, player.email, "resign", {"power": player.power})
    for p in players(db, game.id):
        if p.id != player.id:
            outbox.send(db, p.email, "resigned", now, game=game, player=player)
    draws.recount(db, game, now)
    return T("{power} has resigned; its units are in civil disorder", power=T(player.power or ""))


def _press(db: Database, game: Game, player: Player, item: c.Press, now: datetime) -> Text:
    kind = game.settings.press
    if kind == "none":
        raise GameError(T("game {game} has no press", game=game.name))
    seats = players(db, game.id)
    if item.to is None:
        recipients = [p for p in seats if p.id != player.id]
        to_label = "everyone"
    else:
        wanted = []
        for name in item.to:
            power = game.variant.power_named(name)
            if power is None:
                raise GameError(
                    T(
                        "{variant} has no power {name}; it has {powers}",
                        variant=game.variant.name,
                        name=repr(name),
                        powers=[T(p) for p in game.variant.powers],
                    )
                )
            wanted.append(power)
        recipients = [p for p in seats if p.power in wanted and p.id != player.id]
        to_label = ", ".join(wanted)
    sender = "an anonymous power" if kind == "grey" else player.power
    for p in recipients:
        outbox.send(db, p.email, "press", now, game=game, sender=sender, to_label=to_label, body=item.body)
    log_event(db, game.id, now, player.email, "press", {"from": player.power, "to": to_label, "body": item.body})
    told = [T(p) for p in wanted] if item.to is not None else [T("everyone")]
    if kind == "grey":
        return T("press sent to {to} without your name (grey press)", to=told)
    return T("press sent to {to}", to=told)


def _list_text(db: Database, name: str | None, to: str, now: datetime) -> str:
    """LIST, in the reader's language: the games; or one game's players (powers only in an anonymous game), who
    has orders in and who is ready, the centres and the deadline."""
    prefs = user_settings(db, to)
    lang = prefs["language"]
    if not name:
        games = service.list_games(db)
        if not games:
            return translate(T("There are no games."), lang)
        return "\n".join(
            f"{g['name']:<20} {g['variant']:<10} {translate(T(g['status']), lang):<14} {g['phase'] or ''}"
            for g in games
        )
    game = service.get_game(db, name)
    shown = service.show_game(db, name)
    phase = phase_words(game.position.phase) if game.position is not None else "-"
    lines = [
        translate(
            T(
                "{game} ({variant}): {status}, {phase}",
                game=game.name,
                variant=game.variant.name,
                status=T(game.status),
                phase=phase,
            ),
            lang,
        )
    ]
    if game.deadline is not None:
        lines.append(
            translate(T("Deadline: {when}", when=format_deadline(game.deadline, prefs["timezone"], now, lang)), lang)
        )
    playing = game.status in ("active", "paused")
    for p in shown["players"]:
        states = []
        if p["resigned"]:
            states.append(T("resigned"))
        elif p["eliminated"]:
            states.append(T("eliminated"))
        elif playing:
            states.append(T("orders in") if p["orders_submitted"] else T("no orders yet"))
            states.append(T("ready") if p["ready"] else T("not ready"))
        who = "" if game.settings.anonymous else p["email"]
        power = translate(T(p["power"]), lang) if p["power"] else "?"
        lines.append(f"  {power:<12} {who:<26} {', '.join(translate(x, lang) for x in states)}".rstrip())
    if playing:
        active = [p for p in shown["players"] if not p["resigned"] and not p["eliminated"]]
        lines.append(
            translate(
                T(
                    "Orders in: {given} of {total}; ready: {ready} of {total}",
                    given=sum(1 for p in active if p["orders_submitted"]),
                    total=len(active),
                    ready=sum(1 for p in active if p["ready"]),
                ),
                lang,
            )
        )
    for power, centres in shown["supply_centers"].items():
        lines.append(translate(T("  {power}: supply centres {count}", power=T(power), count=len(centres)), lang))
    return "\n".join(lines)


def _history_text(db: Database, name: str, phase: str | None) -> str:
    game = service.get_game(db, name)
    rows = list(db.query("select phase, results from phases where game_id = ? order by rowid", [game.id]))
    if phase is None:
        return f"Phases played in {game.name}: " + (", ".join(r["phase"] for r in rows) or "none yet")
    picked = [r for r in rows if r["phase"] == phase.upper()]
    if not picked:
        raise GameError(f"{game.name} has no played phase {phase.upper()}")
    lines = [f"{game.name}, {picked[0]['phase']}:"]
    for r in json.loads(picked[0]["results"]):
        lines.append(f"  {r['power']:<10} {r['order'] or r['input']}: {r['outcome']}")
    return "\n".join(lines)
