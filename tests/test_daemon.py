"""The mail daemon against real servers on 127.0.0.1: pymap and Dovecot for IMAP, aiosmtpd for SMTP.

A whole game by mail with deadlines and with an early all-ready resolution; exactly-once handling; faults: a crash
between fetch and commit and between commit and move, a SIGKILLed daemon, the SMTP server down at a deadline, the IMAP
server restarted while the daemon waits in IDLE.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from gamekit import raw_mail, reuse_built
from mailservers import PASSWORD, ImapTap, Sink, SmtpSink, folder_uids, start_imap, wait_for, write_config

from judge.config import Config, ImapConfig, SmtpConfig, WebConfig
from judge.game import records, service
from judge.game.settings import GameSettings
from judge.store import open_db
from judge.transport.daemon import Backoff, Pace, serve
from judge.transport.imap import Inbox, handle_new_mail

# the daemon's pace in the tests that run it in a thread: a reconnect after 0.05 s (doubling), a look for mail every
# 0.1 s, instead of the real 1 s and the configured poll_seconds (1 in make_config)
QUICK = Pace(first_backoff=0.05, poll_seconds=0.1)
# only the backoff quicker: for a test about a wait in IDLE, which a short poll would end (and renew) ten times a second
QUICK_RECONNECT = Pace(first_backoff=0.05)

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
SERVERS = [
    "pymap",
    pytest.param(
        "dovecot", marks=pytest.mark.skipif(shutil.which("dovecot") is None, reason="dovecot is not installed")
    ),
]


def text_of(msg: Any) -> str:
    """The plain-text part of a mail the judge sent (results are multipart)."""
    return msg.get_body(preferencelist=("plain",)).get_content()


def addr(power: str) -> str:
    return f"{power.lower()}@players.test"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kw: float) -> None:
        self.now += timedelta(**kw)


@pytest.fixture(params=SERVERS)
def imap(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    server = start_imap(request.param, tmp_path / "imap")
    yield server
    server.stop()


def make_config(tmp_path: Path, imap: Any, smtp: Any) -> Config:
    return Config(
        address="judge@judge.test",
        db=str(tmp_path / "judge.db"),
        imap=ImapConfig(
            host="127.0.0.1",
            port=imap.port,
            security="none",
            username="judge",
            password=PASSWORD,
            poll_seconds=1,
            timeout=20,
        ),
        smtp=SmtpConfig(host="127.0.0.1", port=smtp.port, security="none", timeout=20),
    )


def new_game(cfg: Config, clock: Callable[[], datetime]) -> None:
    """The classic game "g" started at the clock's time in the configured database (one for the run and each start
    time, copied into the test's file, where the clock is a fixed :class:`Clock`)."""
    db = open_db(cfg.db)
    if isinstance(clock, Clock):
        now = clock.now
        if reuse_built(
            db, ("test_daemon.new_game", now.isoformat()), lambda path: _start_game(open_db(path), lambda: now)
        ):
            return
    _start_game(db, clock)


def _start_game(db: Any, clock: Callable[[], datetime]) -> None:
    with db.atomic():
        service.create_game(
            db,
            "g",
            "classic",
            GameSettings(movement_deadline=3600, retreat_deadline=1800, adjustment_deadline=1800),
            clock(),
        )
        for power in POWERS:
            service.join_game(db, "g", addr(power), f"pw-{power}", clock(), power=power)
        service.start_game(db, "g", clock(), random.Random(1))


def send(imap: Any, power: str, *lines: str) -> None:
    body = "\n".join([f"SIGNON {power} g pw-{power}", *lines])
    imap.append("judge", raw_mail(addr(power), body, subject=f"orders from {power}"))


def phase(cfg: Config) -> str | None:
    game = records.load_game(open_db(cfg.db), "g")
    assert game is not None
    return game.phase


def test_game_by_mail_with_deadlines_and_early_resolution(tmp_path: Path, imap: Any, smtp: Any) -> None:
    cfg, clock = make_config(tmp_path, imap, smtp), Clock()
    new_game(cfg, clock)
    assert serve(cfg, once=True, clock=clock) == 0
    assert len([m for m in smtp.sink.messages if "has started" in m["Subject"]]) == 7
    send(imap, "France", "A par - bur", "A mar - spa", "F bre - mao")
    send(imap, "Germany", "A mun - bur", "A ber - kie")
    serve(cfg, once=True, clock=clock)
    reply = smtp.to(addr("France"))[-1]
    assert reply["Subject"].startswith("Re:") and "OK: A par - bur" in text_of(reply)
    assert reply["Auto-Submitted"] == "auto-replied" and reply["In-Reply-To"]
    assert reply["List-Id"] and "g." in reply["List-Id"]
    assert folder_uids(imap, "INBOX") == [] and len(folder_uids(imap, "Processed")) == 2
    assert phase(cfg) == "S1901M"
    clock.advance(hours=1, seconds=1)  # the deadline passes: adjudicated with what was sent
    serve(cfg, once=True, clock=clock)
    assert phase(cfg) == "F1901M"
    results = [m for m in smtp.sink.messages if "results of Spring 1901" in m["Subject"]]
    assert sorted(m["To"] for m in results) == sorted(addr(p) for p in POWERS)
    assert "A mun - bur" in text_of(results[0]) and "bounced" in text_of(results[0])
    for power in POWERS:  # everyone ready: resolved at once, long before the deadline
        send(imap, power, "READY")
    clock.advance(minutes=5)
    serve(cfg, once=True, clock=clock)
    assert phase(cfg) in ("W1901A", "S1902M")
    assert len([m for m in smtp.sink.messages if "results of Fall 1901" in m["Subject"]]) == 7
    before = len(smtp.sink.messages)
    serve(cfg, once=True, clock=clock)  # nothing new: nothing handled or sent twice
    assert len(smtp.sink.messages) == before


def test_crash_between_fetch_and_commit_and_between_commit_and_move(tmp_path: Path, imap: Any, smtp: Any) -> None:
    cfg, clock = make_config(tmp_path, imap, smtp), Clock()
    new_game(cfg, clock)
    db = open_db(cfg.db)
    send(imap, "France", "A par - bur")
    inbox = Inbox(cfg.imap)  # type: ignore[arg-type]
    inbox.open()
    uid = inbox.new_uids(0)[0]
    inbox.fetch(uid)  # fetched, then the daemon dies before it commits anything
    inbox.drop()
    send(imap, "England", "F lon - nth")
    inbox.open()  # a new daemon: both messages are handled once each and moved
    assert handle_new_mail(db, inbox, clock, cfg.address, 30) == 2
    inbox.drop()
    # commit without the move: handled and recorded, but the message stays in the INBOX (a crash before MOVE)
    send(imap, "Germany", "A mun - ruh")
    inbox.open()
    uid = inbox.new_uids(0)[-1]
    raw, _ = inbox.fetch(uid)
    from judge.commands.handler import handle_message

    with db.atomic():
        handle_message(db, raw, clock(), judge_address=cfg.address)
        db.table("mailbox_state").upsert(
            {"account": inbox.account, "uidvalidity": inbox.uidvalidity, "last_uid": uid, "updated_at": "x"},
            pk="account",
        )
    inbox.drop()
    inbox.open()
    assert handle_new_mail(db, inbox, clock, cfg.address, 30) == 0  # not handled again...
    inbox.drop()
    assert folder_uids(imap, "INBOX") == []  # ...but tidied into Processed
    assert len(folder_uids(imap, "Processed")) == 3
    game = records.load_game(db, "g")
    assert game is not None
    assert records.orders_of(db, game.id, "S1901M") == {
        "France": ["A par - bur"],
        "England": ["F lon - nth"],
        "Germany": ["A mun - ruh"],
    }
    assert len(list(db.query("select * from messages"))) == 3


@pytest.mark.slow
def test_sigkilled_daemon_loses_and_doubles_nothing(tmp_path: Path, imap: Any, smtp: Any) -> None:
    cfg, clock = make_config(tmp_path, imap, smtp), Clock()
    new_game(cfg, clock)
    config_file = write_config(tmp_path / "judge.toml", imap, smtp, cfg.db, imap_extra="poll_seconds = 1")
    orders = {"France": "A par - ", "Germany": "A mun - ", "England": "F lon - ", "Italy": "A ven - "}
    places = {"France": ("bur", "pic"), "Germany": ("ruh", "bur"), "England": ("nth", "eng"), "Italy": ("tyr", "pie")}
    n = 48  # 12 from each of four players: each under the cap on replies an hour, so each message is answered
    for i in range(n):
        power = list(orders)[i % 4]
        imap.append(
            "judge",
            raw_mail(
                addr(power),
                f"SIGNON {power} g pw-{power}\n{orders[power]}{places[power][i // 4 % 2]}",
                message_id=f"<kill{i}@players.test>",
            ),
        )
    db = open_db(cfg.db)
    at_kill = [0]
    for _ in range(3):  # kill it mid-work a few times: each time once this daemon has handled 4 messages more
        target = at_kill[-1] + 4
        proc = subprocess.Popen(
            [sys.executable, "-m", "judge.cli", "serve", "--config", str(config_file)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=Path(__file__).parent.parent,
        )
        end = time.monotonic() + 120
        try:  # a message takes milliseconds: look often, so that the kill lands soon after the target
            while _count(db, "messages") < target and proc.poll() is None:
                assert time.monotonic() < end, f"timed out: {at_kill}"
                time.sleep(0.002)
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            assert proc.wait(10) == -signal.SIGKILL  # killed, not ended on its own
        at_kill.append(_count(db, "messages"))
    assert at_kill == sorted(set(at_kill)) and at_kill[-1] < n, at_kill  # each kill landed in the middle of the work
    done = subprocess.run(
        [sys.executable, "-m", "judge.cli", "serve", "--config", str(config_file), "--once"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).parent.parent,
    )
    assert done.returncode == 0, done.stderr
    handled = [r["message_id"] for r in db.query("select message_id from messages")]
    assert sorted(handled) == sorted(f"kill{i}@players.test" for i in range(n))  # each exactly once
    assert folder_uids(imap, "INBOX") == [] and len(folder_uids(imap, "Processed")) == n
    # every message got exactly one reply queued; the last --once run sent every one that was still queued
    rows = list(db.query("select in_reply_to, status from outbox where in_reply_to is not null"))
    assert sorted(r["in_reply_to"] for r in rows) == sorted(f"kill{i}@players.test" for i in range(n))
    assert {r["status"] for r in rows} == {"sent"}
    replies = {m["In-Reply-To"] for m in smtp.sink.messages if m["Subject"].startswith("Re:")}
    assert replies == {f"<kill{i}@players.test>" for i in range(n)}  # none lost (a kill between the server's
    # acceptance and the "sent" mark could repeat one: SMTP cannot be exactly-once, the handling is)


def test_smtp_down_at_a_deadline_then_back(tmp_path: Path, imap: Any) -> None:
    port = SmtpSink().port
    down_cfg = make_config(tmp_path, imap, SmtpSink(port))
    clock = Clock()
    new_game(down_cfg, clock)
    clock.advance(hours=1, seconds=1)
    serve(down_cfg, once=True, clock=clock)  # adjudicates; every mail waits in the outbox
    assert phase(down_cfg) == "F1901M"
    db = open_db(down_cfg.db)
    queued = list(db.query("select * from outbox where status = 'queued'"))
    # an unreachable server is the daemon's to retry (capped backoff); the mails themselves are not deferred
    assert len(queued) == 7 + 7 and all(r["attempts"] == 0 for r in queued)
    assert serve(down_cfg, once=True, clock=clock) == 1  # still down: the round says so
    sink = SmtpSink(port).start()
    try:
        assert serve(down_cfg, once=True, clock=clock) == 0
        subjects = sorted((m["To"], m["Subject"]) for m in sink.sink.messages)
        assert len(subjects) == 14 and len(set(subjects)) == 14  # every report exactly once
        serve(down_cfg, once=True, clock=clock)
        assert len(sink.sink.messages) == 14
    finally:
        sink.stop()


def test_imap_restarted_while_the_daemon_idles(tmp_path: Path, smtp: Any) -> None:
    from mailservers import start_imap as start

    server = start("pymap", tmp_path / "imap")
    tap = ImapTap(server.port).start()  # the daemon connects through it: the test sees when it is in IDLE
    cfg = make_config(tmp_path, tap, smtp)
    clock = Clock()
    new_game(cfg, clock)
    stop = threading.Event()
    daemon = threading.Thread(
        target=serve, args=(cfg,), kwargs={"stop": stop, "clock": clock, "pace": QUICK_RECONNECT}, daemon=True
    )
    daemon.start()
    try:
        send(server, "France", "A par - bur")
        wait_for(lambda: any("OK: A par - bur" in text_of(m) for m in smtp.to(addr("France"))), 30)
        tap.wait_until(lambda t: t.waiting_in_idle())
        server.stop()  # in the middle of its IDLE
        tap.wait_until(lambda t: t.unreachable >= 1)  # it noticed, and tried again while the server was down
        server = _restart_pymap(server)
        send(server, "England", "F lon - nth")
        wait_for(lambda: any("OK: F lon - nth" in text_of(m) for m in smtp.to(addr("England"))), 60)
    finally:
        stop.set()
        daemon.join(30)
        tap.stop()
        server.stop()
    assert not daemon.is_alive()


def test_stop_ends_a_wait_in_idle_at_once(tmp_path: Path, smtp: Any, caplog: pytest.LogCaptureFixture) -> None:
    server = start_imap("pymap", tmp_path / "imap")
    tap = ImapTap(server.port).start()
    cfg = make_config(tmp_path, tap, smtp)
    assert cfg.imap is not None
    cfg = dataclasses.replace(cfg, imap=dataclasses.replace(cfg.imap, poll_seconds=60))  # an IDLE lasts a minute
    new_game(cfg, Clock())
    stop = threading.Event()
    daemon = threading.Thread(target=serve, args=(cfg,), kwargs={"stop": stop}, daemon=True)
    try:
        with caplog.at_level(logging.INFO, logger="judge"):
            daemon.start()
            tap.wait_until(lambda t: t.waiting_in_idle())
            stop.set()
            daemon.join(10)
            assert not daemon.is_alive()  # ended well before the IDLE's minute was up
    finally:
        stop.set()
        daemon.join(60)
        tap.stop()
        server.stop()
    assert "while waiting" not in caplog.text  # cut short on purpose: no error to report


def test_idle_responses_split_byte_by_byte_are_read_whole(
    tmp_path: Path, imap: Any, smtp: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A server whose every response reaches the daemon a byte at a time (a slow or lossy network): the mail
    announced in IDLE is read, on the one connection, without a warning. imapclient's idle_check lost or cut short
    such responses, and the daemon reconnected each time ("abort while waiting: unexpected response: b'FLAGS ())'")."""
    tap = ImapTap(imap.port, split=True).start()
    cfg = make_config(tmp_path, tap, smtp)
    assert cfg.imap is not None
    cfg = dataclasses.replace(cfg, imap=dataclasses.replace(cfg.imap, poll_seconds=60))  # only IDLE says mail came
    clock = Clock()
    new_game(cfg, clock)
    stop = threading.Event()
    daemon = threading.Thread(
        target=serve, args=(cfg,), kwargs={"stop": stop, "clock": clock, "pace": QUICK_RECONNECT}, daemon=True
    )
    orders = {"France": "A par - bur", "England": "F lon - nth", "Germany": "A mun - ruh"}
    try:
        with caplog.at_level(logging.INFO, logger="judge"):
            daemon.start()
            for power, order in orders.items():
                tap.wait_until(lambda t: t.waiting_in_idle())
                send(imap, power, order)  # arrives while the daemon waits in IDLE
                wait_for(lambda p=power, o=order: any(f"OK: {o}" in text_of(m) for m in smtp.to(addr(p))), 30)
            stop.set()
            daemon.join(30)
    finally:
        stop.set()
        daemon.join(30)
        tap.stop()
    assert not daemon.is_alive()
    assert tap.count("LOGIN") == 1  # never reconnected
    assert tap.count("IDLE") >= len(orders)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


class _HeldSink(Sink):
    """An SMTP server whose first DATA waits until the test lets it answer: the daemon is kept in the middle of
    sending while the test does something."""

    def __init__(self) -> None:
        super().__init__()
        self.sending = threading.Event()  # the first mail's DATA has arrived and waits for its answer
        self.answer = threading.Event()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        import asyncio

        self.sending.set()
        await asyncio.get_running_loop().run_in_executor(None, self.answer.wait, 30)
        return await super().handle_DATA(server, session, envelope)


def test_mail_that_arrives_while_the_daemon_sends_is_read_without_waiting_for_the_next_look(tmp_path: Path) -> None:
    """A server need not announce in IDLE mail that came before the IDLE began: after a round that read or sent mail
    the daemon looks again at once, instead of waiting in IDLE for poll_seconds (here a minute) to pass."""
    from aiosmtpd.controller import Controller

    from judge.transport.embedded import free_port

    server = start_imap("pymap", tmp_path / "imap")
    tap = ImapTap(server.port).start()
    tap.mute_idle = True  # a server that never tells a client in IDLE of new mail
    sink = _HeldSink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    cfg = make_config(tmp_path, tap, controller)
    assert cfg.imap is not None
    cfg = dataclasses.replace(cfg, imap=dataclasses.replace(cfg.imap, poll_seconds=60))
    clock = Clock()
    new_game(cfg, clock)
    stop = threading.Event()
    daemon = threading.Thread(
        target=serve, args=(cfg,), kwargs={"stop": stop, "clock": clock, "pace": QUICK_RECONNECT}, daemon=True
    )
    try:
        send(server, "France", "A par - bur")
        daemon.start()
        assert sink.sending.wait(30)  # the reply to France is being sent
        send(server, "England", "F lon - nth")  # arrives in the middle of the send
        sink.answer.set()
        wait_for(lambda: any("OK: F lon - nth" in text_of(m) for m in sink.messages if m["To"] == addr("England")), 20)
    finally:
        sink.answer.set()
        stop.set()
        daemon.join(30)
        controller.stop()
        tap.stop()
        server.stop()
    assert not daemon.is_alive()


def test_the_backoff_starts_at_the_pace_given_and_doubles() -> None:
    backoff = Backoff(0.05)
    pauses = [backoff.failed() for _ in range(3)]
    for pause, base in zip(pauses, (0.05, 0.1, 0.2), strict=True):
        assert base * 0.8 <= pause <= base * 1.2  # ±20 % jitter
    assert not backoff.ready() and 0 < backoff.remaining() <= 0.24
    backoff.ok()
    assert backoff.ready() and backoff.failures == 0
    assert 0.8 <= Backoff().failed() <= 1.2  # a host's: 1 s
    with pytest.raises(ValueError, match="positive"):
        Pace(first_backoff=0)
    with pytest.raises(ValueError, match="positive"):
        Pace(poll_seconds=0)


def _restart_pymap(old: Any) -> Any:
    from judge.transport.embedded import EmbeddedImap

    new = EmbeddedImap(old.root, old.users, old.password)
    new.port = old.port
    return new.start()


def _count(db: Any, table: str) -> int:
    return int(db.execute(f"select count(*) from {table}").fetchone()[0])


def test_the_daemon_writes_the_public_archive_after_each_adjudication(tmp_path: Path, smtp: Any) -> None:
    server = start_imap("pymap", tmp_path / "imap")
    try:
        cfg, clock = make_config(tmp_path, server, smtp), Clock()
        web = tmp_path / "web"
        cfg = dataclasses.replace(cfg, web=WebConfig(dir=str(web), base_url="https://example.org/dip"))
        new_game(cfg, clock)
        serve(cfg, once=True, clock=clock)
        assert 'id="S1901M"' in (web / "g" / "index.html").read_text(encoding="utf-8")  # the board now
        send(server, "France", "A par - bur")
        send(server, "Germany", "A mun - bur")
        serve(cfg, once=True, clock=clock)
        clock.advance(hours=1, seconds=1)  # the deadline passes
        serve(cfg, once=True, clock=clock)
        page = (web / "g" / "index.ru.html").read_text(encoding="utf-8")
        assert 'id="F1901M"' in page and "<td>A par - bur<td" in page
        results = [m for m in smtp.sink.messages if "results of Spring 1901" in m["Subject"]]
        assert results and "https://example.org/dip/g/" in text_of(results[0])
    finally:
        server.stop()
