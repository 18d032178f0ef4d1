"""Waiting in IMAP IDLE for the server's responses, read whole however the network splits them.

imapclient's ``idle_check`` (4.1.0; its issue #519) makes the socket non-blocking and reads lines with imaplib's
``readline``, which then returns what has come of a line so far. A plain connection: imaplib raises "unterminated
line" for it; TLS: the socket raises ``SSLWantReadError``, an ``OSError`` that ``idle_check`` takes for "nothing more",
and the part already read is lost. Either way the next read (the answer to ``DONE``) starts in the middle of a line:
``unexpected response: b'FLAGS ())'``, and the connection is dropped.

:class:`ResponseReader` never reads until it knows data is there: a look without blocking at the connection's own
buffered reader (which also takes what TLS has already decrypted), else ``poll`` on the socket. Once a response has
begun it is read to its end with the socket blocking as for any command (its timeout: a server silent in the middle of
a response is gone), literals included, so no byte is lost or read twice.
"""

from __future__ import annotations

import imaplib
import re
import select
import socket
import ssl
import time
from typing import BinaryIO

MAX_LINE = 1_000_000  # as imaplib: a longer line is not IMAP
_LITERAL = re.compile(rb"\{(\d+)\}$")


class ResponseReader:
    """The untagged responses of a server in IDLE, read from ``sock`` through ``file`` (the buffered reader the
    IMAP connection reads everything else with: bytes already in it are the next ones)."""

    def __init__(self, sock: socket.socket, file: BinaryIO) -> None:
        self.sock, self.file = sock, file

    def wait(self, seconds: float) -> list[bytes]:
        """The responses that come within ``seconds``: as soon as one has come whole, it and every one already at
        hand; [] when the time is up without any. Each is the response's bytes without its final CRLF. Raises
        ConnectionError when the server has closed the connection (also when another thread shut it down)."""
        deadline = time.monotonic() + seconds
        responses: list[bytes] = []
        readable = False  # poll said so just before
        while True:
            state = self._at_hand()
            if state == "data":
                responses.append(self.read_response())
                readable = False
                continue
            if responses:  # (at the connection's end too: its last words, a BYE, are the caller's to hear)
                return responses
            # nothing to read although poll said there was, or TLS's clean "nothing more": the connection is closed
            if state == "empty" and (readable or isinstance(self.sock, ssl.SSLSocket)):
                raise ConnectionError("imap server closed the connection")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            poller = select.poll()
            poller.register(self.sock.fileno(), select.POLLIN)
            readable = bool(poller.poll(remaining * 1000))

    def _at_hand(self) -> str:
        """A look that never blocks: "data" (a byte can be read at once), "none" (TLS: no whole record yet; what
        came of one is kept by the ssl module) or "empty" (a plain socket with nothing yet, or any at its end)."""
        timeout = self.sock.gettimeout()
        self.sock.setblocking(False)
        try:
            peek = getattr(self.file, "peek")  # noqa: B009 - a BufferedReader's; BinaryIO does not declare it
            data: bytes = peek(1)
        except (BlockingIOError, ssl.SSLWantReadError):
            return "none"
        finally:
            self.sock.settimeout(timeout)
        return "data" if data else "empty"

    def read_response(self) -> bytes:
        """One whole response as it came, without its final CRLF: its line and, for each literal in it, the literal
        and the rest of the line; read with the socket blocking (its own timeout)."""
        response = b""
        while True:
            line = self._line()
            response += line
            literal = _LITERAL.search(line)
            if literal is None:
                return response
            size = int(literal.group(1))
            data = self.file.read(size)
            if len(data) < size:
                raise ConnectionError("imap server closed the connection in the middle of a literal")
            response += b"\r\n" + data

    def _line(self) -> bytes:
        line = self.file.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise imaplib.IMAP4.abort(f"imap server sent a line of more than {MAX_LINE} bytes")
        if not line.endswith(b"\r\n"):
            raise ConnectionError("imap server closed the connection in the middle of a response")
        return line[:-2]
