"""Handling one incoming message: its commands and orders change the store, its replies go to the outbox.

``handle_raw`` is the one code path for the daemon and for ``judge mail handle``. The whole effect of a message —
game changes, queued replies and the record that the message was handled (``seen.py``) — commits in one
transaction, so a message handled twice has no second effect.

Here: the message's intake (too large, unreadable, automatic, too old, the reply quota), reading its lines and its
text attachments, running each line through its handler (``handlers.HANDLERS``) and the reply. What a forged From
address cannot do is kept by ``security.py``.

Each command runs in a savepoint of its own: an internal failure undoes that command only, is answered on its line,
and is told to the game master by mail (at most one such mail an hour). ``handle_message`` itself never raises.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlite_utils import Database

import judge.wiring  # noqa: F401  (the game server given its variant loader and mail side)
from judge.commands import handlers, security, seen, signed_mail
from judge.commands import items as c
from judge.commands.body import parse_body
from judge.commands.reply import Answer, Reply, Verdict
from judge.commands.session import Session
from judge.facts import MAX_MAIL_AGE_DAYS as FACT_MAIL_AGE_DAYS
from judge.facts import MAX_REPLIES_PER_HOUR as MAX_REPLIES_PER_HOUR
from judge.game import service
from judge.game.lookup import Unchanged
from judge.game.order_sets import order_summary
from judge.game.records import user_settings
from judge.game.service import GameError
from judge.i18n import T, Text
from judge.mail.bounds import MAX_MESSAGE_BYTES as MAX_MESSAGE_BYTES
from judge.mail.message import Incoming, Problem, forwarded_subject, parse_incoming, thread_subject
from judge.mail.part_text import Attachment
from judge.reports import outbox
from judge.signatures.dkim import DkimVerdict
from judge.signatures.keys import JudgeKey
from judge.store import is_busy, mail_queue, write
from judge.store.statuses import PLAYING
from judge.timeutil import format_moment

log = logging.getLogger(__name__)

MAX_MAIL_AGE_DAYS = float(FACT_MAIL_AGE_DAYS)  # mail older than this (by its Date or by its arrival) is not acted on
MAX_TEXT_ATTACHMENTS = 3  # attached text files read as if written in the message
MAX_ENTRIES = 1000  # lines (commands, orders, problems) acted on in one message, attachments included
# Problems of a message that could not be parsed (as opposed to one that is merely too large, old or not text).
_UNPARSEABLE = frozenset({Problem.UNREADABLE, Problem.TOO_COMPLEX, Problem.HEADER_TOO_LARGE, Problem.BAD_MESSAGE_ID})


class MessageOutcome(StrEnum):
    """What became of a message (recorded with its reason as ``refused: too old`` and the like)."""

    HANDLED = "handled"  # read and acted on
    DUPLICATE = "duplicate"  # handled before: no second effect
    DROPPED = "dropped"  # not answered: automatic mail, or no sender
    REFUSED = "refused"  # not acted on: unreadable, too large or too old (the sender is told)
    ERROR = "error"  # an internal error: nothing of it took effect


@dataclass(frozen=True)
class Handled:
    outcome: MessageOutcome
    replies: list[dict[str, Any]]  # the outbox rows this message queued
    reason: str = ""  # why it was dropped or refused; for an error, what failed when not even the record was kept

    @classmethod
    def of(cls, text: str, replies: list[dict[str, Any]]) -> Handled:
        """From the text recorded for a message (``handled``, ``refused: too old``, ``error: OperationalError``…); a
        text this version does not know counts as handled (it was recorded, so it took effect)."""
        head, _, reason = text.partition(": ")
        if head in {o.value for o in MessageOutcome}:
            return cls(MessageOutcome(head), replies, reason)
        return cls(MessageOutcome.HANDLED, replies, text)

    @property
    def text(self) -> str:
        """The outcome as recorded: ``handled``, ``refused: too old``…"""
        return f"{self.outcome.value}: {self.reason}" if self.reason else self.outcome.value

    @property
    def rejected(self) -> bool:
        """Mail that could not be read at all (it belongs in the rejected folder)."""
        return self.outcome is MessageOutcome.REFUSED

    @property
    def quarantine_reason(self) -> str | None:
        """Why the message belongs in quarantine (it could not be parsed, or its handling failed), else None."""
        if self.failed:
            return f"internal error ({self.text})"
        return self.reason if self.rejected and self.reason in _UNPARSEABLE else None

    @property
    def failed(self) -> bool:
        """Nothing of the message took effect because of an internal error: it belongs in quarantine, not retried.

        Without a reason the sender got an apology and the message is recorded as handled; with one (what failed)
        even that failed: nothing is recorded."""
        return self.outcome is MessageOutcome.ERROR


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
    dkim: DkimVerdict | None = None,
    judge_key: JudgeKey | None = None,
) -> Handled:
    """Handle one raw message in one transaction (a savepoint when the caller has one open). Never raises.

    ``declared_size`` is the size the mail server reported when only the headers were fetched (too large to read).
    ``arrived`` is when the mail server received it (IMAP INTERNALDATE), else the topmost Received header counts.
    ``master_address`` is told of internal errors not tied to a game (a game's own master is told of its errors).
    ``dkim`` is what the DKIM signatures of ``raw`` prove, when ``[judge] sender_check = "dkim"`` (the caller checks
    them before the transaction: the check asks DNS); None: no sender check.
    ``judge_key`` is the judge's own OpenPGP key: mail encrypted to it is read, GET KEY gives it.
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
        limits = _Limits(max_replies_per_hour, max_mail_age_days, master_address, dkim, judge_key)
        with write(db):
            if seen.seen(db, msg):
                return Handled(MessageOutcome.DUPLICATE, [])
            first_new = mail_queue.last_queued_id(db)
            outcome = _handle_guarded(db, msg, now, limits)
            seen.record(db, msg, now, outcome)
        return Handled.of(outcome, mail_queue.queued_after(db, first_new))
    except Exception as exc:  # nothing may stop the daemon: the caller moves the message aside
        if is_busy(exc):
            raise  # the database is busy: the daemon backs off and the message is tried again, not quarantined
        log.exception("a message could not be handled at all")
        return Handled(MessageOutcome.ERROR, [], type(exc).__name__)


@dataclass(frozen=True)
class _Limits:
    max_replies_per_hour: int
    max_mail_age_days: float
    master_address: str
    dkim: DkimVerdict | None = None
    judge_key: JudgeKey | None = None


def _handle_guarded(db: Database, msg: Incoming, now: datetime, limits: _Limits) -> str:
    """Handle the message; an unexpected failure undoes its effect and answers with an apology."""
    if msg.auto or not msg.sender:
        return "dropped: " + ("automatic message" if msg.auto else "no sender")
    paused_until = security.replies_paused_until(db, msg, now, limits.max_replies_per_hour)
    checked = _intake(db, msg, now, limits, paused_until)
    if isinstance(checked, str):
        return checked
    session = Session(
        checked.msg,
        now,
        quiet=paused_until is not None,
        unproven=security.sender_unproven(msg, limits.dkim),
        signer=checked.signer,
        unknown_signer=checked.unknown_signer,
        judge_key=limits.judge_key,
    )
    try:
        with write(db):
            outcome = _handle(db, session)
    except Exception as exc:  # a bug must not lose the message or leave half an effect
        log.exception("handling message %s from %s failed", msg.message_id, msg.sender)
        if paused_until is None:
            note = T(
                "The judge could not handle your message because of an internal error. "
                "Nothing in it took effect; the game master has been told."
            )
            _reply(db, msg, now, Reply(notes=[note]))
        security.tell_master(db, session, limits.master_address, type(exc).__name__, partial=False)
        return "error"
    if session.errors:
        security.tell_master(
            db, session, limits.master_address, T("{errors}", errors=list(session.errors)), partial=True
        )
    if paused_until is not None:
        security.tell_of_pause(db, msg, now, paused_until, limits.max_replies_per_hour)
    return outcome


def _intake(
    db: Database, msg: Incoming, now: datetime, limits: _Limits, paused_until: datetime | None
) -> signed_mail.Checked | str:
    """What of the message may be acted on, or the outcome of a message refused whole (the sender told why, unless
    the replies are paused): one that cannot be read, one too old, one whose signature is refused."""
    if msg.problem is Problem.NOT_TEXT and msg.pgp.encrypted is not None and limits.judge_key is not None:
        msg = replace(msg, problem=None)  # PGP/MIME encrypted to the judge: its text is inside (signed_mail.check)
    if msg.problem:
        if paused_until is None:
            note = T("Your message could not be read: {problem}.", problem=_problem_text(msg.problem, msg.size))
            _reply(db, msg, now, Reply(notes=[note]))
        return f"refused: {msg.problem}"
    too_old = _too_old(msg, now, limits.max_mail_age_days)
    if too_old is not None:
        if paused_until is None:
            reader = user_settings(db, msg.reply_to or msg.sender)
            note = T(
                "Your message was written or delivered on {when}, more than {days} "
                "days ago, so nothing in it was acted on. If you still mean it, send "
                "it again.",
                when=format_moment(too_old, reader["timezone"], reader["language"]),
                days=f"{limits.max_mail_age_days:g}",
            )
            _reply(db, msg, now, Reply(notes=[note]))
        return "refused: too old"
    # the sender's proof, before any line acts: an OpenPGP signature (judge.commands.signed_mail); DKIM goes here too
    checked = signed_mail.check(db, msg, now, limits.max_mail_age_days, limits.judge_key)
    if isinstance(checked, signed_mail.Refusal):
        if paused_until is None:
            _reply(db, msg, now, Reply(notes=[checked.why]))
        return checked.record
    return checked


def _problem_text(problem: Problem, size: int) -> Text:
    """What the sender is told about a message that could not be read."""
    if problem is Problem.TOO_LARGE:
        return T(
            "too large ({size} KB; the judge reads at most {limit} KB)",
            size=size // 1024,
            limit=MAX_MESSAGE_BYTES // 1024,
        )
    return {
        Problem.HEADER_TOO_LARGE: T("its header block is over 64 KB"),
        Problem.TOO_COMPLEX: T(
            "it has more parts, encoded words or header parameters than the judge reads; send a plain-text message"
        ),
        Problem.BAD_MESSAGE_ID: T("its Message-ID has control characters in it or is too long"),
        Problem.NOT_TEXT: T("it has no text the judge can read; write your orders in the message itself"),
        Problem.UNREADABLE: T("it could not be decoded; send a plain-text message"),
    }.get(problem, T(str(problem)))


def _too_old(msg: Incoming, now: datetime, max_days: float) -> datetime | None:
    """The Date or arrival of a message older than ``max_days``, else None."""
    limit = now - timedelta(days=max_days)
    for when in (msg.date, msg.arrived):
        if when is not None and when < limit:
            return when
    return None


Entry = c.Item | c.LineProblem


def _entries(msg: Incoming, parsed: c.ParsedBody) -> tuple[list[Entry], list[Attachment]]:
    """The lines to act on, in order: the message's, then those of its attached text files (read as if written below
    the message, at most ``MAX_TEXT_ATTACHMENTS`` of them and ``MAX_ENTRIES`` lines in all); and the attachments not
    read."""
    entries: list[Entry] = sorted([*parsed.items, *parsed.problems], key=lambda x: x.line)
    offset = max([e.line for e in entries] + [msg.body.count("\n") + 1])
    unread: list[Attachment] = []
    read = 0
    for attachment in msg.attachments:
        if attachment.text is None or read >= MAX_TEXT_ATTACHMENTS or len(entries) >= MAX_ENTRIES:
            unread.append(attachment)
            continue
        read += 1
        more = parse_body(attachment.text, max_lines=max(1, MAX_ENTRIES - len(entries)))
        found: list[Entry] = sorted([*more.items, *more.problems], key=lambda x: x.line)
        entries += [dataclasses.replace(e, line=e.line + offset) for e in found]
        offset += max([e.line for e in found] + [attachment.text.count("\n") + 1])
    return entries, unread


def _handle(db: Database, s: Session) -> str:
    msg = s.msg
    parsed = parse_body(msg.body)
    reply = Reply()
    entries, unread = _entries(msg, parsed)
    refused = signed_mail.seat_problem(db, s, entries)
    if refused is not None:  # a signature that is not the seat's: nothing of the message acts
        if not s.quiet:
            _reply(db, msg, s.now, Reply(notes=[refused.why]))
        return refused.record
    if not entries:
        reply.notes.append(T("Your message had no commands or orders in it. Send HELP for the commands."))
    for entry in entries:
        reply.add(_answer(db, s, entry))
    if s.unproven is not None:
        reply.notes.append(s.unproven)
    forwarded = parsed.forwarded or (parsed.quoted_mail and forwarded_subject(msg.subject))
    reply.notes.extend(_unread_notes(unread, forwarded))
    summary = None
    if s.game is not None and s.player is not None:
        game = service.get_game(db, s.game.name)
        if game.status in PLAYING and game.position is not None:
            summary = order_summary(db, game, s.player)
    if not s.quiet:
        _reply(db, msg, s.now, reply, summary, s)
    signed_mail.record(db, s)
    if s.game is not None and (s.changed_orders or s.ready_changed):
        game = service.get_game(db, s.game.name)
        service.maybe_adjudicate_when_ready(db, game, s.now)
    return "handled: sender not proven (DKIM)" if s.unproven is not None else "handled"


def _answer(db: Database, s: Session, entry: Entry) -> Answer:
    """One line acted on in a savepoint of its own: a request that cannot be carried out, or an internal failure,
    undoes this line only."""
    if isinstance(entry, c.LineProblem):
        return Answer.error(entry.text, entry.reason)
    if s.unproven is not None and type(entry) not in security.CHANGES_NOTHING:
        return security.refused_unproven(handlers.shown(entry))
    named = getattr(entry, "game", None)
    if isinstance(named, str) and named and not s.mentioned:
        s.mentioned = named
    try:
        with write(db):  # a savepoint: a failing command undoes itself only
            return handlers.run(db, s, entry)
    except Unchanged as exc:  # already so: said as an answer, not an error; nothing changed, nobody mailed
        return Answer(handlers.shown(entry), exc.why)
    except GameError as exc:
        return Answer.error(handlers.shown(entry), exc.why)
    except Exception as exc:  # a bug in one command must not undo the others
        log.exception("command on line %d of message %s from %s failed", entry.line, s.msg.message_id, s.msg.sender)
        command = handlers.shown(entry).split()[0].upper() if handlers.shown(entry).split() else type(entry).__name__
        s.errors.append(
            T("{command} on line {line}: {error}", command=command, line=entry.line, error=type(exc).__name__)
        )
        return Answer(
            handlers.shown(entry),
            T(
                "ERROR: an internal error kept this line from taking effect; the other "
                "lines are not affected and the game master has been told"
            ),
            Verdict.ERROR,
        )


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


def _reply(
    db: Database,
    msg: Incoming,
    now: datetime,
    reply: Reply,
    summary: dict[str, Any] | None = None,
    session: Session | None = None,
) -> None:
    """Queue the reply, worded once in the reader's language."""
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
        original_subject=thread_subject(msg.subject),
        thread_refs=refs,
        player=session.player if session else None,
        game_name=game.name if game else None,
    )
