"""Real mail servers on 127.0.0.1 for the daemon tests: pymap or Dovecot (IMAP) and an aiosmtpd sink (SMTP)."""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
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
        else:
            raise RuntimeError(f"dovecot on port {self.port} never answered a login")
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
        self.raw: list[tuple[str, bytes]] = []  # (recipient, the bytes as they arrived)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.original_content, policy=policy.default))  # type: ignore
        self.raw.append((envelope.rcpt_tos[0], envelope.original_content))
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
    path.chmod(0o600)  # it holds a password: a file every user can read is refused
    return path


class ImapTap:
    """A relay on 127.0.0.1 in front of a real IMAP server, for what a test must wait for or make happen.

    It records the command of every line the clients send, so a test waits for a condition ("the daemon is in IDLE")
    instead of sleeping; it leaves chosen capabilities out of what the server announces (a server without MOVE,
    UIDPLUS or IDLE); it can keep new mail unannounced to a client in IDLE (a server that does not tell); and it can
    answer the server's go-ahead to an IDLE with a BYE and hang up (a server going away under a waiting client). Bytes
    pass unchanged otherwise; literals are passed through without being looked at.

    With ``split``, what the server says reaches the client one byte at a time: one send for each byte, without
    Nagle's delay (TCP_NODELAY), so that the client's reads end in the middle of lines, as on a slow or lossy network.
    """

    def __init__(self, upstream_port: int, *, hide: tuple[str, ...] = (), split: bool = False) -> None:
        self.upstream_port = upstream_port
        self.split = split
        self.hide = re.compile(
            rb" (?:" + b"|".join(re.escape(h.encode()) for h in hide) + rb")(?=[ \]\r\n])", re.IGNORECASE
        )
        self.hiding = bool(hide)
        self.commands: list[str] = []  # "LOGIN", "UID MOVE", "IDLE", "DONE", ... in the order sent
        self.connections = 0  # clients accepted
        self.unreachable = 0  # clients hung up on because the server could not be reached
        self.byes = 0  # IDLEs answered with BYE
        self.idles = 0  # IDLEs the server said go-ahead to, and the client heard it
        self.bye_on_idle = 0  # answer this many of the next IDLEs with BYE and a hang-up
        self.slow_idle = False  # while set, the server's go-ahead to an IDLE never reaches the client
        self.mute_idle = False  # while set, a client in IDLE never hears of new mail (a server that does not tell)
        self.changed = threading.Condition()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._open: set[socket.socket] = set()
        self._threads: list[threading.Thread] = []

    def start(self) -> ImapTap:
        self._spawn(self._accept)
        return self

    def stop(self) -> None:
        _hang_up(self._listener)  # shutdown wakes the accept() waiting in its thread; close alone would not
        with self.changed:
            for sock in list(self._open):
                _hang_up(sock)
        for thread in self._threads:
            thread.join(10)

    def count(self, command: str) -> int:
        with self.changed:
            return self.commands.count(command)

    def wait_until(self, condition: Callable[[ImapTap], bool], seconds: float = 60) -> None:
        """Wait until ``condition(tap)`` holds (checked at every change); fail the test after ``seconds``."""
        with self.changed:
            assert self.changed.wait_for(lambda: condition(self), seconds), f"timed out; commands: {self.commands}"

    def waiting_in_idle(self) -> bool:
        """A client is in IDLE: it heard the server's go-ahead and has not ended it (with DONE) since."""
        return self.idles > self.commands.count("DONE") + self.byes

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _note(self, **changes: int) -> None:
        with self.changed:
            for name, step in changes.items():
                setattr(self, name, getattr(self, name) + step)
            self.changed.notify_all()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # the listener was closed: the tap stops
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream_port), 5)
            except OSError:
                _hang_up(client)
                self._note(connections=1, unreachable=1)
                continue
            server.settimeout(None)
            if self.split:
                client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.changed:
                self._open |= {client, server}
            state = {"bye": False, "idle": False, "in_idle": False}  # IDLE sent; its go-ahead passed, no DONE yet
            self._note(connections=1)
            self._spawn(self._pump, client, server, True, state)
            self._spawn(self._pump, server, client, False, state)

    def _pump(self, source: socket.socket, sink: socket.socket, from_client: bool, state: dict[str, bool]) -> None:
        buffer = b""
        literal = 0  # bytes of a literal still to pass through unread
        try:
            while chunk := source.recv(65536):
                buffer += chunk
                out = b""
                while buffer:
                    if literal:
                        taken, buffer = buffer[:literal], buffer[literal:]
                        literal -= len(taken)
                        out += taken
                        continue
                    end = buffer.find(b"\r\n")
                    if end < 0:
                        break
                    line, buffer = buffer[: end + 2], buffer[end + 2 :]
                    found = re.search(rb"\{(\d+)\+?\}\r\n$", line)
                    literal = int(found.group(1)) if found else 0
                    relayed, hang_up = self._relay(line, from_client, state)
                    out += relayed
                    if hang_up:
                        self._send(sink, out, from_client)
                        return
                if out:
                    self._send(sink, out, from_client)
        except OSError:
            pass
        finally:
            _hang_up(source)
            _hang_up(sink)
            with self.changed:
                self._open -= {source, sink}
                self.changed.notify_all()

    def _send(self, sink: socket.socket, data: bytes, from_client: bool) -> None:
        if from_client or not self.split:
            sink.sendall(data)
            return
        for i in range(len(data)):  # each byte a segment of its own
            sink.sendall(data[i : i + 1])

    def _relay(self, line: bytes, from_client: bool, state: dict[str, bool]) -> tuple[bytes, bool]:
        """What to pass on for one line, and whether to hang up after it."""
        if from_client:
            self._command(line, state)
            return line, False
        if self.hiding and b"CAPABILITY" in line.upper():
            return self.hide.sub(b"", line), False
        if self.mute_idle and state["in_idle"] and line.startswith(b"* ") and line[2:5].upper() != b"BYE":
            return b"", False  # EXISTS, RECENT, FETCH: nothing said of what changed
        if not (state["idle"] and line.startswith(b"+")):
            return line, False
        if self.slow_idle:  # the go-ahead to IDLE: held back, ...
            return b"", False
        state["idle"] = False
        state["in_idle"] = True
        self._note(idles=1, byes=int(state["bye"]))
        if state["bye"]:  # ... or followed by a BYE and a hang-up
            return line + b"* BYE [UNAVAILABLE] the server is going away\r\n", True
        return line, False

    def _command(self, line: bytes, state: dict[str, bool]) -> None:
        words = line.split()
        if not words:
            return
        if len(words) == 1:  # DONE, or a continuation line
            command = words[0].decode("ascii", "replace").upper()
        else:
            command = words[1].decode("ascii", "replace").upper()
            if command == "UID" and len(words) > 2:
                command += " " + words[2].decode("ascii", "replace").upper()
        with self.changed:
            if command == "DONE":
                state["in_idle"] = False
            if command == "IDLE":
                state["idle"] = True
                if self.bye_on_idle > 0:
                    self.bye_on_idle -= 1
                    state["bye"] = True
            self.commands.append(command)
            self.changed.notify_all()


def _hang_up(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


def wait_for(condition: Any, seconds: float = 60, every: float = 0.05) -> None:
    """Look at ``condition`` every ``every`` seconds until it holds; fail the test after ``seconds``."""
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(every)
