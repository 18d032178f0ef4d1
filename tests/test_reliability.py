"""A daemon a host can leave alone, against real servers on 127.0.0.1 (pymap, Dovecot, aiosmtpd).

One daemon per database (the lock), deadlines that never wait for the mail servers, decisions re-checked inside
their transaction, SMTP refusals (4xx then 5xx, the delivery limit, the game master's digest), mail that cannot be
fetched or handled, and `judge mail handle` on the daemon's path.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from gamekit import raw_mail
from mailservers import PASSWORD, ImapTap, SmtpSink, folder_uids, start_imap, wait_for
from test_daemon import POWERS, QUICK, Clock, addr, make_config, new_game, phase, send, text_of

from judge.config import Config, ImapConfig, SmtpConfig
from judge.game import master, records, service
from judge.store import open_db, write
from judge.transport import imap as imap_in
from judge.transport.daemon import ServeLock, serve, utcnow
from judge.transport.embedded import EmbeddedImap, free_port
from judge.transport.imap import Inbox, handle_new_mail


@pytest.fixture
def imap(tmp_path: Path) -> Any:
    server = start_imap("pymap", tmp_path / "imap")
    yield server
    server.stop()


def test_a_second_serve_on_the_same_database_says_so_and_exits_0(
    tmp_path: Path, imap: Any, smtp: Any, caplog: pytest.LogCaptureFixture
) -> None:
    cfg, clock = make_config(tmp_path, imap, smtp), Clock()
    new_game(cfg, clock)
    send(imap, "France", "A par - bur")
    held = ServeLock(cfg.db)
    assert held.acquire()
    try:
        with caplog.at_level(logging.WARNING, logger="judge"):
            assert serve(cfg, once=True, clock=clock) == 0
        assert "another judge serve is running" in caplog.text
        assert len(folder_uids(imap, "INBOX")) == 1 and smtp.sink.messages == []  # it touched nothing
    finally:
        held.release()
    assert serve(cfg, once=True, clock=clock) == 0  # the lock is free again
    assert folder_uids(imap, "INBOX") == [] and smtp.to(addr("France"))


def test_deadline_passes_with_imap_and_smtp_down_and_mail_flows_when_they_return(tmp_path: Path) -> None:
    imap_port, smtp_port = free_port(), free_port()
    cfg = Config(
        address="judge@judge.test",
        db=str(tmp_path / "judge.db"),
        imap=ImapConfig(
            host="127.0.0.1",
            port=imap_port,
            security="none",
            username="judge",
            password=PASSWORD,
            poll_seconds=1,
            timeout=5,
        ),
        smtp=SmtpConfig(host="127.0.0.1", port=smtp_port, security="none", timeout=5),
    )
    clock = Clock()
    new_game(cfg, clock)
    stop = threading.Event()
    daemon = threading.Thread(
        target=serve, args=(cfg,), kwargs={"stop": stop, "clock": clock, "pace": QUICK}, daemon=True
    )
    daemon.start()
    imap_server = sink = None
    try:
        clock.advance(hours=1, seconds=1)  # the deadline passes while neither mail server answers
        wait_for(lambda: phase(cfg) == "F1901M", 30)  # adjudicated on time all the same
        db = open_db(cfg.db)
        assert len(list(db.query("select 1 from outbox where status != 'sent' and subject like '%results%'"))) == 7
        sink = SmtpSink(smtp_port).start()  # SMTP back: the results go out (reconnect backoff is capped)
        wait_for(lambda: len([m for m in sink.sink.messages if "results of" in m["Subject"]]) == 7, 60)
        imap_server = EmbeddedImap(tmp_path / "imap", ["judge"], PASSWORD)
        imap_server.port = imap_port
        imap_server.start()  # IMAP back: order mail is read again
        send(imap_server, "France", "A par - bur")
        wait_for(lambda: any("OK: A par - bur" in text_of(m) for m in sink.to(addr("France"))), 60)
    finally:
        stop.set()
        daemon.join(30)
        if imap_server is not None:
            imap_server.stop()
        if sink is not None:
            sink.stop()
    assert not daemon.is_alive()
    subjects = [(m["To"], m["Subject"]) for m in sink.sink.messages]
    assert len(subjects) == len(set(subjects))  # nothing twice


class Refusing:
    """aiosmtpd handler: some recipients are deferred (451) a number of times, some refused for good (550)."""

    def __init__(self, deferred: dict[str, int], refused: set[str]) -> None:
        self.deferred, self.refused = dict(deferred), refused
        self.accepted: list[tuple[str, bytes]] = []

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address in self.refused:
            return "550 5.1.1 no such user"
        if self.deferred.get(address, 0) > 0:
            self.deferred[address] -= 1
            return "451 4.3.0 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        for rcpt in envelope.rcpt_tos:
            self.accepted.append((rcpt, envelope.original_content))
        return "250 OK"


def test_smtp_4xx_is_retried_with_backoff_5xx_fails_at_once_and_the_master_hears_once_an_hour(
    tmp_path: Path, imap: Any
) -> None:
    handler = Refusing({addr("France"): 2, addr("Italy"): 10_000}, {addr("Turkey")})
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        cfg, clock = make_config(tmp_path, imap, SmtpSink(port)), Clock()
        db = open_db(cfg.db)
        with write(db):
            import random

            from judge.game.settings import GameSettings

            service.create_game(
                db, "g", "classic", GameSettings(movement_deadline=10 * 86400, master="gm@judge.test"), clock()
            )
            for power in POWERS:
                service.join_game(db, "g", addr(power), f"pw-{power}", clock(), power=power)
            service.start_game(db, "g", clock(), random.Random(1))
        assert serve(cfg, once=True, clock=clock) == 0
        rows = {r["to_addr"]: r for r in db.query("select * from outbox")}
        assert rows[addr("Turkey")]["status"] == "failed" and "550" in rows[addr("Turkey")]["last_error"]
        assert rows[addr("France")]["status"] == "queued" and rows[addr("France")]["attempts"] == 1
        assert rows[addr("Austria")]["status"] == "sent"
        assert {r["message_id"] for r in rows.values()} and all(
            r["message_id"].endswith("@judge.test>") for r in rows.values()
        )  # fixed when queued
        first_id = rows[addr("France")]["message_id"]
        for _ in range(3):  # retries, each after its pause (30 s doubling, with jitter)
            clock.advance(minutes=3)
            serve(cfg, once=True, clock=clock)
        france = [raw for to, raw in handler.accepted if to == addr("France")]
        assert len(france) == 1 and first_id.encode() in france[0]  # the same Message-ID as when queued
        digests = [raw for to, raw in handler.accepted if to == "gm@judge.test" and b"could not be" in raw]
        assert len(digests) == 1 and addr("Turkey").encode() in digests[0]
        clock.advance(days=5, minutes=1)  # Italy is still deferred after the delivery limit: given up
        serve(cfg, once=True, clock=clock)
        italy = next(db.query("select * from outbox where to_addr = ?", [addr("Italy")]))
        assert italy["status"] == "failed" and "gave up after 5 days" in italy["last_error"]
        assert italy["body"]  # kept
        clock.advance(minutes=30)  # a second failure inside the hour: not reported yet
        serve(cfg, once=True, clock=clock)
        clock.advance(hours=1)
        serve(cfg, once=True, clock=clock)
        digests = [raw for to, raw in handler.accepted if to == "gm@judge.test" and b"could not be" in raw]
        assert len(digests) == 2 and addr("Italy").encode() in digests[1] and addr("Turkey").encode() not in digests[1]
    finally:
        controller.stop()


def test_a_message_that_cannot_be_handled_is_quarantined_and_the_inbox_moves_on(
    tmp_path: Path, imap: Any, smtp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg, clock = make_config(tmp_path, imap, smtp), Clock()
    new_game(cfg, clock)
    real = imap_in.handle_message

    def breaks_on_poison(db: Any, raw: bytes, now: Any, **kw: Any) -> Any:
        if b"POISON" in raw:
            raise UnicodeError("a fault no test input should reach")
        return real(db, raw, now, **kw)

    monkeypatch.setattr(imap_in, "handle_message", breaks_on_poison)
    send(imap, "England", "POISON")
    send(imap, "France", "A par - bur")
    assert serve(cfg, once=True, clock=clock) == 0
    assert len(folder_uids(imap, "Quarantine")) == 1 and len(folder_uids(imap, "Processed")) == 1
    db = open_db(cfg.db)
    (row,) = db.query("select * from quarantine")
    assert "UnicodeError" in row["reason"]
    assert any("OK: A par - bur" in text_of(m) for m in smtp.to(addr("France")))
    assert serve(cfg, once=True, clock=clock) == 0  # not tried again
    assert len(list(db.query("select * from quarantine"))) == 1


def test_a_uid_that_search_lists_and_fetch_does_not_is_skipped(tmp_path: Path, imap: Any, smtp: Any) -> None:
    cfg, clock = make_config(tmp_path, imap, smtp), Clock()
    new_game(cfg, clock)
    send(imap, "France", "A par - bur")
    send(imap, "England", "F lon - nth")

    class Gappy(Inbox):  # a server whose SEARCH lists a message its FETCH then does not return
        def new_uids(self, last_uid: int) -> list[int]:
            found = super().new_uids(last_uid)
            return sorted({*found, (min(found) if found else 1) + 500})

    inbox = Gappy(cfg.imap)  # type: ignore[arg-type]
    inbox.open()
    db = open_db(cfg.db)
    try:
        assert handle_new_mail(db, inbox, clock, cfg.address, 30) == 2
    finally:
        inbox.drop()
    game = records.load_game(db, "g")
    assert game is not None and set(records.orders_of(db, game.id, "S1901M")) == {"France", "England"}


def test_decisions_are_checked_again_inside_their_transaction(
    tmp_path: Path, imap: Any, smtp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg, clock = make_config(tmp_path, imap, smtp), Clock()
    new_game(cfg, clock)
    db = open_db(cfg.db)
    clock.advance(hours=1, seconds=1)
    chosen = service.due_games(db, clock())
    assert chosen == [("g", "S1901M")]
    with write(db):  # the game master extends after the daemon chose the game, before its transaction
        master.change_deadline(db, "g", clock(), by=timedelta(hours=2))
    monkeypatch.setattr(service, "due_games", lambda *a, **k: chosen)
    assert service.tick(db, clock()) == [] and phase(cfg) == "S1901M"  # the extension wins
    with write(db):  # ...and a `process` that adjudicated the phase in between
        service.process_game(db, "g", clock())
    assert service.tick(db, clock()) == [] and phase(cfg) == "F1901M"  # not adjudicated twice
    monkeypatch.undo()
    with write(db):  # a pause between choosing games to remind and reminding them: no crash, no reminder
        service.pause_game(db, "g", clock())
    assert service.remind(db, clock() + timedelta(hours=1, minutes=50)) == 0


def test_mail_handle_runs_the_daemons_path(
    tmp_path: Path, imap: Any, smtp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from mailservers import write_config

    from judge.cli import main

    cfg, clock = make_config(tmp_path, imap, smtp), Clock()
    new_game(cfg, clock)
    config = write_config(tmp_path / "judge.toml", imap, smtp, cfg.db)
    message = tmp_path / "m.eml"
    message.write_bytes(raw_mail(addr("France"), "SIGNON France g pw-France\nA par - bur", message_id="<h1@t>"))
    assert main(["mail", "handle", str(message), "--config", str(config), "--db", cfg.db]) == 0
    assert "OK: A par - bur" in capsys.readouterr().out
    assert main(["mail", "handle", str(message), "--config", str(config), "--db", cfg.db]) == 0
    assert "duplicate" in capsys.readouterr().out  # said, and nothing queued twice
    own = tmp_path / "own.eml"
    own.write_bytes(raw_mail("judge@judge.test", "HELP", message_id="<h2@t>"))
    assert main(["mail", "handle", str(own), "--config", str(config), "--db", cfg.db]) == 0
    out = capsys.readouterr().out
    assert "To:" not in out and "no reply" in out  # its own mail: a loop avoided, as in the daemon


def test_storage_is_pruned_by_age_and_the_records_stay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gamekit import Table

    from judge.cli import main
    from judge.store.upkeep import prune

    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "48h", reuse=True)
    t.reply(addr("France"), "SIGNON France g pw-France\nA par - bur")
    t.cli("game", "process", "g")
    db = t.db
    assert len(list(db.query("select * from pictures"))) == 2  # the start mail's map and the results' map
    assert prune(db, t.now).pictures == 0  # its mails still wait to be sent: the map stays
    with write(db):
        db.execute("update outbox set status = 'sent', sent_at = created_at")
    done = prune(db, t.now + timedelta(days=29))
    assert done.pictures == 2 and done.mail_bodies == 0  # sent: the maps go, the bodies stay a while
    mails = len(list(db.query("select 1 from outbox")))
    done = prune(db, t.now + timedelta(days=31))
    assert done.mail_bodies == mails - 1 and done.handled == 0  # the newest row stays: ids are never reused
    assert len(list(db.query("select 1 from outbox"))) == 1
    rows = list(db.query("select * from mail_log"))
    assert len(rows) == mails - 1  # the record of each
    assert all(
        r["to_addr"] and r["subject"] and r["message_id"] and r["sent_at"] and r["status"] == "sent" for r in rows
    )
    assert prune(db, t.now + timedelta(days=91)).handled == 1
    assert list(db.query("select 1 from phases"))  # the game's history is never pruned
    capsys.readouterr()
    assert main(["db", "stats", "--db", str(t.path)]) == 0
    out = capsys.readouterr().out
    assert "outbox" in out and "phases" in out and "total" in out


def _due_games(cfg: Config, games: int, master: str | None = None) -> None:
    """``games`` started classic games, all past their deadline, with one scrypt for every seat."""
    import random

    from judge.game.passwords import hash_password
    from judge.game.records import Player, insert_player
    from judge.game.settings import GameSettings

    db = open_db(cfg.db)
    clock = Clock()
    hashed = hash_password("pw")
    for i in range(games):
        with write(db):
            game = service.create_game(
                db, f"w{i}", "classic", GameSettings(movement_deadline=3600, master=master), clock()
            )
            for power in POWERS:
                insert_player(db, Player(0, game.id, power, f"{power.lower()}.{i}@players.test", hashed), clock())
            service.start_game(db, f"w{i}", clock(), random.Random(i))
    with write(db):
        db.execute("update outbox set status = 'sent', sent_at = created_at")
        db.execute("update games set deadline = '2000-01-01T00:00:00Z'")


@pytest.mark.slow
def test_kill_9_during_a_deadline_wave_leaves_an_intact_database_and_each_result_once(
    tmp_path: Path, imap: Any, smtp: Any
) -> None:
    import os
    import signal
    import subprocess
    import sys

    from mailservers import write_config

    cfg = make_config(tmp_path, imap, smtp)
    games = 16
    _due_games(cfg, games)
    config = write_config(tmp_path / "judge.toml", imap, smtp, cfg.db, imap_extra="poll_seconds = 1")
    db = open_db(cfg.db)
    root = Path(__file__).parent.parent
    kills = 0
    for _ in range(3):  # kill it mid-wave, each time once this daemon has adjudicated 3 games more
        target = db.execute("select count(*) from phases").fetchone()[0] + 3
        proc = subprocess.Popen(
            [sys.executable, "-m", "judge.cli", "serve", "--config", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=root,
        )
        try:
            # a game takes some 10 ms when the machine is idle: look often, so that the kill lands soon after the
            # target and before the wave's end
            wait_for(partial(_reached_or_ended, db, target, proc), 120, every=0.002)
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            assert proc.wait(10) == -signal.SIGKILL  # killed, not ended on its own
            kills += 1
        assert target <= db.execute("select count(*) from phases").fetchone()[0] < games  # landed mid-wave
    done = subprocess.run(
        [sys.executable, "-m", "judge.cli", "serve", "--config", str(config), "--once"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=root,
    )
    assert done.returncode == 0, done.stderr
    assert db.execute("pragma integrity_check").fetchone()[0] == "ok"
    assert db.execute("select count(*) from phases").fetchone()[0] == games  # each game adjudicated once
    assert [
        r["n"] for r in db.query("select count(*) as n from events where kind = 'adjudicate' group by game_id")
    ] == [1] * games
    queued = list(
        db.query("select to_addr, count(*) as n from outbox where subject like '%results of%' group by to_addr")
    )
    assert len(queued) == games * 7 and {r["n"] for r in queued} == {1}  # one report per recipient per phase
    assert db.execute("select count(*) from outbox where status != 'sent'").fetchone()[0] == 0
    received: dict[str, int] = {}
    for m in smtp.sink.messages:
        if "results of" in m["Subject"]:
            received[m["To"]] = received.get(m["To"], 0) + 1
    assert len(received) == games * 7  # every player got the report
    assert sum(received.values()) - len(received) <= kills  # a kill during one DATA may repeat that one mail


@pytest.mark.slow
def _reached_or_ended(db: Any, target: int, proc: Any) -> bool:
    """The daemon has adjudicated ``target`` phases in all, or has ended by itself."""
    return bool(db.execute("select count(*) from phases").fetchone()[0] >= target or proc.poll() is not None)


def _game_master(cfg: Any, n: int, errors: list[str]) -> None:
    """The game master at the command line, in other processes and in this one."""
    import subprocess
    import sys

    from judge.cli import main

    for i in range(n):
        if i % 4 == 0:
            done = subprocess.run(
                [sys.executable, "-m", "judge.cli", "game", "extend", "g", "1h", "--db", cfg.db],
                capture_output=True,
                text=True,
                timeout=120,
            )
            if done.returncode:
                errors.append(done.stderr)
        elif main(["game", "extend", "g", "1h", "--db", cfg.db]) != 0:
            errors.append(f"extend {i}")


def _by_hand(tmp_path: Path, cfg: Any, n: int, errors: list[str]) -> None:
    """`judge mail handle`, as a host would feed a message."""
    from judge.cli import main

    for i in range(n):
        path = tmp_path / f"hand{i}.eml"
        path.write_bytes(
            raw_mail(addr("Germany"), "SIGNON Germany g pw-Germany\nA mun - ruh", message_id=f"<hand{i}@players.test>")
        )
        if main(["mail", "handle", str(path), "--db", cfg.db]) != 0:
            errors.append(f"handle {i}")


def _players(imap: Any, n: int) -> None:
    """Mail arriving over IMAP."""
    for i in range(n):
        imap.append(
            "judge",
            raw_mail(
                addr("France"),
                f"SIGNON France g pw-France\nA par - {'bur' if i % 2 else 'pic'}",
                message_id=f"<imap{i}@players.test>",
            ),
        )


def test_daemon_cli_mail_handle_and_imap_traffic_at_once_lose_double_and_crash_nothing(
    tmp_path: Path, imap: Any, smtp: Any, caplog: pytest.LogCaptureFixture
) -> None:
    cfg = make_config(tmp_path, imap, smtp)
    # The wall clock, as the `judge game extend` and `judge mail handle` beside the daemon read it: mail they queue
    # is due at once for the daemon too, whatever the time of day the test runs at. The deadline is an hour away and
    # only moves later, so no phase ends by itself within the test.
    new_game(cfg, utcnow)
    stop = threading.Event()
    # a quick pace: mail that `judge mail handle` and `judge game extend` queue beside it is found by a look at the
    # outbox, as it would be within poll_seconds
    daemon = threading.Thread(
        target=serve, args=(cfg,), kwargs={"stop": stop, "clock": utcnow, "pace": QUICK}, daemon=True
    )
    errors: list[str] = []
    n = 24

    workers = [
        threading.Thread(target=partial(_game_master, cfg, n, errors)),
        threading.Thread(target=partial(_by_hand, tmp_path, cfg, n, errors)),
        threading.Thread(target=partial(_players, imap, n)),
    ]
    with caplog.at_level(logging.WARNING):
        daemon.start()
        for w in workers:
            w.start()
        for w in workers:
            w.join(300)
        db = open_db(cfg.db)
        expected = {f"imap{i}@players.test" for i in range(n)} | {f"hand{i}@players.test" for i in range(n)}
        wait_for(lambda: {r["message_id"] for r in db.query("select message_id from messages")} >= expected, 120)
        wait_for(lambda: not list(db.query("select 1 from outbox where status != 'sent'")), 120)
        alive = daemon.is_alive()
        stop.set()
        daemon.join(30)
    assert errors == [] and alive
    handled = [r["message_id"] for r in db.query("select message_id from messages")]
    assert sorted(handled) == sorted(expected)  # each exactly once
    replies = [r["in_reply_to"] for r in db.query("select in_reply_to from outbox where in_reply_to is not null")]
    assert sorted(replies) == sorted(expected)  # one reply each
    assert db.execute("select count(*) from events where kind = 'extended'").fetchone()[0] == n  # none skipped
    sent = [m["In-Reply-To"] for m in smtp.sink.messages if m["In-Reply-To"] and "imap" in m["In-Reply-To"]]
    assert sorted(sent) == sorted(f"<imap{i}@players.test>" for i in range(n))  # sent once each
    assert "Traceback" not in caplog.text and "locked" not in caplog.text
    assert phase(cfg) == "S1901M"


@pytest.mark.slow
def test_judge_demo_ten_times_while_the_cpu_is_busy(tmp_path: Path) -> None:
    import io
    import multiprocessing
    import subprocess
    import sys

    from judge.cli.demo import run_demo

    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(max(2, multiprocessing.cpu_count()))
    ]
    try:
        for run in range(10):
            out = io.StringIO()
            assert run_demo(str(tmp_path / f"demo{run}"), years=1, seed=run, quiet=True, out=out) == 0, run
            assert "phases played by mail" in out.getvalue()
    finally:
        for burner in burners:
            burner.kill()
            burner.wait(10)


def test_a_deferred_backlog_never_blocks_a_new_reply_and_a_claim_is_taken_once(tmp_path: Path) -> None:
    from judge.game.records import queue_mail
    from judge.transport.smtp import claim_due, release_stale_claims

    db = open_db(tmp_path / "judge.db")
    now = Clock()()
    with write(db):
        for i in range(600):
            queue_mail(db, f"p{i}@players.test", "deferred", "x", now - timedelta(hours=1))
        db.execute(
            "update outbox set attempts = 3, next_attempt = ?",
            [(now + timedelta(minutes=20)).strftime("%Y-%m-%dT%H:%M:%SZ")],
        )
        queue_mail(db, "new@players.test", "Re: orders", "y", now)
    claimed = claim_due(db, now, 500)
    assert [r["to_addr"] for r in claimed] == ["new@players.test"]  # chosen in SQL: only what is due
    assert claim_due(db, now, 500) == []  # claimed: a second sender (or round) cannot take it again
    assert release_stale_claims(db, now + timedelta(hours=2)) == 1  # a sender that died gives it back
    later = claim_due(db, now + timedelta(minutes=21), 1000)
    assert len(later) == 601 and [r["subject"] for r in later[:2]] == ["Re: orders", "deferred"]  # due first


def test_a_database_busy_for_too_long_is_a_passing_error_not_the_end(
    tmp_path: Path, imap: Any, smtp: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import sqlite3

    from judge.store import db as store_db

    cfg, clock = make_config(tmp_path, imap, smtp), Clock()
    new_game(cfg, clock)
    send(imap, "France", "A par - bur")
    clock.advance(hours=1, seconds=1)
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 200)  # another writer holds the lock longer than this
    holder = sqlite3.connect(cfg.db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with caplog.at_level(logging.WARNING, logger="judge"):
            assert serve(cfg, once=True, clock=clock) == 1  # every step failed, and said so; nothing raised
        assert "database is locked" in caplog.text and "Traceback" not in caplog.text
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(folder_uids(imap, "INBOX")) == 1 and phase(cfg) == "S1901M"  # nothing half done
    assert serve(cfg, once=True, clock=clock) == 0  # the lock gone: all of it, once
    assert phase(cfg) == "F1901M" and folder_uids(imap, "INBOX") == []
    db = open_db(cfg.db)
    assert [r["message_id"] for r in db.query("select message_id from messages")] and len(
        list(db.query("select 1 from messages"))
    ) == 1


@pytest.mark.slow
def test_mail_keeps_flowing_during_a_deadline_wave(tmp_path: Path, imap: Any, smtp: Any) -> None:
    cfg = make_config(tmp_path, imap, smtp)
    games = 80
    _due_games(cfg, games)  # drawing each phase's map makes this wave last many seconds
    imap.append(
        "judge",
        raw_mail("france.79@players.test", "SIGNON France w79 pw\nA par - bur", message_id="<during@players.test>"),
    )
    stop = threading.Event()
    daemon = threading.Thread(target=serve, args=(cfg,), kwargs={"stop": stop}, daemon=True)
    db = open_db(cfg.db)
    daemon.start()
    try:
        wait_for(lambda: any(m["In-Reply-To"] == "<during@players.test>" for m in smtp.sink.messages), 120)
        adjudicated_when_answered = db.execute("select count(*) from phases").fetchone()[0]
        results_when_answered = len([m for m in smtp.sink.messages if "results of" in m["Subject"]])
        wait_for(lambda: db.execute("select count(*) from phases").fetchone()[0] == games, 300)
    finally:
        stop.set()
        daemon.join(60)
    assert adjudicated_when_answered < games  # answered in the middle of the wave, not after it
    reply = next(m for m in smtp.sink.messages if m["In-Reply-To"] == "<during@players.test>")
    assert "OK: A par - bur" in text_of(reply)
    assert results_when_answered < games * 7  # and results were going out too


@pytest.mark.slow
def test_sigterm_landing_as_the_imap_server_goes_away_still_stops_the_daemon(tmp_path: Path, smtp: Any) -> None:
    import signal
    import subprocess
    import sys

    from mailservers import write_config

    for attempt in range(3):  # the interrupt used to be replaced by the error of the IDLE it cut short, and lost
        server = start_imap("pymap", tmp_path / f"imap{attempt}")
        tap = ImapTap(server.port).start()  # the daemon connects through it: the test sees when it is in IDLE
        cfg = make_config(tmp_path, tap, smtp)
        config = write_config(tmp_path / "judge.toml", tap, smtp, cfg.db, imap_extra="poll_seconds = 30")
        proc = subprocess.Popen(
            [sys.executable, "-m", "judge.cli", "serve", "--config", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=Path(__file__).parent.parent,
        )
        try:
            tap.wait_until(lambda t: t.waiting_in_idle() or proc.poll() is not None)  # noqa: B023
            assert proc.poll() is None
            assert server.proc is not None
            server.proc.terminate()
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
            tap.stop()
            server.stop()


def test_mail_that_waited_without_a_sender_gets_its_delivery_days_from_the_first_attempt(
    tmp_path: Path, imap: Any
) -> None:
    """Mail queued while no sender ran (a judge before the daemon, a daemon stopped for a week) is not given up at its
    first temporary refusal: ``max_delivery_days`` counts from the first attempt."""
    handler = Refusing({addr("France"): 1, addr("Italy"): 10_000}, set())
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        cfg, clock = make_config(tmp_path, imap, SmtpSink(port)), Clock()
        db = open_db(cfg.db)
        with write(db):
            import random

            from judge.game.settings import GameSettings

            service.create_game(db, "g", "classic", GameSettings(movement_deadline=30 * 86400), clock())
            for power in POWERS:
                service.join_game(db, "g", addr(power), f"pw-{power}", clock(), power=power)
            service.start_game(db, "g", clock(), random.Random(1))
        clock.advance(days=9)  # queued nine days ago, never tried
        serve(cfg, once=True, clock=clock)
        rows = {
            r["to_addr"]: r
            for r in db.query("select * from outbox where to_addr in (?, ?)", [addr("France"), addr("Italy")])
        }
        assert all(r["status"] == "queued" and r["attempts"] == 1 for r in rows.values()), rows
        clock.advance(minutes=3)
        serve(cfg, once=True, clock=clock)
        assert [to for to, _ in handler.accepted].count(addr("France")) == 1
        clock.advance(days=4, hours=23)  # Italy: five days from its first attempt less a little: still tried
        serve(cfg, once=True, clock=clock)
        italy = next(db.query("select * from outbox where to_addr = ?", [addr("Italy")]))
        assert italy["status"] == "queued"
        clock.advance(hours=2)
        serve(cfg, once=True, clock=clock)
        italy = next(db.query("select * from outbox where to_addr = ?", [addr("Italy")]))
        assert italy["status"] == "failed" and "gave up after 5 days" in italy["last_error"]
    finally:
        controller.stop()
