"""Mail servers that refuse or go away, all real on 127.0.0.1: the daemon against each.

IMAP (pymap and Dovecot, behind `mailservers.ImapTap` where the test must see or shape the conversation): a server
without MOVE (COPY, then STORE \\Deleted and UID EXPUNGE, or EXPUNGE without UIDPLUS), one without IDLE (polling), a
mailbox whose UIDVALIDITY changes (UIDs given out again from 1), BYE in the middle of IDLE. SMTP (aiosmtpd): 4xx and
5xx answers to MAIL, RCPT and DATA in the middle of one batch, and 421, the server closing the connection mid-batch.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from mailservers import ImapTap, SmtpSink, folder_uids, start_imap, wait_for
from test_daemon import POWERS, QUICK, SERVERS, Clock, addr, make_config, new_game, send, text_of

from judge.game import records
from judge.store import open_db
from judge.transport.daemon import Pace, serve
from judge.transport.embedded import EmbeddedImap, free_port
from judge.transport.imap import Inbox, handle_new_mail


@pytest.fixture(params=SERVERS)
def imap(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    server = start_imap(request.param, tmp_path / "imap")
    yield server
    server.stop()


def replied(smtp: Any, power: str, line: str) -> bool:
    return any(f"OK: {line}" in text_of(m) for m in smtp.to(addr(power)))


class Running:
    """`judge serve` (the daemon, not one round) in a thread at a quick pace, stopped at the end of the ``with``."""

    def __init__(self, cfg: Any, clock: Any, pace: Pace = QUICK) -> None:
        self.stop = threading.Event()
        self.thread = threading.Thread(
            target=serve, args=(cfg,), kwargs={"stop": self.stop, "clock": clock, "pace": pace}, daemon=True
        )

    def __enter__(self) -> Running:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(60)
        assert not self.thread.is_alive(), "the daemon did not stop"


@pytest.mark.parametrize("hidden", [("MOVE",), ("MOVE", "UIDPLUS")], ids=["no MOVE", "no MOVE or UIDPLUS"])
def test_a_server_without_move_gets_copy_and_expunge(tmp_path: Path, imap: Any, smtp: Any, hidden: tuple) -> None:
    tap = ImapTap(imap.port, hide=hidden).start()
    try:
        cfg, clock = make_config(tmp_path, tap, smtp), Clock()
        new_game(cfg, clock)
        send(imap, "France", "A par - bur")
        send(imap, "England", "F lon - nth")
        picture = b"From: eve@players.test\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0K\n"
        imap.append("judge", picture)  # not text: to the rejected folder, by the same path
        assert serve(cfg, once=True, clock=clock) == 0
    finally:
        tap.stop()
    assert "UID MOVE" not in tap.commands and "MOVE" not in tap.commands
    assert "UID COPY" in tap.commands and "UID STORE" in tap.commands
    if "UIDPLUS" in hidden:  # EXPUNGE (all \Deleted mail in the folder: only what the judge marked)
        assert "EXPUNGE" in tap.commands and "UID EXPUNGE" not in tap.commands
    else:
        assert "UID EXPUNGE" in tap.commands and "EXPUNGE" not in tap.commands
    assert folder_uids(imap, "INBOX") == []
    assert len(folder_uids(imap, "Processed")) == 2 and len(folder_uids(imap, "Rejected")) == 1
    assert replied(smtp, "France", "A par - bur") and replied(smtp, "England", "F lon - nth")
    game = records.load_game(open_db(cfg.db), "g")
    assert game is not None
    assert records.orders_of(open_db(cfg.db), game.id, "S1901M") == {
        "France": ["A par - bur"],
        "England": ["F lon - nth"],
    }


@pytest.mark.parametrize("why", ["server without IDLE", "idle = false"])
def test_without_idle_the_daemon_polls(tmp_path: Path, imap: Any, smtp: Any, why: str) -> None:
    tap = ImapTap(imap.port, hide=("IDLE",) if why == "server without IDLE" else ()).start()
    try:
        cfg, clock = make_config(tmp_path, tap, smtp), Clock()  # polled every 0.1 s by Running's pace
        if why == "idle = false":
            assert cfg.imap is not None
            cfg = dataclasses.replace(cfg, imap=dataclasses.replace(cfg.imap, idle=False))
        new_game(cfg, clock)
        with Running(cfg, clock):
            send(imap, "France", "A par - bur")
            wait_for(lambda: replied(smtp, "France", "A par - bur"))
            looked = tap.count("UID SEARCH")
            send(imap, "England", "F lon - nth")  # arrives while it waits: found by its next look
            wait_for(lambda: replied(smtp, "England", "F lon - nth"))
            assert tap.count("UID SEARCH") > looked
    finally:
        tap.stop()
    assert "IDLE" not in tap.commands
    assert tap.connections == 1  # polling on one connection, never dropped
    assert folder_uids(imap, "INBOX") == []


def _renumber(server: EmbeddedImap, user: str = "judge") -> EmbeddedImap:
    """Restart pymap with the user's INBOX given a new UIDVALIDITY and its UIDs handed out again from 1 (as a server
    does whose index was lost or rebuilt)."""
    server.stop()
    uidlist = server.root / user / "dovecot-uidlist"
    header = uidlist.read_text().splitlines()[0]
    validity = int(re.search(r" V(\d+)", header).group(1))  # type: ignore[union-attr]
    guid = re.search(r" G(\S+)", header).group(1)  # type: ignore[union-attr]
    uidlist.write_text(f"3 V{validity % 4_000_000_000 + 1} N1 G{guid}\r\n")  # no records: renumbered at start
    again = EmbeddedImap(server.root, server.users, server.password)
    again.port = server.port
    return again.start()


def test_a_uidvalidity_change_rescans_the_mailbox_and_handles_each_message_once(
    tmp_path: Path, smtp: Any, caplog: pytest.LogCaptureFixture
) -> None:
    server = start_imap("pymap", tmp_path / "imap")
    try:
        cfg, clock = make_config(tmp_path, server, smtp), Clock()
        new_game(cfg, clock)
        db = open_db(cfg.db)
        send(server, "France", "A par - bur")
        send(server, "England", "F lon - nth")
        assert serve(cfg, once=True, clock=clock) == 0  # UIDs 1 and 2, handled and moved
        send(server, "Germany", "A mun - ruh")  # UID 3: handled, then a crash before it is moved
        inbox = Inbox(cfg.imap)  # type: ignore[arg-type]
        inbox.open()
        old_validity = inbox.uidvalidity
        inbox.move = lambda *a: None  # type: ignore[method-assign]
        inbox.move_many = lambda *a: None  # type: ignore[method-assign]
        assert handle_new_mail(db, inbox, clock, cfg.address, 30) == 1
        inbox.drop()
        assert len(folder_uids(server, "INBOX")) == 1
        server = _renumber(server)
        send(server, "Russia", "A mos - ukr")  # UID 2 in the new numbering: below the last UID handled (3)
        client = server.client("judge")
        selected = client.select_folder("INBOX", readonly=True)
        client.logout()
        new_validity = int(selected[b"UIDVALIDITY"])
        assert new_validity != old_validity and selected[b"UIDNEXT"] == 3
        with caplog.at_level(logging.WARNING):
            assert serve(cfg, once=True, clock=clock) == 0
        assert "UIDVALIDITY changed" in caplog.text
        (state,) = db.query("select uidvalidity, last_uid from mailbox_state")
        assert (state["uidvalidity"], state["last_uid"]) == (new_validity, 2)  # the position in the new numbering
        assert folder_uids(server, "INBOX") == [] and len(folder_uids(server, "Processed")) == 4
    finally:
        server.stop()
    game = records.load_game(db, "g")
    assert game is not None
    assert records.orders_of(db, game.id, "S1901M") == {
        "France": ["A par - bur"],
        "England": ["F lon - nth"],
        "Germany": ["A mun - ruh"],
        "Russia": ["A mos - ukr"],
    }
    assert db.execute("select count(*) from messages").fetchone()[0] == 4  # Germany's not handled twice
    assert len([m for m in smtp.to(addr("Germany")) if m["Subject"].startswith("Re:")]) == 1
    assert replied(smtp, "Russia", "A mos - ukr")


def test_bye_during_idle_reconnects_and_reads_on(
    tmp_path: Path, imap: Any, smtp: Any, caplog: pytest.LogCaptureFixture
) -> None:
    tap = ImapTap(imap.port).start()
    tap.bye_on_idle = 1  # the first IDLE: the go-ahead, then BYE and the connection closed
    try:
        cfg, clock = make_config(tmp_path, tap, smtp), Clock()
        new_game(cfg, clock)
        with caplog.at_level(logging.INFO), Running(cfg, clock):
            tap.wait_until(lambda t: t.byes == 1 and t.waiting_in_idle())  # BYE heard; in IDLE again since
            assert tap.connections == 2
            send(imap, "France", "A par - bur")
            wait_for(lambda: replied(smtp, "France", "A par - bur"))
    finally:
        tap.stop()
    assert "while waiting" in caplog.text  # one line for a passing error...
    assert "Traceback" not in caplog.text and not [r for r in caplog.records if r.exc_info]  # ...not a traceback
    assert folder_uids(imap, "INBOX") == [] and len(folder_uids(imap, "Processed")) == 1


class Scripted:
    """aiosmtpd handler answering by a script: the n-th MAIL of the whole run, or a recipient at RCPT or at DATA,
    gets the reply given (each once); everything else is accepted and kept with the session that carried it."""

    def __init__(self, mail: dict[int, str], rcpt: dict[str, str], data: dict[str, str]) -> None:
        self.mail, self.rcpt, self.data = dict(mail), dict(rcpt), dict(data)
        self.mails = 0
        self.accepted: list[tuple[str, int]] = []  # (recipient, session)

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        self.mails += 1
        if self.mails in self.mail:
            return self.mail.pop(self.mails)
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address in self.rcpt:
            return self.rcpt.pop(address)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        (to,) = envelope.rcpt_tos
        if to in self.data:
            return self.data.pop(to)
        self.accepted.append((to, id(session)))
        return "250 OK"


def test_smtp_refusals_in_the_middle_of_a_batch(tmp_path: Path) -> None:
    handler = Scripted(
        mail={2: "451 4.7.1 greylisted, try again later"},
        rcpt={addr("Italy"): "421 4.3.2 closing the connection"},
        data={addr("France"): "452 4.3.1 insufficient storage", addr("Germany"): "554 5.6.0 content refused"},
    )
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    imap = start_imap("pymap", tmp_path / "imap")
    try:
        cfg, clock = make_config(tmp_path, imap, SmtpSink(port)), Clock()
        new_game(cfg, clock)  # seven "has started" mails, queued in this order
        db = open_db(cfg.db)
        order = [r["to_addr"] for r in db.query("select to_addr from outbox order by id")]
        assert len(order) == 7 and addr("Italy") in order
        cut = order.index(addr("Italy"))
        greylisted = order[1]  # the second MAIL of the batch
        assert greylisted not in (addr("France"), addr("Germany"), addr("Italy"))  # what the script assumes
        assert order.index(addr("France")) < cut and order.index(addr("Germany")) < cut < 6
        assert serve(cfg, once=True, clock=clock) == 1  # the outbox step failed: the server closed the connection
        rows = {r["to_addr"]: r for r in db.query("select * from outbox")}
        assert rows[addr("Germany")]["status"] == "failed" and "554" in rows[addr("Germany")]["last_error"]
        for deferred, code in ((addr("France"), "452"), (addr("Italy"), "421"), (greylisted, "451")):
            assert rows[deferred]["status"] == "queued" and rows[deferred]["attempts"] == 1, deferred
            assert rows[deferred]["last_error"].startswith(code)
        untouched = order[cut + 1 :]  # after the 421: still queued as they were, tried at the next round
        assert all(rows[a]["status"] == "queued" and rows[a]["attempts"] == 0 for a in untouched)
        first = {to for to, _ in handler.accepted}
        assert first == set(order[:cut]) - {greylisted, addr("France"), addr("Germany")}
        assert len({session for _, session in handler.accepted}) == 1  # refusals did not end the connection
        assert serve(cfg, once=True, clock=clock) == 0
        assert {to for to, _ in handler.accepted} == first | set(untouched)
        clock.advance(minutes=10)  # the deferred ones are due again; the server takes them now
        assert serve(cfg, once=True, clock=clock) == 0
        received = [to for to, _ in handler.accepted]
        assert sorted(received) == sorted(set(order) - {addr("Germany")})  # each once; the refused one never
        rows = {r["to_addr"]: r for r in db.query("select * from outbox")}
        assert {a: r["status"] for a, r in rows.items()} == {
            a: "failed" if a == addr("Germany") else "sent" for a in order
        }
    finally:
        imap.stop()
        controller.stop()


def test_refused_logins_keep_the_game_going_and_mail_flows_once_they_are_right(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The IMAP server refuses the login (a wrong password) and the SMTP server refuses AUTH (535): deadlines are
    still kept, the results wait in the outbox, each round says it failed in one line with no password in it; with
    the right passwords everything waiting goes, once."""
    from aiosmtpd.smtp import AuthResult, LoginPassword

    sink = Scripted({}, {}, {})

    def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (b"judge", b"smtp-right")
        return AuthResult(success=ok, handled=False)  # handled=False: the client hears 535

    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port, authenticator=authenticate, auth_require_tls=False)
    controller.start()
    imap = start_imap("pymap", tmp_path / "imap")
    try:
        right, clock = make_config(tmp_path, imap, SmtpSink(port)), Clock()
        assert right.imap is not None and right.smtp is not None
        wrong = dataclasses.replace(
            right,
            imap=dataclasses.replace(right.imap, password="imap-wrong"),
            smtp=dataclasses.replace(right.smtp, username="judge", password="smtp-wrong"),
        )
        new_game(wrong, clock)
        send(imap, "France", "A par - bur")
        clock.advance(hours=1, seconds=1)  # the deadline passes while neither server lets the judge in
        with caplog.at_level(logging.INFO):
            assert serve(wrong, once=True, clock=clock) == 1
        game = records.load_game(open_db(right.db), "g")
        assert game is not None and game.phase == "F1901M"  # adjudicated on time all the same
        assert sink.accepted == [] and len(folder_uids(imap, "INBOX")) == 1
        failures = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert any(m.startswith("mail: ") for m in failures) and any(m.startswith("outbox: ") for m in failures)
        assert "wrong" not in caplog.text and not [r for r in caplog.records if r.exc_info]  # one line, no secret
        fixed = dataclasses.replace(
            right, smtp=dataclasses.replace(right.smtp, username="judge", password="smtp-right")
        )
        assert serve(fixed, once=True, clock=clock) == 0
        assert folder_uids(imap, "INBOX") == []
        received = Counter(to for to, _ in sink.accepted)  # the start and the results to each, France's reply
        assert received == {addr(p): 3 if p == "France" else 2 for p in POWERS}
    finally:
        imap.stop()
        controller.stop()
