"""Real mail servers on 127.0.0.1 for the daemon tests: pymap or Dovecot (IMAP) and an aiosmtpd sink (SMTP)."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from imapclient import IMAPClient

from judge.transport.embedded import EmbeddedImap, ImapAccounts, free_port, wait_port

USERS = ["judge"]
PASSWORD = "s3cret-imap"


class Dovecot(ImapAccounts):
    """A throwaway Dovecot instance (Debian's dovecot-imapd) with its config in a temp dir."""

    def __init__(self, root: Path, users: list[str], password: str) -> None:
        # Dovecot's auth and mail processes run as other users: the folder must be reachable by them, which
        # pytest's tmp_path (under a 0700 folder) is not; so the instance lives in its own folder under /tmp.
        del root
        self.root = Path(tempfile.mkdtemp(prefix="judge-dovecot-"))
        self.users, self.password = users, password
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Dovecot:
        d = self.root
        for sub in ("run", "state", "home"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(d, 0o755)
        root = os.geteuid() == 0
        nobody = pwd.getpwnam("nobody") if root else pwd.getpwuid(os.geteuid())
        me = pwd.getpwuid(os.geteuid()).pw_name
        (d / "passwd").write_text("".join(f"{u}:{{PLAIN}}{self.password}::::::\n" for u in self.users))
        extra = (
            ""
            if root
            else (
                f"default_internal_group = {me}\nfirst_valid_uid = {os.geteuid()}\n"
                "service auth {\n  user = $default_internal_user\n}\n"
            )
        )
        (d / "dovecot.conf").write_text(f"""
base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
instance_name = judge-test-{self.port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = {"dovenull" if root else me}
default_internal_user = {"dovecot" if root else me}
{extra}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/passwd
}}
userdb {{
  driver = static
  args = uid={nobody.pw_uid} gid={nobody.pw_gid} home={d}/home/%u
}}
mail_location = maildir:~/Maildir
namespace inbox {{
  inbox = yes
  separator = /
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
service stats {{
  unix_listener stats-reader {{
    mode = 0666
  }}
  unix_listener stats-writer {{
    mode = 0666
  }}
}}
""")
        if root:
            os.chown(d / "home", nobody.pw_uid, nobody.pw_gid)
        self.proc = subprocess.Popen(
            [shutil.which("dovecot") or "dovecot", "-F", "-c", str(d / "dovecot.conf")],
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_port(self.port, self.proc)
        for _ in range(100):  # the port opens before the auth process is ready to answer
            try:
                client = IMAPClient("127.0.0.1", self.port, ssl=False, timeout=2)
                client.login(self.users[0], self.password)
                client.logout()
                break
            except (OSError, IMAPClient.Error):  # refused, or the login not answered yet
                time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(10)
        self.proc = None
        shutil.rmtree(self.root, ignore_errors=True)


def start_imap(kind: str, root: Path) -> Any:
    if kind == "pymap":
        return EmbeddedImap(root, USERS, PASSWORD).start()
    return Dovecot(root, USERS, PASSWORD).start()


def folder_uids(server: Any, folder: str) -> list[int]:
    client = server.client("judge")
    try:
        if not client.folder_exists(folder):
            return []
        client.select_folder(folder, readonly=True)
        return list(client.search(["ALL"]))
    finally:
        client.logout()


class Sink:
    """aiosmtpd handler that keeps every message it accepts."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.original_content, policy=policy.default))  # type: ignore
        return "250 Message accepted for delivery"


class SmtpSink:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.sink = Sink()
        self.controller: Controller | None = None

    def start(self) -> SmtpSink:
        self.controller = Controller(self.sink, hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.sink.messages if m["To"] == address]


def write_config(
    path: Path, imap: Any, smtp: Any, db: Path | str, *, password: str = PASSWORD, imap_extra: str = ""
) -> Path:
    """A judge.toml for these servers on loopback."""
    path.write_text(f"""
[judge]
address = "judge@judge.test"
db = "{db}"
[imap]
host = "127.0.0.1"
port = {imap.port}
security = "none"
username = "judge"
password = "{password}"
{imap_extra}
[smtp]
host = "127.0.0.1"
port = {smtp.port}
security = "none"
""")
    return path
