"""The reader of a server's responses in IDLE (judge.transport.idle) on real socket pairs, plain and TLS, fed in
pieces as small as one byte: each response comes whole, nothing is lost or read twice, bytes already buffered (by
the connection's reader or by TLS) are seen at once, and a closed connection is an error."""

from __future__ import annotations

import fcntl
import shutil
import socket
import ssl
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.transport.idle import ResponseReader

RESPONSES = [
    b"* 3 EXISTS",
    b"* 1 RECENT",
    b"* 2 FETCH (UID 7 FLAGS ())",
    b"* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft \\*)] Flags permitted.",
    b"* 4 FETCH (UID 9 BODY[HEADER.FIELDS (SUBJECT)] {21}\r\nSubject: orders\r\n\r\n FLAGS (\\Seen))",
    b"* 2 EXPUNGE",
    b"* BYE going away",
]


def unread(sock: socket.socket) -> int:
    """Bytes in ``sock``'s receive queue, not yet taken by the process (FIONREAD)."""
    return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0])


class Feeder:
    """Sends ``chunks`` to the reader's socket in another thread, each only once the reader has taken everything
    sent before it out of the socket: so every chunk is a read of its own, however small."""

    def __init__(self, out: socket.socket, into: socket.socket, chunks: list[bytes]) -> None:
        self.out, self.into, self.chunks = out, into, chunks
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.stopped = threading.Event()

    def _run(self) -> None:
        for chunk in self.chunks:
            if self.stopped.is_set():
                return
            self.out.sendall(chunk)
            while unread(self.into) and not self.stopped.is_set():  # the reader takes it; a wait on a condition
                time.sleep(0.0002)

    def __enter__(self) -> Feeder:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join(10)


def read_all(reader: ResponseReader, count: int) -> list[bytes]:
    got: list[bytes] = []
    while len(got) < count:
        more = reader.wait(30)
        assert more, f"nothing within 30 s after {got}"
        got += more
    return got


@pytest.fixture
def plain() -> Iterator[tuple[socket.socket, socket.socket, BinaryIO]]:
    """(server end, client end, the client's buffered reader), as imaplib makes it."""
    server, client = socket.socketpair()
    client.settimeout(20)  # as the judge's connection: blocking, with a timeout
    file = client.makefile("rb")
    yield server, client, file
    file.close()
    server.close()
    client.close()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    key_kind = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]  # quick to make
    subprocess.run(
        [openssl, "req", "-x509", *key_kind, "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=x"],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture
def tls(certificate: tuple[Path, Path]) -> Iterator[tuple[ssl.SSLSocket, ssl.SSLSocket, BinaryIO]]:
    """(server end, client end, the client's buffered reader) of a TLS connection."""
    raw_server, raw_client = socket.socketpair()
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(*certificate)
    client_context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    client_context.load_verify_locations(certificate[0])
    accepted: list[ssl.SSLSocket] = []
    handshake = threading.Thread(
        target=lambda: accepted.append(server_context.wrap_socket(raw_server, server_side=True)), daemon=True
    )
    handshake.start()
    client = client_context.wrap_socket(raw_client, server_hostname="x")
    handshake.join(10)
    client.settimeout(20)
    file = client.makefile("rb")
    yield accepted[0], client, file
    file.close()
    accepted[0].close()
    client.close()


def test_responses_fed_byte_by_byte_come_whole(plain: tuple[socket.socket, socket.socket, BinaryIO]) -> None:
    server, client, file = plain
    wire = b"".join(r + b"\r\n" for r in RESPONSES)
    with Feeder(server, client, [wire[i : i + 1] for i in range(len(wire))]):
        assert read_all(ResponseReader(client, file), len(RESPONSES)) == RESPONSES


def test_tls_records_of_one_byte_come_whole(tls: tuple[ssl.SSLSocket, ssl.SSLSocket, BinaryIO]) -> None:
    server, client, file = tls
    wire = b"".join(r + b"\r\n" for r in RESPONSES)
    with Feeder(server, client, [wire[i : i + 1] for i in range(len(wire))]):  # a TLS record for each byte
        assert read_all(ResponseReader(client, file), len(RESPONSES)) == RESPONSES
    assert client.gettimeout() == 20  # left as it was: blocking, with the connection's timeout


def test_what_is_buffered_already_is_seen_at_once(plain: tuple[socket.socket, socket.socket, BinaryIO]) -> None:
    server, client, file = plain
    server.sendall(b"+ idling\r\n* 5 EXISTS\r\n")  # the go-ahead and news in one read
    assert file.readline() == b"+ idling\r\n"  # as imapclient's idle() reads it: the rest stays in the buffer
    started = time.monotonic()
    assert ResponseReader(client, file).wait(60) == [b"* 5 EXISTS"]
    assert time.monotonic() - started < 30  # not at the end of the wait: poll alone would not see buffered bytes


def test_what_tls_holds_already_is_seen_at_once(
    tls: tuple[ssl.SSLSocket, ssl.SSLSocket, BinaryIO],
) -> None:
    server, client, file = tls
    server.sendall(b"+ idling\r\n")
    server.sendall(b"* 5 EXISTS\r\n* 1 RECENT\r\n")  # a second record, in the socket or in ssl's hands
    assert file.readline() == b"+ idling\r\n"
    started = time.monotonic()
    got = ResponseReader(client, file).wait(60)
    while len(got) < 2:
        got += ResponseReader(client, file).wait(60)
    assert got == [b"* 5 EXISTS", b"* 1 RECENT"]
    assert time.monotonic() - started < 30


def test_a_wait_without_news_ends_with_nothing(plain: tuple[socket.socket, socket.socket, BinaryIO]) -> None:
    _, client, file = plain
    assert ResponseReader(client, file).wait(0.05) == []
    assert ResponseReader(client, file).wait(0) == []


@pytest.mark.parametrize("how", ["closed", "closed after half a line", "shut down by another thread"])
def test_a_closed_connection_is_an_error(plain: tuple[socket.socket, socket.socket, BinaryIO], how: str) -> None:
    server, client, file = plain
    if how == "closed after half a line":
        server.sendall(b"* 3 EXI")
    if how == "shut down by another thread":  # the daemon stopping: Inbox.interrupt, while the reader waits in poll
        threading.Timer(0.05, client.shutdown, (socket.SHUT_RDWR,)).start()
    else:
        server.shutdown(socket.SHUT_RDWR)
    started = time.monotonic()
    with pytest.raises(ConnectionError):
        ResponseReader(client, file).wait(60)
    assert time.monotonic() - started < 30


def test_a_closed_tls_connection_is_an_error(tls: tuple[ssl.SSLSocket, ssl.SSLSocket, BinaryIO]) -> None:
    server, client, file = tls
    server.sendall(b"* BYE going away\r\n")
    server.close()
    reader = ResponseReader(client, file)
    assert reader.wait(60) == [b"* BYE going away"]
    with pytest.raises(ConnectionError):
        reader.wait(60)


responses = st.lists(
    st.sampled_from(RESPONSES[:-1])
    | st.builds(lambda n, word: b"* %d %s" % (n, word), st.integers(0, 10**6), st.sampled_from([b"EXISTS", b"RECENT"]))
    | st.binary(max_size=30).map(lambda b: b"* 1 FETCH (BODY[] {%d}\r\n%s)" % (len(b), b)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sent=responses, data=st.data())
def test_any_split_gives_the_same_responses(sent: list[bytes], data: st.DataObject) -> None:
    wire = b"".join(r + b"\r\n" for r in sent)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(wire) - 1), max_size=len(wire) - 1), label="cuts"))
    chunks = [wire[a:b] for a, b in zip([0, *cuts], [*cuts, len(wire)], strict=True)]
    server, client = socket.socketpair()
    client.settimeout(20)
    file = client.makefile("rb")
    try:
        with Feeder(server, client, chunks):
            assert read_all(ResponseReader(client, file), len(sent)) == sent
    finally:
        file.close()
        server.close()
        client.close()
