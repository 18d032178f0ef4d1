"""`judge serve`: read mail, adjudicate at deadlines, send the outbox — the only part that touches the network.

One loop: handle waiting mail → adjudicate games whose deadline passed (in deadline order, also those that passed
while the daemon was down) → drain the outbox → wait for new mail (IMAP IDLE, else polling) until the next deadline.
A dropped IMAP connection is reopened with growing pauses (1 s doubling to 5 min); an SMTP server that is down leaves
mail queued for the next round. Deadlines are kept in UTC, so a change to or from summer time never skips or doubles
one.
"""

from __future__ import annotations

import imaplib
import logging
import random
import ssl
import threading
from collections.abc import Callable
from datetime import datetime, timezone

from imapclient.exceptions import IMAPClientError

from judge.config import Config
from judge.game.records import set_default_language
from judge.game.service import tick
from judge.mail.imap_in import Inbox, handle_new_mail
from judge.mail.smtp_out import drain_outbox, next_send_time
from judge.store import open_db
from judge.timeutil import parse_iso_utc

log = logging.getLogger("judge")

IMAP_ERRORS = (imaplib.IMAP4.error, imaplib.IMAP4.abort, IMAPClientError, OSError, ssl.SSLError, ConnectionError)
MAX_WAIT = 300.0


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def next_deadline(db) -> datetime | None:  # type: ignore[no-untyped-def]
    rows = list(db.query("select min(deadline) as d from games where status = 'active' and deadline is not null"))
    return parse_iso_utc(rows[0]["d"]) if rows and rows[0]["d"] else None


def serve(cfg: Config, *, once: bool = False, clock: Callable[[], datetime] = utcnow,
          stop: threading.Event | None = None) -> int:
    """Run until stopped (or one round with ``once``). Returns the process exit status."""
    assert cfg.imap is not None and cfg.smtp is not None
    db = open_db(cfg.db)
    with db.atomic():
        set_default_language(db, cfg.language)
    inbox = Inbox(cfg.imap)
    stop = stop or threading.Event()
    backoff = 1.0
    log.info("serving %s with %s", cfg.address, cfg.db)
    while not stop.is_set():
        try:
            if not inbox.connected:
                inbox.open()
            handle_new_mail(db, inbox, clock, cfg.address, cfg.max_replies_per_hour)
            backoff = 1.0
        except IMAP_ERRORS as exc:
            log.warning("imap: %s: %s; reconnecting in %.0f s", type(exc).__name__, _short(exc), backoff)
            inbox.drop()
            if once:
                _deadlines_and_outbox(db, cfg, clock)
                return 1
            stop.wait(backoff * random.uniform(0.8, 1.2))
            backoff = min(backoff * 2, 300.0)
            continue
        _deadlines_and_outbox(db, cfg, clock)
        if once:
            inbox.drop()
            return 0
        try:
            inbox.wait(_seconds_to_wait(db, clock))
        except IMAP_ERRORS as exc:
            log.warning("imap: %s while waiting: %s", type(exc).__name__, _short(exc))
            inbox.drop()
    inbox.drop()
    return 0


def _deadlines_and_outbox(db, cfg: Config, clock: Callable[[], datetime]) -> None:  # type: ignore[no-untyped-def]
    assert cfg.smtp is not None
    for name in tick(db, clock()):
        log.info("game %s: deadline passed, adjudicated", name)
    drain_outbox(db, cfg.smtp, cfg.address, clock)


def _seconds_to_wait(db, clock: Callable[[], datetime]) -> float:  # type: ignore[no-untyped-def]
    now = clock()
    wait = MAX_WAIT
    for when in (next_deadline(db), next_send_time(db)):
        if when is not None:
            wait = min(wait, max(0.0, (when - now).total_seconds()) + 0.5)
    return wait


def _short(exc: BaseException) -> str:
    text = str(exc).replace("\n", " ")
    return text[:200]

