"""Mail servers on loopback for `judge demo` and the tests: pymap (IMAP, maildir) and an aiosmtpd listener.

The SMTP listener delivers each message into the recipient's mailbox on the IMAP server with an IMAP APPEND (so a
client waiting in IDLE hears of it at once). Both bind to 127.0.0.1 on a free port.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError

log = logging.getLogger(__name__)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes] | None = None, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


class ImapAccounts:
    """What the demo and the tests do as mail users of an IMAP server on loopback (``port``, ``password``)."""

    port: int
    password: str

    def client(self, user: str) -> IMAPClient:
        client = IMAPClient("127.0.0.1", self.port, ssl=False, timeout=30)
        client.login(user, self.password)
        return client

    def append(self, user: str, raw: bytes, folder: str = "INBOX") -> None:
        client = self.client(user)
        try:
            client.append(folder, raw)
        finally:
            client.logout()

    def messages(self, user: str, folders: tuple[str, ...] = ("INBOX",)) -> list[bytes]:
        """Every message in the user's folders, oldest first, left unread."""
        client = self.client(user)
        out = []
        try:
            for folder in folders:
                if not client.folder_exists(folder):
                    continue
                client.select_folder(folder, readonly=True)
                uids = client.search(["ALL"])
                out += [data[b"BODY[]"] for _uid, data in sorted(client.fetch(uids, ["BODY.PEEK[]"]).items())]
        finally:
            client.logout()
        return out


class EmbeddedImap(ImapAccounts):
    """pymap's maildir backend as a child process; one mailbox per user, all with ``password``."""

    def __init__(self, root: Path, users: list[str], password: str) -> None:
        self.root = root
        self.password = password
        self.users = list(users)
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> EmbeddedImap:
        from pysasl.hashing import BuiltinHash

        self.root.mkdir(parents=True, exist_ok=True)
        hashed = BuiltinHash(rounds=1000)
        (self.root / "pymap-etc-passwd").write_text("".join(f"{u}:x::::{u}:\n" for u in self.users))
        (self.root / "pymap-etc-shadow").write_text(
            "".join(f"{u}:{hashed.hash(self.password)}:::::::\n" for u in self.users)
        )
        exe = shutil.which("pymap") or str(Path(sys.executable).parent / "pymap")
        self.proc = subprocess.Popen(
            [exe, "--host", "127.0.0.1", "--port", str(self.port), "--no-tls", "maildir", str(self.root)],
            env=dict(os.environ, FQDN="localhost"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_port(self.port, self.proc)
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None


class _Deliver:
    """aiosmtpd handler: mail to a known user is appended to that user's INBOX; anything else is refused."""

    def __init__(self, imap: EmbeddedImap, domain: str) -> None:
        self.imap = imap
        self.domain = domain.lower()

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        local, _, domain = address.lower().partition("@")
        if domain != self.domain or local not in self.imap.users:
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        """Append to each recipient's INBOX. An IMAP server that fails (refused, down, an error of its own) is a
        temporary failure, as for any mail server whose mailbox store is out: 451, and the sender tries again later
        (the judge's outbox does; so does the demo's player). Nothing is accepted that was not stored."""
        for rcpt in envelope.rcpt_tos:
            try:
                self.imap.append(rcpt.lower().partition("@")[0], envelope.original_content)
            except (IMAPClientError, OSError) as exc:
                log.warning("embedded smtp: delivery to %s failed (%s); told the sender to try again", rcpt, exc)
                return "451 4.3.0 the mailbox cannot be reached now; try again later"
        return "250 Message accepted for delivery"


class EmbeddedSmtp:
    def __init__(self, imap: EmbeddedImap, domain: str) -> None:
        self.port = free_port()
        self.handler = _Deliver(imap, domain)
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port, data_size_limit=2_000_000)

    def start(self) -> EmbeddedSmtp:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()
