"""Reading the judge's mailbox over IMAP (imapclient), exactly once.

For each new message: fetch it with ``BODY.PEEK[]`` (the server's \\Seen flag is left alone) → handle it and record
UIDVALIDITY and the last UID in the same transaction → move it to the processed (or rejected) folder. A crash
re-handles at most the message in hand, and the handled-message record makes that harmless. New mail is found with
``UID SEARCH`` filtered to UIDs above the last one handled (``n:*`` always returns the highest UID); IDLE, where the
server has it, is only a wake-up.

Mail is fetched and moved in batches, but each message is handled in its own transaction. A UID that SEARCH returned
and FETCH did not is skipped; the next round finds it among the leftovers and handles it then. A message that cannot
be parsed or handled (the handler raised, or answered with an internal error) is moved to the quarantine folder and
recorded with the reason in the ``quarantine`` table, and the inbox position moves past it.
"""

from __future__ import annotations

import contextlib
import hashlib
import imaplib
import logging
import socket
import ssl
import time
from collections.abc import Callable
from datetime import datetime
from functools import partial

from imapclient import IMAPClient
from sqlite_utils import Database

from judge.commands.handler import MAX_MAIL_AGE_DAYS, MAX_MESSAGE_BYTES, Handled, MessageOutcome, handle_message
from judge.config import Config, ImapConfig, resolver_address
from judge.signatures.dkim import DkimVerdict
from judge.signatures.keys import JudgeKey
from judge.store import inbox as inbox_rows
from judge.store import is_busy, write
from judge.store.users import known_judge_address
from judge.timeutil import iso_utc
from judge.transport.idle import ResponseReader

log = logging.getLogger(__name__)

IDLE_RENEW_SECONDS = 25 * 60  # RFC 2177: re-issue IDLE before 29 minutes

# What [judge] sender_check asks of a message's exact bytes (judge.signatures.dkim.check at the configured resolver)
SenderCheck = Callable[[bytes], DkimVerdict]


def sender_check_of(cfg: Config | None) -> SenderCheck | None:
    """The DKIM check ``[judge] sender_check = "dkim"`` asks for, at ``[dkim] resolver``; None without one."""
    if cfg is None or cfg.sender_check != "dkim":
        return None
    from judge.signatures.dkim import DkimOptions, check
    from judge.signatures.resolver import txt_lookup

    lookup = txt_lookup(resolver_address(cfg.dkim.resolver) if cfg.dkim.resolver else None, cfg.dkim.timeout)
    options = DkimOptions(strict=cfg.dkim.alignment == "strict", authserv_id=cfg.dkim.authserv_id)
    return lambda raw: check(raw, lookup, options)


class Inbox:
    """One connection to the judge's mailbox. Never reused after an error: drop it and open a new one."""

    def __init__(self, cfg: ImapConfig) -> None:
        self.cfg = cfg
        self.client: IMAPClient | None = None
        self.uidvalidity = 0
        self.idling = False  # between sending IDLE and the server's answer to DONE

    @property
    def account(self) -> str:
        return f"{self.cfg.username}@{self.cfg.host}:{self.cfg.port}/{self.cfg.folder}"

    def open(self) -> None:
        cfg = self.cfg
        # a TLS context costs some 25 ms to build (the system's certificates): only where the connection uses TLS
        context = ssl.create_default_context() if cfg.security in ("ssl", "starttls") else None
        client = IMAPClient(cfg.host, cfg.port, ssl=cfg.security == "ssl", ssl_context=context, timeout=cfg.timeout)
        if context is not None and cfg.security == "starttls":
            client.starttls(context)
        client.login(cfg.username, cfg.password)
        for folder in (cfg.processed_folder, cfg.rejected_folder, quarantine_folder(cfg)):
            if not client.folder_exists(folder):
                client.create_folder(folder)
        selected = client.select_folder(cfg.folder)
        self.uidvalidity = int(selected[b"UIDVALIDITY"])
        client.capabilities()  # asked now and kept by imapclient, before forget_responses drops what LOGIN said
        self.client = client
        log.info("imap: connected to %s:%s, folder %s", cfg.host, cfg.port, cfg.folder)

    def drop(self) -> None:
        client, self.client = self.client, None
        idling, self.idling = self.idling, False
        if client is not None:
            # the connection may be broken already: nothing to save. IMAPClientError is an IMAP4.error; ValueError
            # is imaplib reading a socket file already closed
            with contextlib.suppress(imaplib.IMAP4.error, OSError, ValueError):
                if idling:  # cut short inside IDLE: the server waits for DONE, and would not answer a LOGOUT
                    client.shutdown()
                else:
                    client.logout()

    def interrupt(self) -> None:
        """Cut short a wait in IDLE from another thread (the daemon stopping): the connection is shut down, so the
        wait ends at once with a connection error, and the connection is dropped as after any error."""
        client = self.client
        if client is not None and self.idling:
            with contextlib.suppress(OSError):
                client.socket().shutdown(socket.SHUT_RDWR)

    @property
    def connected(self) -> bool:
        return self.client is not None

    def new_uids(self, last_uid: int) -> list[int]:
        assert self.client is not None
        return sorted(u for u in self.client.search(["UID", f"{last_uid + 1}:*"]) if u > last_uid)

    def leftover_uids(self, last_uid: int) -> list[int]:
        """Messages still in the folder that were handled before a crash kept them from being moved."""
        assert self.client is not None
        if last_uid < 1:
            return []
        return sorted(u for u in self.client.search(["UID", f"1:{last_uid}"]) if u <= last_uid)

    def fetch(self, uid: int) -> tuple[bytes, int | None]:
        """The raw message, or its headers and its size when it is too large to read (KeyError: not fetched)."""
        return self.fetch_many([uid])[uid]

    def fetch_many(self, uids: list[int]) -> dict[int, tuple[bytes, int | None]]:
        """Raw messages by UID, in two commands whatever their number; UIDs the server did not return are left
        out (a message expunged meanwhile, or a server that answered SEARCH and not FETCH)."""
        assert self.client is not None
        if not uids:
            return {}
        sizes = {u: d.get(b"RFC822.SIZE", 0) for u, d in self.client.fetch(uids, ["RFC822.SIZE"]).items()}
        small = [u for u in uids if u in sizes and sizes[u] <= MAX_MESSAGE_BYTES]
        large = [u for u in uids if u in sizes and sizes[u] > MAX_MESSAGE_BYTES]
        out: dict[int, tuple[bytes, int | None]] = {}
        if small:
            for u, d in self.client.fetch(small, ["BODY.PEEK[]"]).items():
                if b"BODY[]" in d:
                    out[u] = (d[b"BODY[]"], None)
        if large:
            for u, d in self.client.fetch(large, ["BODY.PEEK[HEADER]"]).items():
                if b"BODY[HEADER]" in d:
                    out[u] = (d[b"BODY[HEADER]"], sizes[u])
        return out

    def forget_responses(self) -> None:
        """Drop what the server said on its own that no command of the judge reads. imaplib keeps every untagged
        response of a connection until a command asks for its kind (``EXPUNGE`` and ``COPYUID`` for each message
        moved, ``EXISTS`` and ``RECENT`` for each that arrives), and a connection the daemon keeps open in IDLE
        lives for weeks: kept, they grew by one entry or more per mail (issue 27). The judge asks for what it needs
        in each command (SEARCH for new mail, UIDVALIDITY from SELECT, which starts afresh)."""
        if self.client is not None:
            self.client._imap.untagged_responses.clear()  # imapclient keeps imaplib's connection in _imap

    def move(self, uid: int, folder: str) -> None:
        self.move_many([uid], folder)

    def move_many(self, uids: list[int], folder: str) -> None:
        assert self.client is not None
        if not uids:
            return
        if b"MOVE" in self.client.capabilities():
            self.client.move(uids, folder)
        else:
            self.client.copy(uids, folder)
            self.client.delete_messages(uids)
            if b"UIDPLUS" in self.client.capabilities():
                self.client.uid_expunge(uids)
            else:
                self.client.expunge()

    def wait(self, seconds: float) -> bool:
        """Wait for new mail at most ``seconds``; True when the server said something arrived.

        IDLE only shortens the wait: mail that arrived just before IDLE began may not be announced, so the daemon
        also looks every ``poll_seconds`` whatever the server says.
        """
        assert self.client is not None
        seconds = max(0.0, min(seconds, self.cfg.poll_seconds, IDLE_RENEW_SECONDS))
        if not self.cfg.idle or b"IDLE" not in self.client.capabilities():
            time.sleep(seconds)
            return False
        self.idling = True
        self.client.idle()
        # imapclient's idle_check loses or cuts short a response split across reads: the judge's own reader instead
        responses = ResponseReader(self.client.socket(), self.client._imap.file).wait(seconds)
        if any(_untagged(r)[:1] == [b"BYE"] for r in responses):  # the server goes: no DONE into a closing connection
            raise ConnectionError("imap server closed the connection")
        _, more = self.client.idle_done()  # with what the server said between the wait's end and DONE's answer
        self.idling = False
        for response in more:
            if len(response) > 0 and response[0] == b"BYE":
                raise ConnectionError("imap server closed the connection")
        return any(_untagged(r)[1:2] == [b"EXISTS"] for r in responses) or any(
            len(r) > 1 and r[1] == b"EXISTS" for r in more
        )


def _untagged(response: bytes) -> list[bytes]:
    """The first words of an untagged response (``* 3 EXISTS`` -> [b"3", b"EXISTS"]), upper-cased; [] for others."""
    if not response.startswith(b"* "):
        return []
    return response[2:].upper().split(b" ", 2)[:2]


def _state(db: Database, account: str) -> tuple[int, int]:
    return inbox_rows.mailbox_position(db, account)


def quarantine_folder(cfg: ImapConfig) -> str:
    return getattr(cfg, "quarantine_folder", "") or "Quarantine"


def handle_one(
    db: Database,
    raw: bytes,
    now: datetime,
    judge_address: str,
    max_replies_per_hour: int,
    declared_size: int | None = None,
    position: tuple[str, int, int] | None = None,
    *,
    max_mail_age_days: float = MAX_MAIL_AGE_DAYS,
    sender_check: SenderCheck | None = None,
    judge_key: JudgeKey | None = None,
) -> Handled:
    """Handle one message exactly as the daemon does (``judge mail handle`` calls this too), in one write
    transaction; with ``position`` (account, UIDVALIDITY, UID) the inbox position advances in the same one.

    ``sender_check`` runs on ``raw``, the bytes exactly as the server holds them (``BODY.PEEK[]``, never parsed and
    written again, so the signed body hashes as it was signed), before the transaction: it may wait for DNS."""
    verdict = sender_check(raw) if sender_check is not None else None
    with write(db):
        handled = handle_message(
            db,
            raw,
            now,
            judge_address=judge_address,
            max_replies_per_hour=max_replies_per_hour,
            declared_size=declared_size,
            max_mail_age_days=max_mail_age_days,
            dkim=verdict,
            judge_key=judge_key,
        )
        if position is not None:
            _advance(db, position, now)
    return handled


def mail_handle_settings(db: Database, cfg: Config | None) -> tuple[str, int, float, str]:
    """The judge's address, reply cap and mail age limit for ``judge mail handle``: the configuration's when there is
    one, else the address the daemon recorded in the database; with a note when the address is unknown."""
    from judge.commands.handler import MAX_REPLIES_PER_HOUR

    if cfg is not None and cfg.address:
        return cfg.address, cfg.max_replies_per_hour, cfg.max_mail_age_days, ""
    address = known_judge_address(db)
    if address:
        return address, MAX_REPLIES_PER_HOUR, MAX_MAIL_AGE_DAYS, ""
    return (
        "",
        MAX_REPLIES_PER_HOUR,
        MAX_MAIL_AGE_DAYS,
        (
            "the judge's own address is unknown (no configuration, and judge serve never ran on this database): mail "
            "from it would not be recognised"
        ),
    )


def _advance(db: Database, position: tuple[str, int, int], now: datetime) -> None:
    account, uidvalidity, uid = position
    inbox_rows.advance(db, account, uidvalidity, uid, iso_utc(now))


def _quarantine(db: Database, inbox: Inbox, uid: int, raw: bytes, reason: str, now: datetime, advance: bool) -> None:
    with write(db):
        inbox_rows.quarantine(db, inbox.account, uid, hashlib.sha256(raw).hexdigest(), reason, iso_utc(now))
        if advance:
            _advance(db, (inbox.account, inbox.uidvalidity, uid), now)
    log.warning("imap: message uid %s quarantined: %s", uid, reason[:200])


def _folder_of_earlier(db: Database, inbox: Inbox, raw: bytes) -> str:
    """Where a message handled before a crash (and not moved) belongs, from the record of its handling."""
    digest = hashlib.sha256(raw).hexdigest()
    if inbox_rows.quarantined(db, digest):
        return quarantine_folder(inbox.cfg)
    earlier = Handled.of(inbox_rows.handled_outcome(db, digest) or "", [])
    if earlier.quarantine_reason is not None:
        return quarantine_folder(inbox.cfg)
    return inbox.cfg.rejected_folder if earlier.rejected else inbox.cfg.processed_folder


FETCH_BATCH = 50


def handle_new_mail(
    db: Database,
    inbox: Inbox,
    clock: Callable[[], datetime],
    judge_address: str,
    max_replies_per_hour: int,
    limit: int | None = None,
    *,
    max_mail_age_days: float = MAX_MAIL_AGE_DAYS,
    sender_check: SenderCheck | None = None,
    judge_key: JudgeKey | None = None,
) -> int:
    """Handle the messages that arrived since the last one handled (at most ``limit``); return how many."""
    uidvalidity, last_uid = _state(db, inbox.account)
    if uidvalidity != inbox.uidvalidity:
        if uidvalidity:
            log.warning(
                "imap: UIDVALIDITY changed (%s -> %s): rescanning; handled mail is recognised and skipped",
                uidvalidity,
                inbox.uidvalidity,
            )
        last_uid = 0
    handle = partial(
        _handle_batch,
        db,
        inbox,
        clock,
        judge_address,
        max_replies_per_hour,
        max_mail_age_days=max_mail_age_days,
        sender_check=sender_check,
        judge_key=judge_key,
    )
    # handled before a crash kept them from being moved, or skipped when FETCH did not return them
    leftovers = inbox.leftover_uids(last_uid)
    for start in range(0, len(leftovers), FETCH_BATCH):
        handle(leftovers[start : start + FETCH_BATCH], advance=False)
    count = 0
    new = inbox.new_uids(last_uid)
    if limit is not None:
        new = new[:limit]
    for start in range(0, len(new), FETCH_BATCH):
        count += handle(new[start : start + FETCH_BATCH], advance=True)
    inbox.forget_responses()
    return count


def _handle_batch(
    db: Database,
    inbox: Inbox,
    clock: Callable[[], datetime],
    judge_address: str,
    max_replies_per_hour: int,
    batch: list[int],
    *,
    advance: bool,
    max_mail_age_days: float,
    sender_check: SenderCheck | None = None,
    judge_key: JudgeKey | None = None,
) -> int:
    """Fetch ``batch`` at once, handle each message (``advance``: new mail, whose UID moves the position on; else
    leftovers of an earlier round), then move them in one command per folder; return how many were handled."""
    fetched = inbox.fetch_many(batch)
    moves: dict[str, list[int]] = {}
    count = 0
    for uid in sorted(batch):
        if uid not in fetched:
            if advance:  # SEARCH listed it, FETCH did not: a later round retries it as a leftover
                log.warning("imap: message uid %s could not be fetched; retrying later", uid)
            continue
        raw, too_large = fetched[uid]
        folder = _handle_fetched(
            db,
            inbox,
            uid,
            raw,
            too_large,
            clock(),
            judge_address,
            max_replies_per_hour,
            advance=advance,
            max_mail_age_days=max_mail_age_days,
            sender_check=sender_check,
            judge_key=judge_key,
        )
        moves.setdefault(folder, []).append(uid)
        count += 1
    for folder, uids in moves.items():
        inbox.move_many(uids, folder)
    return count


def _handle_fetched(
    db: Database,
    inbox: Inbox,
    uid: int,
    raw: bytes,
    too_large: int | None,
    now: datetime,
    judge_address: str,
    max_replies_per_hour: int,
    *,
    advance: bool,
    max_mail_age_days: float = MAX_MAIL_AGE_DAYS,
    sender_check: SenderCheck | None = None,
    judge_key: JudgeKey | None = None,
) -> str:
    """Handle one fetched message; return the folder it belongs in."""
    position = (inbox.account, inbox.uidvalidity, uid) if advance else None
    if inbox_rows.quarantined(db, hashlib.sha256(raw).hexdigest()):
        if position is not None:
            with write(db):
                _advance(db, position, now)
        return quarantine_folder(inbox.cfg)
    try:
        handled = handle_one(
            db,
            raw,
            now,
            judge_address,
            max_replies_per_hour,
            too_large,
            position,
            max_mail_age_days=max_mail_age_days,
            sender_check=sender_check,
            judge_key=judge_key,
        )
    except Exception as exc:
        if is_busy(exc):
            raise  # the database is busy: the daemon backs off and the message is tried again
        log.exception("imap: message uid %s could not be handled", uid)
        _quarantine(db, inbox, uid, raw, f"{type(exc).__name__}: {exc}", now, advance)
        return quarantine_folder(inbox.cfg)
    if handled.outcome is MessageOutcome.DUPLICATE:
        log.info("imap: message uid %s was handled before; moved", uid)
        return _folder_of_earlier(db, inbox, raw)
    log.info(
        "imap: message uid %s: %s, %d repl%s queued",
        uid,
        handled.outcome.value,
        len(handled.replies),
        "y" if len(handled.replies) == 1 else "ies",
    )
    reason = handled.quarantine_reason  # an internal error, or mail that could not be parsed at all
    if reason is not None:
        _quarantine(db, inbox, uid, raw, reason, now, False)
        return quarantine_folder(inbox.cfg)
    return inbox.cfg.rejected_folder if handled.rejected else inbox.cfg.processed_folder
