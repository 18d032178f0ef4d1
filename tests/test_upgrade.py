"""Upgrades from real old databases: each written by an earlier judge through its own command line and mail path
(tests/data/old_databases/make.py), opened here with the current code (which applies the migrations) and compared
field by field with the manifest written beside it. A new version's database is two more files in that folder.

A test that fails for a version because no migration carries its data over yet is marked xfail (strict) for that
version, with what the old version stored and what the current code looks for: the mark comes off with the migration.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from gamekit import raw_mail
from mailservers import free_port
from sqlite_utils import Database

from judge.commands.handler import handle_raw
from judge.config import SmtpConfig
from judge.game import summaries
from judge.game.passwords import verify_password
from judge.game.records import Game, Player, given_orders, load_game, players
from judge.rules.parse import OrderError
from judge.store import draw_votes, mail_queue, press_rows, signons
from judge.store.db import open_db
from judge.store.phases import phase_codes, played_phase
from judge.store.schema import migrations
from judge.store.statuses import GameStatus, OutboxStatus
from judge.store.users import default_language, user_settings
from judge.timeutil import iso_utc, parse_iso_utc
from judge.transport.smtp import drain_outbox

FOLDER = Path(__file__).parent / "data" / "old_databases"
MANIFESTS = sorted(FOLDER.glob("*.json"))
JUDGE = "judge@example.org"


def versions(failing: dict[str, str] | None = None) -> list[Any]:
    """One parameter per database in the set; the versions named in ``failing`` marked xfail (strict) with why."""
    failing = failing or {}
    unknown = set(failing) - {path.stem for path in MANIFESTS}
    assert not unknown, f"no database for {unknown}"
    return [
        pytest.param(
            path.stem,
            id=path.stem,
            marks=[pytest.mark.xfail(reason=failing[path.stem], strict=True)] if path.stem in failing else [],
        )
        for path in MANIFESTS
    ]


@dataclass
class Upgraded:
    """An old database copied into the test's folder and opened by the current judge (its migrations applied)."""

    manifest: dict[str, Any]
    path: Path
    db: Database

    @property
    def after(self) -> datetime:
        """A moment after the last thing the old version did: when the host starts the new judge."""
        return parse_iso_utc(self.manifest["clock_after"]) + timedelta(hours=2)

    def game(self, name: str) -> Game:
        game = load_game(self.db, name)
        assert game is not None, name
        return game

    def shown(self, name: str) -> dict[str, Any]:
        return next(g for g in self.manifest["games"] if g["name"] == name)

    def mail(self, sender: str, body: str, now: datetime | None = None) -> str:
        """The reply to one mail handled by the current judge."""
        replies = handle_raw(self.db, raw_mail(sender, body), now or self.after)
        mine = [r for r in replies if r["to_addr"] == sender and r["subject"].startswith("Re:")]
        assert len(mine) == 1, replies
        return str(mine[0]["body"])


def old_file(label: str, folder: Path) -> tuple[dict[str, Any], Path]:
    """The manifest of ``label`` and its database, decompressed into ``folder`` (as the old version left it)."""
    manifest = json.loads((FOLDER / f"{label}.json").read_text(encoding="utf-8"))
    path = folder / f"{label}.db"
    path.write_bytes(lzma.decompress((FOLDER / manifest["database"]).read_bytes()))
    return manifest, path


def upgrade(label: str, folder: Path) -> Upgraded:
    manifest, path = old_file(label, folder)
    return Upgraded(manifest, path, open_db(path))


def seats(old: Upgraded, name: str) -> dict[str, Player]:
    return {p.email: p for p in players(old.db, old.game(name).id)}


def test_the_set_holds_every_version() -> None:
    """Each manifest names its database, and the set begins with the first complete daemon."""
    assert MANIFESTS, "no old databases"
    for path in MANIFESTS:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        assert (FOLDER / manifest["database"]).is_file(), manifest["database"]
        assert manifest["label"] == path.stem
    assert any(json.loads(p.read_text())["migrations"][-1] == "m003_reports" for p in MANIFESTS)


@pytest.mark.parametrize("label", versions())
def test_the_upgrade_brings_the_schema_up_to_date(label: str, tmp_path: Path) -> None:
    old = upgrade(label, tmp_path)
    assert not list(migrations.pending(old.db))
    applied = [r["name"] for r in old.db.query("select name from _sqlite_migrations order by name")]
    assert applied[: len(old.manifest["migrations"])] == sorted(old.manifest["migrations"])
    assert old.db.execute("pragma integrity_check").fetchone()[0] == "ok"
    assert old.db.execute("pragma foreign_key_check").fetchall() == []


@pytest.mark.parametrize("label", versions())
def test_games_and_players_are_as_the_old_judge_left_them(label: str, tmp_path: Path) -> None:
    old = upgrade(label, tmp_path)
    for shown in old.manifest["games"]:
        game = old.game(shown["name"])
        assert (game.variant.name.lower(), game.status, game.phase) == (
            shown["variant"],
            GameStatus(shown["status"]),
            shown["phase"],
        )
        deadline = parse_iso_utc(shown["deadline"]) if shown["deadline"] else None
        assert game.deadline == deadline
        assert game.result == shown["result"]
        seated = seats(old, shown["name"])
        assert sorted(seated) == sorted(p["email"] for p in shown["players"])
        for p in shown["players"]:
            player = seated[p["email"]]
            assert (player.power, player.ready, player.preferences) == (p["power"], p["ready"], p["preferences"])
            assert not player.resigned and not player.eliminated


@pytest.mark.parametrize("label", versions())
def test_old_passwords_still_sign_on(label: str, tmp_path: Path) -> None:
    """Every seated player signs on by mail with the password given to the old judge; a wrong one still fails.
    The forming game's players have no power to sign on as: their stored hash is checked directly."""
    old = upgrade(label, tmp_path)
    for shown in old.manifest["games"]:
        seated = seats(old, shown["name"])
        for p in shown["players"]:
            if p["power"] is None:
                assert verify_password(p["password"], seated[p["email"]].password_hash)
                assert not verify_password(p["password"] + "x", seated[p["email"]].password_hash)
                continue
            reply = old.mail(p["email"], f"SIGNON {p['power']} {shown['name']} {p['password']}\n")
            assert f"signed on as {p['power']} in {shown['name']}" in reply, reply
    reply = old.mail("england@example.org", "SIGNON England running not-the-password\n")
    assert "ERROR: sign-on failed" in reply


@pytest.mark.parametrize("label", versions())
def test_orders_given_for_the_current_phase_are_kept_as_given(label: str, tmp_path: Path) -> None:
    old = upgrade(label, tmp_path)
    for shown in old.manifest["games"]:
        if shown["phase"] is None:
            continue
        given = given_orders(old.db, old.game(shown["name"]), shown["phase"])
        expected = {p["power"]: p["orders"] for p in shown["players"] if p["orders"]}
        assert {power: [s.text for s in lines] for power, lines in given.items()} == expected
        for lines in given.values():
            assert not [s for s in lines if isinstance(s.order, OrderError)]


@pytest.mark.parametrize("label", versions())
def test_orders_given_before_the_upgrade_are_played_at_the_next_deadline(label: str, tmp_path: Path) -> None:
    """The running game's deadline passes under the current judge: the orders the old judge took are the ones
    adjudicated, each read as given (none void)."""
    from judge.game.service import tick

    old = upgrade(label, tmp_path)
    shown = old.shown("running")
    deadline = parse_iso_utc(shown["deadline"])
    assert tick(old.db, deadline - timedelta(minutes=1)) == []
    assert tick(old.db, deadline + timedelta(minutes=1)) == ["running"]
    played = played_phase(old.db, old.game("running").id, shown["phase"])
    assert played is not None
    results = json.loads(played["results"])
    for p in shown["players"]:
        lines = [r for r in results if r["power"] == p["power"] and r["input"] is not None]
        assert [r["input"] for r in lines] == (p["orders"] or []), p["power"]
        assert [r for r in lines if r["outcome"] == "void" or r["typed"] is None] == []
    assert old.game("running").phase == "F1902M"
    board = json.loads(played["board_after"])
    assert "A bur" in board["units"]["France"] and "F eng" in board["units"]["France"]
    assert "A wal" in board["units"]["England"]
    postal = old.manifest["press"].get("postal_press", [])
    published = press_rows.published_postal_rows(old.db, old.game("running").id)
    assert [(r["power"], r["body"]) for r in published] == [(p["power"], p["body"]) for p in postal]
    results_mails = [
        r
        for r in mail_queue.outbox_rows(old.db, OutboxStatus.QUEUED)
        if r["created_at"] > shown["deadline"] and "results of" in r["subject"]
    ]
    assert {r["to_addr"] for r in results_mails} == {p["email"] for p in shown["players"]} | {shown["master"]}
    for r in results_mails:
        assert all(p["body"] in r["body"] for p in postal), r["body"]


@pytest.mark.parametrize("label", versions())
def test_history_is_read_as_played(label: str, tmp_path: Path) -> None:
    """Each played phase's results, as the current judge tells them (HISTORY), hold the orders given for it."""
    old = upgrade(label, tmp_path)
    for shown in old.manifest["games"]:
        game = old.game(shown["name"])
        assert phase_codes(old.db, game.id) == [h["phase"] for h in shown["history"]]
        told = summaries.phase_results(old.db, game)
        assert [t["phase"].code for t in told] == [h["phase"] for h in shown["history"]]
        for facts, played in zip(told, shown["history"], strict=True):
            for power, lines in played["orders"].items():
                results = [r for r in facts["results"][power] if r["input"] is not None]
                assert [r["input"] for r in results] == lines
                assert all(r["typed"] is not None and r["outcome"] != "void" for r in results), results
    reply = old.mail("england@example.org", "HISTORY running\n")
    assert "ERROR" not in reply, reply


@pytest.mark.parametrize("label", versions())
def test_press_is_kept(label: str, tmp_path: Path) -> None:
    """Press mailed at once waits in the outbox with its words; a diary and postal press (where the version had
    them) are kept for the end of the game and the next results."""
    old = upgrade(label, tmp_path)
    queued = mail_queue.outbox_rows(old.db, OutboxStatus.QUEUED)
    for press in old.manifest["press"]["mailed"]:
        assert [
            r
            for r in queued
            if (r["to_addr"], r["subject"]) == (press["to"], press["subject"]) and press["body_has"] in r["body"]
        ], press
    game = old.game("running")
    if "diaries" in old.manifest["press"]:
        kept = [(r["power"], r["phase"], r["body"]) for r in press_rows.diary_rows(old.db, game.id)]
        assert kept == [(d["power"], d["phase"], d["body"]) for d in old.manifest["press"]["diaries"]]
    if "postal_press" in old.manifest["press"]:
        assert press_rows.published_postal_rows(old.db, game.id) == []
        waiting = press_rows.publish_postal(old.db, game.id, "2030-01-01T00:00:00Z")
        assert [(r["power"], r["body"]) for r in waiting] == [
            (p["power"], p["body"]) for p in old.manifest["press"]["postal_press"]
        ]


@pytest.mark.parametrize("label", versions())
def test_draws_are_found_under_their_turn(label: str, tmp_path: Path) -> None:
    old = upgrade(label, tmp_path)
    for draw in old.manifest["draws"]:
        found = draw_votes.proposal(old.db, old.game(draw["game"]).id, draw["turn"])
        assert found is not None, draw
        assert (found["proposer"], found["votes"], str(found["status"])) == (
            draw["proposer"],
            draw["votes"],
            draw["status"],
        )


@pytest.mark.parametrize("label", versions())
def test_an_open_draw_can_still_be_accepted(label: str, tmp_path: Path) -> None:
    """The players who had not voted on the open proposal accept it by mail: the game ends drawn."""
    old = upgrade(label, tmp_path)
    draw = next(d for d in old.manifest["draws"] if d["status"] == "open")
    shown = old.shown(draw["game"])
    voters = [p for p in shown["players"] if p["power"] not in draw["votes"]]
    assert voters
    for p in voters:
        reply = old.mail(p["email"], f"SIGNON {p['power']} {shown['name']} {p['password']}\nDRAW ACCEPT\n")
        assert "ERROR" not in reply, reply
    game = old.game(draw["game"])
    assert game.status == GameStatus.FINISHED
    assert game.result is not None and game.result["kind"] == "draw"
    assert sorted(game.result["powers"]) == sorted(p["power"] for p in shown["players"])
    over = [r for r in mail_queue.outbox_rows(old.db, OutboxStatus.QUEUED) if r["created_at"] >= iso_utc(old.after)]
    assert {r["to_addr"] for r in over} >= {p["email"] for p in shown["players"]}
    for diary in old.manifest["press"].get("diaries", []):  # the game-over mail lists every diary entry
        assert [r for r in over if diary["body"] in r["body"]], diary


@pytest.mark.parametrize("label", versions())
def test_signon_failures_are_counted(label: str, tmp_path: Path) -> None:
    old = upgrade(label, tmp_path)
    for failure in old.manifest["signon_failures"]:
        found = signons.failures_since(old.db, failure["game"], failure["power"], "")
        assert [f["address"] for f in found] == [failure["address"]] * failure["count"]


@pytest.mark.parametrize("label", versions())
def test_unfinished_games_keep_the_rules_they_were_set_up_with(label: str, tmp_path: Path) -> None:
    """Settings an older judge did not know are read as that judge played: a tie at the last year plays on (m014), no
    declared absences and no TAKEOVER without the game master (m017); a judge that knew a setting wrote it."""
    manifest, path = old_file(label, tmp_path)
    raw = sqlite3.connect(path)
    before = {name: json.loads(text) for name, text in raw.execute("select name, settings from games")}
    raw.close()
    old = Upgraded(manifest, path, open_db(path))
    for name, settings in before.items():
        game = old.game(name)
        if game.status is GameStatus.FINISHED:
            continue
        rules = game.settings
        assert rules.tie_others == settings.get("tie_others", "play-on")
        assert rules.absence_days_per_year == settings.get("absence_days_per_year", 0)
        assert rules.takeover.value == settings.get("takeover", "approve")


@pytest.mark.parametrize("label", versions())
def test_reader_settings_are_kept(label: str, tmp_path: Path) -> None:
    old = upgrade(label, tmp_path)
    for user in old.manifest["users"]:  # a setting never chosen (null) follows the judge's default
        chosen = {"timezone": user["timezone"] or "UTC", "language": user["language"] or default_language(old.db)}
        assert user_settings(old.db, user["email"]) == chosen


def _drain(old: Upgraded, port: int) -> int:
    cfg = SmtpConfig(host="127.0.0.1", port=port, security="none", timeout=20)
    sent = 0
    while n := drain_outbox(old.db, cfg, JUDGE, lambda: old.after):
        sent += n
    return sent


def _subject(message: EmailMessage) -> str:
    return " ".join(str(message["Subject"]).split())


@pytest.mark.parametrize("label", versions())
def test_queued_mail_is_sent_exactly_once(label: str, tmp_path: Path, smtp: Any) -> None:
    """The mail the old judge queued goes out through the current sender to a real SMTP server on loopback: each
    once, to its recipient, with its subject, threaded under the mail it answers and with its map where it had one;
    a second round sends nothing."""
    old = upgrade(label, tmp_path)
    queued = old.manifest["outbox"]["queued"]
    assert _drain(old, smtp.port) == len(queued)
    received = smtp.sink.messages
    assert Counter((str(m["To"]), _subject(m)) for m in received) == Counter((q["to"], q["subject"]) for q in queued)
    by_id = {m["Message-ID"]: m for m in received}
    assert len(by_id) == len(received)
    for q in queued:
        row = next(old.db.query("select * from outbox where id = ?", [q["id"]]))
        assert row["status"] == OutboxStatus.SENT
        message = by_id[row["message_id"]]  # the Message-ID it was sent with, kept for the bounces and the replies
        assert (str(message["To"]), _subject(message)) == (q["to"], q["subject"])
        if q["in_reply_to"]:
            assert message["In-Reply-To"] == f"<{q['in_reply_to']}>"
        pictures = [part for part in message.walk() if part.get_content_type() == "image/png"]
        assert len(pictures) == (1 if q["map"] else 0), q
    assert _drain(old, smtp.port) == 0
    assert len(smtp.sink.messages) == len(queued)


class _Busy:
    """aiosmtpd handler answering every RCPT TO with a temporary refusal (451) while ``busy``, then taking every
    mail."""

    def __init__(self) -> None:
        self.busy = True
        self.messages: list[EmailMessage] = []

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        if self.busy:
            return "451 4.3.0 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.original_content, policy=policy.default))  # type: ignore
        return "250 accepted"


@pytest.mark.parametrize("label", versions())
def test_queued_mail_outlives_a_temporary_refusal(label: str, tmp_path: Path) -> None:
    """The mail server is busy at the first attempt (451 to every recipient): the old queued mail waits for its
    next attempt and then goes out, each once; none is given up."""
    old = upgrade(label, tmp_path)
    queued = old.manifest["outbox"]["queued"]
    handler = _Busy()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        cfg = SmtpConfig(host="127.0.0.1", port=controller.port, security="none", timeout=20)
        assert drain_outbox(old.db, cfg, JUDGE, lambda: old.after) == 0
        failed = mail_queue.outbox_rows(old.db, OutboxStatus.FAILED)
        assert [(r["to_addr"], r["subject"], r["last_error"]) for r in failed] == []
        handler.busy = False
        later = old.after + timedelta(hours=8)  # past the longest retry pause (6 h and a quarter)
        sent = 0
        while n := drain_outbox(old.db, cfg, JUDGE, lambda: later):
            sent += n
    finally:
        controller.stop()
    assert sent == len(queued)
    assert Counter((str(m["To"]), _subject(m)) for m in handler.messages) == Counter(
        (q["to"], q["subject"]) for q in queued
    )


# --- a kill -9 during the upgrade ------------------------------------------------------------------------------------

# A child process opens the database with the current judge, counting the SQL statements SQLite starts on its
# connection; at statement ``stop`` it says so and waits on its standard input, and the test kills it there. With
# ``stop`` 0 it runs to the end and prints the count. Nothing is changed in what the statements do.
_CHILD = """
import sqlite3
import sys

stop = int(sys.argv[2])
count = 0
connect = sqlite3.connect


def counted(*args, **kwargs):
    conn = connect(*args, **kwargs)

    def trace(statement):
        global count
        count += 1
        if count == stop:
            print(f"at {count}: {statement[:60]}", flush=True)
            sys.stdin.readline()

    conn.set_trace_callback(trace)
    return conn


sqlite3.connect = counted
import judge.wiring  # noqa: F401
from judge.store import open_db

open_db(sys.argv[1]).conn.close()
print(f"done {count}", flush=True)
"""


def _child(path: Path, stop: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path), str(stop)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


# the times a migration ran, and m006's random Message-IDs: different at every upgrade
_VARYING = {"_sqlite_migrations": {"applied_at"}, "judge_versions": {"applied_at"}, "outbox": {"message_id"}}


def _state(path: Path) -> tuple[list[tuple[str, str]], dict[str, tuple[int, str]]]:
    """The schema and each table's rows (a count and a digest; the columns that differ from one run to the next left
    out), read by plain sqlite3 after SQLite's own recovery; the integrity check must pass."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        assert conn.execute("pragma integrity_check").fetchone()[0] == "ok"
        schema = sorted(
            conn.execute("select name, coalesce(sql, '') from sqlite_master where name not like 'sqlite_%'")
        )
        tables = [name for name, sql in schema if sql.startswith("CREATE TABLE")]
        rows = {}
        for table in tables:
            names = [c[1] for c in conn.execute(f"pragma table_info([{table}])") if c[1] not in _VARYING.get(table, ())]
            digest = hashlib.sha256()
            count = 0
            for row in conn.execute(f"select {', '.join(f'[{n}]' for n in names)} from [{table}] order by rowid"):
                digest.update(repr(row).encode())
                count += 1
            rows[table] = (count, digest.hexdigest())
        return schema, rows
    finally:
        conn.close()


def _statements(path: Path) -> int:
    """How many statements opening the database takes, all the way."""
    child = _child(path, 0)
    out, _ = child.communicate(timeout=120)
    assert child.returncode == 0, out
    return int(out.split()[-1])


def _kill_at(path: Path, stop: int) -> str:
    """Open the database in a child and kill -9 it as statement ``stop`` begins; the statement it was at."""
    child = _child(path, stop)
    assert child.stdout is not None
    line = child.stdout.readline()
    child.kill()
    assert child.wait(30) == -signal.SIGKILL
    assert line.startswith(f"at {stop}:"), line
    return line


def _kill_points(total: int, points: int) -> list[int]:
    """``points`` statements spread evenly over the ``total`` of the upgrade, the first and the last among them."""
    if points == 1:
        return [max(1, total // 2)]
    return sorted({1 + (total - 1) * i // (points - 1) for i in range(points)})


def _check_kills(label: str, tmp_path: Path, points: int) -> None:
    _, path = old_file(label, tmp_path)
    old = _state(path)
    fresh = tmp_path / "fresh.db"
    fresh.write_bytes(path.read_bytes())
    total = _statements(fresh)
    new = _state(fresh)
    if new == old:  # nothing to migrate: opening it changed nothing, and there is nothing to stop halfway
        return
    for stop in _kill_points(total, points):
        copy = tmp_path / f"killed-{stop}.db"
        copy.write_bytes(path.read_bytes())
        at = _kill_at(copy, stop)
        assert _state(copy) in (old, new), f"half upgraded after a kill {at}"
        # a backup folder of its own: the killed attempt's backup, named to the second, may hold the default name
        backups = tmp_path / f"second-open-{stop}"
        backups.mkdir()
        open_db(copy, backup_dir=backups).conn.close()
        assert _state(copy) == new, f"a second open after a kill {at} did not finish the upgrade"


@pytest.mark.parametrize("label", versions())
def test_an_upgrade_killed_midway_leaves_the_old_or_the_new_database(label: str, tmp_path: Path) -> None:
    """kill -9 halfway through the upgrade's statements: the file is the old database or the upgraded one, never a
    mix, and the next open completes the upgrade."""
    _check_kills(label, tmp_path, points=1)


@pytest.mark.slow
@pytest.mark.parametrize("label", versions())
def test_an_upgrade_killed_at_any_moment_leaves_the_old_or_the_new_database(label: str, tmp_path: Path) -> None:
    """As above, killed at 16 moments spread over the upgrade, from its first statement to its COMMIT."""
    _check_kills(label, tmp_path, points=16)
