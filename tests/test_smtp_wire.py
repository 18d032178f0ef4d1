"""What the sender puts on the wire: DATA transparency done by hand, the next mail built while the server reads the
current one, and every refusal of a batch settled on its own mail. A real aiosmtpd server on 127.0.0.1."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from hypothesis import given
from hypothesis import strategies as st

from judge.config import SmtpConfig
from judge.game.records import queue_mail
from judge.store import open_db, write
from judge.transport.embedded import free_port
from judge.transport.smtp import drain_outbox, message_bytes, transparent

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
JUDGE = "judge@judge.test"

lines = st.lists(
    st.one_of(st.sampled_from([b"", b".", b"..", b".x", b"x.", b" .", b"\r", b"\n"]), st.binary(max_size=12)),
    max_size=12,
)


@given(lines, st.sampled_from([b"\r\n", b"\n"]))
def test_transparency_matches_smtplib_and_reads_back(parts: list[bytes], eol: bytes) -> None:
    raw = eol.join(parts)
    wire = transparent(raw)
    expected = re.sub(rb"(?m)^\.", b"..", raw)  # the reference: smtplib.SMTP.data's line-by-line rule
    if not expected.endswith(b"\r\n"):
        expected += b"\r\n"
    assert wire == expected + b".\r\n"
    # the receiver's side (RFC 5321 4.5.2): drop one leading dot of every line, stop at the lone dot
    received = [line[1:] if line.startswith(b".") else line for line in wire.split(b"\n")]
    assert received[-2:] == [b"\r", b""]  # the lone dot, then nothing
    assert b"\n".join(received[:-2]) + b"\n" == (raw if raw.endswith(b"\r\n") else raw + b"\r\n")


class Recording:
    """aiosmtpd handler keeping the raw DATA, refusing what the test asks it to."""

    def __init__(self) -> None:
        self.raw: list[bytes] = []
        self.refuse_rcpt: dict[str, str] = {}
        self.refuse_data: dict[str, str] = {}
        self.refuse_mail = ""

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        if self.refuse_mail:
            answer, self.refuse_mail = self.refuse_mail, ""
            return answer
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        if address in self.refuse_rcpt:
            return self.refuse_rcpt[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if envelope.rcpt_tos[0] in self.refuse_data:
            return self.refuse_data[envelope.rcpt_tos[0]]
        self.raw.append(envelope.original_content)
        return "250 accepted"


@pytest.fixture
def server() -> Iterator[tuple[Recording, SmtpConfig]]:
    handler = Recording()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield handler, SmtpConfig(host="127.0.0.1", port=controller.port, security="none", timeout=5)
    finally:
        controller.stop()


def _statuses(db: Any) -> dict[str, tuple[str, str | None]]:
    return {r["to_addr"]: (r["status"], r["last_error"]) for r in db.query("select * from outbox order by id")}


def test_lines_starting_with_a_dot_arrive_as_written(tmp_path: Path, server: tuple[Recording, SmtpConfig]) -> None:
    handler, cfg = server
    db = open_db(tmp_path / "judge.db")
    body = "[judge-mail]\n.\n..\n.hidden line\nPRESS TO ALL\n. a dot first\nENDPRESS\n"
    with write(db):
        queue_mail(db, "alice@players.test", "press", body, NOW)
        queue_mail(db, "bob@players.test", "press", body, NOW)
    assert drain_outbox(db, cfg, JUDGE, lambda: NOW) == 2
    assert len(handler.raw) == 2
    for raw in handler.raw:
        message = message_from_bytes(raw, policy=policy.default)
        assert message.get_body(("plain",)).get_content().replace("\r\n", "\n") == body  # type: ignore[union-attr]
    # the server got exactly what message_bytes makes (the Date is the clock's, the boundaries fixed by no image)
    row = next(db.query("select * from outbox where to_addr = 'alice@players.test'"))
    assert handler.raw[0] == message_bytes(row, JUDGE, None, NOW)


def test_a_mail_that_cannot_be_built_fails_alone_in_its_turn(
    tmp_path: Path, server: tuple[Recording, SmtpConfig]
) -> None:
    """The next mail is built while the server reads the current one; when that fails, it fails in its own turn, with
    its reason, and the mails on either side go out."""
    handler, cfg = server
    db = open_db(tmp_path / "judge.db")
    with write(db):
        for who in ("a", "b", "c"):
            queue_mail(db, f"{who}@players.test", "Re: orders", "[judge-mail]\nOK\n", NOW)
        db.execute("update outbox set subject = null where to_addr = 'b@players.test'")
    assert drain_outbox(db, cfg, JUDGE, lambda: NOW) == 2
    statuses = _statuses(db)
    assert statuses["a@players.test"] == ("sent", None) and statuses["c@players.test"] == ("sent", None)
    assert statuses["b@players.test"][0] == "failed" and "cannot be built" in str(statuses["b@players.test"][1])
    assert len(handler.raw) == 2


def test_each_refusal_of_a_batch_settles_its_own_mail(tmp_path: Path, server: tuple[Recording, SmtpConfig]) -> None:
    """A refused sender, a refused recipient (permanent) and a deferred DATA (temporary) each touch one mail; the
    connection goes on with the next, and nothing accepted is lost or sent twice."""
    handler, cfg = server
    handler.refuse_mail = "451 4.3.0 try the sender later"  # the first MAIL FROM only
    handler.refuse_rcpt["gone@players.test"] = "550 5.1.1 no such user"
    handler.refuse_data["full@players.test"] = "452 4.2.2 mailbox full"
    db = open_db(tmp_path / "judge.db")
    with write(db):
        for who in ("first", "gone", "ok", "full", "last"):
            queue_mail(db, f"{who}@players.test", "results", "[judge-mail]\nresults\n", NOW)
    assert drain_outbox(db, cfg, JUDGE, lambda: NOW) == 2
    statuses = _statuses(db)
    assert statuses["first@players.test"] == ("queued", "451 4.3.0 try the sender later")
    assert statuses["gone@players.test"] == ("failed", "refused: 550 5.1.1 no such user")
    assert statuses["ok@players.test"] == ("sent", None) and statuses["last@players.test"] == ("sent", None)
    assert statuses["full@players.test"] == ("queued", "452 4.2.2 mailbox full")
    assert sorted(str(message_from_bytes(r)["To"]) for r in handler.raw) == ["last@players.test", "ok@players.test"]
    assert drain_outbox(db, cfg, JUDGE, lambda: NOW) == 0  # the deferred ones wait for their retry time
