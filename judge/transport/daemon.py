"""`judge serve`: read mail, adjudicate at deadlines, send the outbox — the only part that touches the network.

One loop of independent steps, each with its own schedule and its own capped backoff:

- **deadlines** (in a thread of its own with its own connection; a step of each round with ``--once``): reminders,
  then games whose deadline passed (earliest first, also those that passed while the daemon was down), one
  transaction per game, in chunks of ``CHUNK_GAMES`` or ``CHUNK_SECONDS`` with a pause between them, so that in a
  deadline wave mail keeps being read and sent, and game-master commands get the database. It
  never waits for a mail server: with IMAP or SMTP down (or hanging), phases are still adjudicated on time and the
  results wait in the outbox.
- **mail**: new messages by IMAP (at most ``CHUNK_MAIL`` per round); a dropped connection is reopened after a pause
  of 1 s doubling to ``MAX_BACKOFF`` (30 s), with jitter.
- **outbox**: due mail over one SMTP connection per batch; an unreachable server is tried again after the same
  capped backoff.
- **upkeep**, hourly: the digest of undeliverable mail to game masters, and pruning of old mail bodies, pictures and
  records.

The pace (the first step of every backoff, the longest wait between two looks for mail) is the configuration's
unless the caller passes a :class:`Pace`: the tests do, so that a reconnect or a poll takes a tenth of a second, not
one. Setting ``stop`` ends the daemon at once, even in the middle of a wait in IDLE.

A step that fails for a passing reason (database busy, network) logs one line and is tried again after its backoff;
no error ends the loop. Only one daemon or ``serve --once`` round runs per database: a lock file beside it
(``<db>.lock``) is held for the whole run, and a second one says so and exits 0. Deadlines are kept in UTC, so a
change to or from summer time never skips or doubles one.
"""

from __future__ import annotations

import fcntl
import imaplib
import logging
import os
import smtplib
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from imapclient.exceptions import IMAPClientError
from sqlite_utils import Database

import judge.wiring  # noqa: F401  (the game server given its variant loader and mail side)
from judge.config import Config
from judge.game.records import set_create_by_mail_policy, set_default_language, set_judge_address
from judge.game.service import due_games, remind, tick_game
from judge.signatures.keys import JudgeKey
from judge.store import game_rows, is_busy, mail_queue, open_db, write
from judge.store.upkeep import prune
from judge.store.users import set_judge_fingerprint, set_web_base_url
from judge.timeutil import backoff_pause, parse_iso_utc
from judge.transport.failures import report_failures
from judge.transport.imap import Inbox, handle_new_mail, sender_check_of
from judge.transport.smtp import SmtpUnavailable, drain_outbox, mail_signer, next_send_time, release_stale_claims

if TYPE_CHECKING:
    from judge.web.archive import Written

log = logging.getLogger("judge")

IMAP_ERRORS = (imaplib.IMAP4.error, imaplib.IMAP4.abort, IMAPClientError, OSError, ssl.SSLError, ConnectionError)
TRANSIENT = (*IMAP_ERRORS, smtplib.SMTPException, SmtpUnavailable)
MAX_WAIT = 300.0
MAX_BACKOFF = 30.0
CHUNK_GAMES = 25  # games adjudicated between two looks at the mail
CHUNK_SECONDS = 1.0  # and at most this long (a writer waiting for the lock waits about this long)
WEB_GAMES = 5  # games whose archive pages a round writes (a wave's others in the next rounds: mail is read between)
CHUNK_PAUSE = 0.2  # seconds the ticker leaves the database to other writers between chunks
CHUNK_MAIL = 200  # messages read, and mails sent, per round
UPKEEP_EVERY = timedelta(hours=1)
TICK_EVERY = 2.0  # seconds between looks for due reminders (deadlines are waited for exactly)


def utcnow() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def next_deadline(db: Database) -> datetime | None:
    deadline = game_rows.earliest_deadline(db)
    return parse_iso_utc(deadline) if deadline else None


@dataclass(frozen=True)
class Pace:
    """How long the daemon waits: ``first_backoff`` seconds after a step's first failure (doubling to
    ``MAX_BACKOFF``), and at most ``poll_seconds`` between two looks for mail (None: the configured ``[imap]
    poll_seconds``). A host keeps the defaults; tests pass a quicker pace instead of waiting for real seconds."""

    first_backoff: float = 1.0
    poll_seconds: float | None = None

    def __post_init__(self) -> None:
        if not self.first_backoff > 0 or not (self.poll_seconds is None or self.poll_seconds > 0):
            raise ValueError(f"a pace is a positive number of seconds: {self}")


class Backoff:
    """When a failing step may run again: ``first`` seconds (1 s), doubling to ``MAX_BACKOFF``, ±20 % jitter; reset by
    a success."""

    def __init__(self, first: float = 1.0) -> None:
        self.first = timedelta(seconds=first)
        self.failures = 0
        self.until = 0.0

    def ready(self) -> bool:
        return time.monotonic() >= self.until

    def remaining(self) -> float:
        return max(0.0, self.until - time.monotonic())

    def ok(self) -> None:
        self.failures, self.until = 0, 0.0

    def failed(self) -> float:
        self.failures += 1
        pause = backoff_pause(self.failures, self.first, timedelta(seconds=MAX_BACKOFF), 0.2).total_seconds()
        self.until = time.monotonic() + pause
        return pause


class ServeLock:
    """An exclusive lock on ``<db>.lock``: one daemon or cron round per database."""

    def __init__(self, db_path: str) -> None:
        self.path = Path(f"{db_path}.lock")
        self.file: IO[str] | None = None

    def acquire(self) -> bool:
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held open as long as the lock is held
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self.file = handle
        return True

    def release(self) -> None:
        if self.file is not None:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_UN)
            self.file.close()
            self.file = None


def serve(
    cfg: Config,
    *,
    once: bool = False,
    clock: Callable[[], datetime] = utcnow,
    stop: threading.Event | None = None,
    pace: Pace | None = None,
    judge_key: JudgeKey | None = None,
) -> int:
    """Run until ``stop`` is set (or one round with ``once``). Returns the process exit status. ``judge_key``: the
    judge's OpenPGP key (judge.transport.keyfile), which signs every mail sent and decrypts mail sent to it."""
    assert cfg.imap is not None and cfg.smtp is not None
    lock = ServeLock(cfg.db)
    if not lock.acquire():
        log.warning("another judge serve is running on %s (lock %s); this one exits", cfg.db, lock.path)
        return 0
    try:
        return Daemon(cfg, clock, stop or threading.Event(), pace or Pace(), judge_key).run(once)
    finally:
        lock.release()


class Daemon:
    def __init__(
        self,
        cfg: Config,
        clock: Callable[[], datetime],
        stop: threading.Event,
        pace: Pace | None = None,
        judge_key: JudgeKey | None = None,
    ) -> None:
        assert cfg.imap is not None and cfg.smtp is not None
        self.cfg, self.clock, self.stop, self.judge_key = cfg, clock, stop, judge_key
        self.pace = pace or Pace()
        self.poll = self.pace.poll_seconds or float(cfg.imap.poll_seconds)  # the longest wait between two looks
        self.db = open_db(cfg.db, backup_dir=cfg.backup_dir or None)  # migrates, after a backup
        self.inbox = Inbox(cfg.imap)
        self.sender_check = sender_check_of(cfg)  # [judge] sender_check = "dkim": the check, at the resolver
        self.sign = mail_signer(cfg)  # [dkim] sign_key: the judge signs its own mail
        self.backoff = {name: Backoff(self.pace.first_backoff) for name in ("deadlines", "mail", "outbox", "upkeep")}
        self.failed: set[str] = set()
        self.next_upkeep = 0.0
        self.busy = False  # this round read or sent mail
        self.web_written: Written | None = None  # the archive's marks written (judge.web, imported when used)

    def run(self, once: bool) -> int:
        cfg = self.cfg
        log.info("serving %s with %s", cfg.address, cfg.db)
        for warning in cfg.warnings:
            log.warning("%s", warning)
        self._step("start", self._start)
        if once:  # a cron round: steps in turn until the wave is done and the due mail sent
            try:
                while not self.stop.is_set():
                    deadlines_left, outbox_left = self.round()
                    if (deadlines_left and "deadlines" not in self.failed) or (
                        outbox_left and "outbox" not in self.failed
                    ):
                        continue  # reading and sending between chunks of a wave
                    return 1 if self.failed else 0
            finally:
                self.inbox.drop()
            return 0
        # the daemon: deadlines and reminders in a thread of their own (own connection), so that no mail server
        # that hangs or is down can hold them up; this thread reads and sends
        ticker = threading.Thread(target=self._deadline_loop, name="judge-deadlines", daemon=True)
        ticker.start()
        # a wait in IDLE ends when the server speaks or its time is up: ``stop`` cuts it short instead
        threading.Thread(target=self._interrupt_on_stop, name="judge-stop", daemon=True).start()
        try:
            while not self.stop.is_set():
                self.busy = False
                _, outbox_left = self.round(deadlines=False)
                # a round that read or sent mail is followed by another at once: mail that arrived meanwhile (while
                # a wave was sent, say) may never be announced by the server's IDLE, and would wait poll_seconds
                if not outbox_left and not self.busy:
                    self._wait()
        finally:
            self.stop.set()
            self.inbox.drop()
            ticker.join(30)
        return 0

    def _interrupt_on_stop(self) -> None:
        self.stop.wait()  # set by the caller, or by run() as it ends
        self.inbox.interrupt()

    def _deadline_loop(self) -> None:
        db = None
        backoff = Backoff(self.pace.first_backoff)
        while not self.stop.is_set():
            try:
                if db is None:
                    db = open_db(self.cfg.db)
                now = self.clock()
                more = deadline_chunk(db, now)
                backoff.ok()
                if more:  # the next chunk of a wave, after a pause in which other writers get the lock
                    self.stop.wait(CHUNK_PAUSE)
                    continue
                wait = TICK_EVERY
                when = next_deadline(db)
                if when is not None:
                    wait = min(wait, max(0.0, (when - now).total_seconds()) + 0.2)
            except Exception as exc:  # as every step: one line for a passing error, a traceback for a bug
                wait = backoff.failed()
                if is_busy(exc):
                    log.warning("deadlines: %s: %s; again in %.0f s", type(exc).__name__, _short(exc), wait)
                else:
                    log.exception("deadlines failed; again in %.0f s", wait)
            self.stop.wait(wait)

    def _start(self) -> None:
        with write(self.db):
            set_default_language(self.db, self.cfg.language)
            set_judge_address(self.db, self.cfg.address)
            set_create_by_mail_policy(self.db, self.cfg.create_by_mail)
            set_judge_fingerprint(self.db, self.judge_key.fingerprint if self.judge_key else "")
            set_web_base_url(self.db, self.cfg.web.base_url if self.cfg.web.dir else "")  # the results mails' link
            domain = self.cfg.address.rpartition("@")[2]
            # mail queued before the judge's address was known carries a bare random token: complete it now
            mail_queue.complete_message_ids(self.db, domain)
        released = release_stale_claims(self.db, self.clock(), everything=True)  # we hold the lock: no sender runs
        if released:
            log.warning("smtp: %d mail(s) claimed by a sender that stopped are queued again", released)

    def round(self, deadlines: bool = True) -> tuple[bool, bool]:
        """One pass over every step that is due; returns whether deadline work and due mail are left."""
        deadlines_left = outbox_left = False
        if deadlines and self._step("deadlines", self._deadlines):
            deadlines_left = bool(due_games(self.db, self.clock(), 1))
        self._step("mail", self._mail)
        if self.cfg.web.dir:
            self._step("web", self._web)
        if self._step("outbox", self._outbox):
            outbox_left = self._outbox_due()
        if time.monotonic() >= self.next_upkeep and self._step("upkeep", self._upkeep):
            self.next_upkeep = time.monotonic() + UPKEEP_EVERY.total_seconds()
        return deadlines_left, outbox_left

    def _step(self, name: str, action: Callable[[], Any]) -> bool:
        backoff = self.backoff.get(name)
        if backoff is not None and not backoff.ready():
            return False
        try:
            action()
        except Exception as exc:  # nothing ends the loop; a passing error is one line, a bug its traceback
            pause = backoff.failed() if backoff is not None else 0.0
            self.failed.add(name)
            if name == "mail":
                self.inbox.drop()
            if is_busy(exc) or isinstance(exc, TRANSIENT):
                log.warning("%s: %s: %s; again in %.0f s", name, type(exc).__name__, _short(exc), pause)
            else:
                log.exception("%s failed; again in %.0f s", name, pause)
            return False
        if backoff is not None:
            backoff.ok()
        self.failed.discard(name)
        return True

    def _deadlines(self) -> None:
        deadline_chunk(self.db, self.clock())

    def _mail(self) -> None:
        if not self.inbox.connected:
            self.inbox.open()
        handled = handle_new_mail(
            self.db,
            self.inbox,
            self.clock,
            self.cfg.address,
            self.cfg.max_replies_per_hour,
            limit=CHUNK_MAIL,
            max_mail_age_days=self.cfg.max_mail_age_days,
            sender_check=self.sender_check,
            judge_key=self.judge_key,
        )
        self.busy = self.busy or handled > 0

    def _web(self) -> None:
        """The public archive's pages of the games adjudicated (or ended, paused, rolled back) since the last look
        (judge.web.archive.refresh: a failure there is logged and never stops the rest)."""
        from judge.web.archive import Written, refresh

        if self.web_written is None:
            self.web_written = Written()
        written = refresh(self.db, self.cfg.web.dir, limit=WEB_GAMES, written=self.web_written)
        if written:
            log.info("web: archive pages written for %s", ", ".join(written))

    def _outbox(self) -> None:
        assert self.cfg.smtp is not None
        sent = drain_outbox(self.db, self.cfg.smtp, self.cfg.address, self.clock, limit=CHUNK_MAIL, sign=self.sign)
        sent = drain_outbox(
            self.db, self.cfg.smtp, self.cfg.address, self.clock, limit=CHUNK_MAIL, judge_key=self.judge_key
        )
        self.busy = self.busy or sent > 0

    def _outbox_due(self) -> bool:
        when = next_send_time(self.db)
        return when is not None and when <= self.clock()

    def _upkeep(self) -> None:
        now = self.clock()
        report_failures(self.db, now)
        prune(
            self.db,
            now,
            mail_days=self.cfg.mail_retention_days,
            handled_days=self.cfg.handled_retention_days,
            picture_days=self.cfg.picture_retention_days,
        )
        release_stale_claims(self.db, now)

    def _wait(self) -> None:
        now = self.clock()
        wait = MAX_WAIT
        for when in (next_deadline(self.db), next_send_time(self.db)):
            if when is not None:  # a passed deadline: the ticker is at work, and its mail is to be sent soon
                wait = min(wait, max(min(1.0, self.poll), (when - now).total_seconds() + 0.5))
        for backoff in self.backoff.values():
            if backoff.until:
                wait = min(wait, backoff.remaining() + 0.05)
        wait = min(wait, self.poll)
        if self.inbox.connected and not self.stop.is_set():
            try:
                self.inbox.wait(wait)
                return
            except IMAP_ERRORS as exc:
                if not self.stop.is_set():  # else the wait was cut short on purpose
                    log.warning("mail: %s while waiting: %s", type(exc).__name__, _short(exc))
                self.inbox.drop()
                return
        self.stop.wait(wait)


def deadline_chunk(db: Database, now: datetime) -> bool:
    """Reminders, then due games one transaction each, for at most ``CHUNK_GAMES`` games or ``CHUNK_SECONDS``;
    True while more games are due. Between chunks the caller lets others write (a writer waiting for SQLite's lock
    only looks every 100 ms or so, and would otherwise not get in between two of these transactions)."""
    remind(db, now)
    started = time.monotonic()
    for name, phase in due_games(db, now, CHUNK_GAMES):
        if tick_game(db, name, phase, now):
            log.info("game %s: deadline passed, adjudicated", name)
        if time.monotonic() - started > CHUNK_SECONDS:
            break
    return bool(due_games(db, now, 1))


def _short(exc: BaseException) -> str:
    text = str(exc).replace("\n", " ")
    return text[:200]
