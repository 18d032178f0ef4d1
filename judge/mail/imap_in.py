"""Reading the judge's mailbox over IMAP (imapclient), exactly once.

For each new message: fetch it with ``BODY.PEEK[]`` (the server's \\Seen flag is left alone) → handle it and record
UIDVALIDITY and the last UID in the same transaction → move it to the processed (or rejected) folder. A crash
re-handles at most the message in hand, and the handled-message record makes that harmless. New mail is found with
``UID SEARCH`` filtered to UIDs above the last one handled (``n:*`` always returns the highest UID); IDLE, where the
server has it, is only a wake-up.
"""

from __future__ import annotations

import logging
import ssl
import time
from collections.abc import Callable
from datetime import datetime

from imapclient import IMAPClient
from sqlite_utils import Database

from judge.config import ImapConfig
from judge.mail.handler import MAX_MESSAGE_BYTES, handle_message
from judge.timeutil import iso_utc

log = logging.getLogger(__name__)

IDLE_RENEW_SECONDS = 25 * 60  # RFC 2177: re-issue IDLE before 29 minutes


class Inbox:
    """One connection to the judge's mailbox. Never reused after an error: drop it and open a new one."""

    def __init__(self, cfg: ImapConfig) -> None:
        self.cfg = cfg
        self.client: IMAPClient | None = None
        self.uidvalidity = 0

    @property
    def account(self) -> str:
        return f"{self.cfg.username}@{self.cfg.host}:{self.cfg.port}/{self.cfg.folder}"

    def open(self) -> None:
        cfg = self.cfg
        context = ssl.create_default_context()
        client = IMAPClient(cfg.host, cfg.port, ssl=cfg.security == "ssl", ssl_context=context, timeout=cfg.timeout)
        if cfg.security == "starttls":
            client.starttls(context)
        client.login(cfg.username, cfg.password)
        for folder in (cfg.processed_folder, cfg.rejected_folder):
            if not client.folder_exists(folder):
                client.create_folder(folder)
        selected = client.select_folder(cfg.folder)
        self.uidvalidity = int(selected[b"UIDVALIDITY"])
        self.client = client
        log.info("imap: connected to %s:%s, folder %s", cfg.host, cfg.port, cfg.folder)

    def drop(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            try:
                client.logout()
            except Exception:  # the connection is already broken; nothing to save
                pass

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
        """The raw message, or its headers and its size when it is too large to read."""
        assert self.client is not None
        size = self.client.fetch([uid], ["RFC822.SIZE"]).get(uid, {}).get(b"RFC822.SIZE", 0)
        if size > MAX_MESSAGE_BYTES:
            data = self.client.fetch([uid], ["BODY.PEEK[HEADER]"])[uid]
            return data[b"BODY[HEADER]"], size
        data = self.client.fetch([uid], ["BODY.PEEK[]"])[uid]
        return data[b"BODY[]"], None

    def move(self, uid: int, folder: str) -> None:
        assert self.client is not None
        if b"MOVE" in self.client.capabilities():
            self.client.move([uid], folder)
        else:
            self.client.copy([uid], folder)
            self.client.delete_messages([uid])
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
        self.client.idle()
        try:
            responses = self.client.idle_check(timeout=seconds)
        finally:
            self.client.idle_done()
        for response in responses:
            if len(response) > 0 and response[0] == b"BYE":
                raise ConnectionError("imap server closed the connection")
        return any(len(r) > 1 and r[1] == b"EXISTS" for r in responses)


def _state(db: Database, account: str) -> tuple[int, int]:
    rows = list(db.query("select uidvalidity, last_uid from mailbox_state where account = ?", [account]))
    return (rows[0]["uidvalidity"], rows[0]["last_uid"]) if rows else (0, 0)


def handle_new_mail(db: Database, inbox: Inbox, clock: Callable[[], datetime], judge_address: str,
                    max_replies_per_hour: int) -> int:
    """Handle every message that arrived since the last one handled; return how many."""
    uidvalidity, last_uid = _state(db, inbox.account)
    if uidvalidity != inbox.uidvalidity:
        if uidvalidity:
            log.warning("imap: UIDVALIDITY changed (%s -> %s): rescanning; handled mail is recognised and skipped",
                        uidvalidity, inbox.uidvalidity)
        last_uid = 0
    for uid in inbox.leftover_uids(last_uid):  # handled, not moved: recognised by the record, then moved
        raw, too_large = inbox.fetch(uid)
        with db.atomic():
            handled = handle_message(db, raw, clock(), judge_address=judge_address,
                                     max_replies_per_hour=max_replies_per_hour, declared_size=too_large)
        inbox.move(uid, inbox.cfg.rejected_folder if handled.rejected else inbox.cfg.processed_folder)
        log.info("imap: message uid %s was handled before; moved", uid)
    count = 0
    for uid in inbox.new_uids(last_uid):
        raw, too_large = inbox.fetch(uid)
        now = clock()
        with db.atomic():
            handled = handle_message(db, raw, now, judge_address=judge_address,
                                              max_replies_per_hour=max_replies_per_hour, declared_size=too_large)
            db.table("mailbox_state").upsert({"account": inbox.account, "uidvalidity": inbox.uidvalidity,
                                              "last_uid": uid, "updated_at": iso_utc(now)}, pk="account")
        folder = inbox.cfg.rejected_folder if handled.rejected else inbox.cfg.processed_folder
        inbox.move(uid, folder)
        log.info("imap: message uid %s: %s, %d repl%s queued", uid, handled.outcome.split(":")[0],
                 len(handled.replies), "y" if len(handled.replies) == 1 else "ies")
        count += 1
    return count
