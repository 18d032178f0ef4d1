"""The store's one write transaction (BEGIN IMMEDIATE), and that nothing in the code opens a transaction otherwise."""

from __future__ import annotations

import ast
import sqlite3
import threading
from pathlib import Path

import pytest

from judge.store import is_busy, open_db, write

ROOT = Path(__file__).resolve().parent.parent


def _transaction_calls(path: Path) -> list[str]:
    """Places in a source file that open a transaction other than through judge.store.write."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            if name in ("atomic", "begin"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{name}()")
            if (
                name in ("execute", "executescript")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and node.args[0].value.strip().upper().startswith(("BEGIN", "SAVEPOINT"))
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.args[0].value!r}")
        if isinstance(node, ast.With):  # `with db.conn:` is sqlite3's implicit deferred transaction
            for item in node.items:
                expr = item.context_expr
                if isinstance(expr, ast.Attribute) and expr.attr == "conn":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: with ….conn")
    return found


def test_every_write_transaction_goes_through_the_store_helper() -> None:
    sources = [p for folder in ("judge", "bench") for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(sources) > 30
    offending = [hit for p in sources if p != ROOT / "judge" / "store" / "db.py" for hit in _transaction_calls(p)]
    assert offending == [], "use judge.store.write (BEGIN IMMEDIATE) instead:\n" + "\n".join(offending)


def test_the_scan_finds_a_plain_atomic(tmp_path: Path) -> None:
    bad = ROOT / "judge" / "_scan_probe_tmp.py"
    try:
        bad.write_text("def f(db):\n    with db.atomic():\n        db.execute('BEGIN')\n")
        assert len(_transaction_calls(bad)) == 2
    finally:
        bad.unlink()


def test_write_holds_the_write_lock_from_its_first_statement(tmp_path: Path) -> None:
    path = tmp_path / "judge.db"
    db = open_db(path)
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    with write(db):
        db.query("select 1").__next__()  # only a read so far, and yet no one else may write
        with pytest.raises(sqlite3.OperationalError) as caught:
            other.execute("BEGIN IMMEDIATE")
        assert is_busy(caught.value)
    other.execute("BEGIN IMMEDIATE")  # free again after the commit
    other.execute("ROLLBACK")


def test_read_then_write_waits_for_another_writer_instead_of_failing(tmp_path: Path) -> None:
    path = tmp_path / "judge.db"
    a = open_db(path)
    with write(a):
        a.execute("insert into meta (key, value) values ('n', '0')")
    read_done, b_started, errors = threading.Event(), threading.Event(), []

    def other_writer() -> None:
        b = open_db(path)
        read_done.wait(10)
        b_started.set()
        try:
            with write(b):
                b.execute("update meta set value = value + 1 where key = 'n'")
        except Exception as exc:  # noqa: BLE001 - collected: the test fails on any error in the other writer
            errors.append(exc)

    thread = threading.Thread(target=other_writer)
    thread.start()
    with write(a):  # read, let the other writer try, then write: a deferred BEGIN would fail here in WAL mode
        value = int(next(a.query("select value from meta where key = 'n'"))["value"])
        read_done.set()
        b_started.wait(10)
        a.execute("update meta set value = ? where key = 'n'", [str(value + 10)])
    thread.join(30)
    assert errors == []
    assert next(a.query("select value from meta where key = 'n'"))["value"] == "11"


def test_nested_write_is_a_savepoint(tmp_path: Path) -> None:
    db = open_db(tmp_path / "judge.db")
    with write(db):
        db.execute("insert into meta (key, value) values ('kept', '1')")
        with pytest.raises(ValueError), write(db):
            db.execute("insert into meta (key, value) values ('undone', '1')")
            raise ValueError("inner")
    assert [r["key"] for r in db.query("select key from meta order by key")] == ["kept"]
    with pytest.raises(RuntimeError), write(db):
        db.execute("insert into meta (key, value) values ('outer', '1')")
        raise RuntimeError("outer")
    assert [r["key"] for r in db.query("select key from meta order by key")] == ["kept"]


def test_the_outbox_as_the_sender_works_it(tmp_path: Path) -> None:
    """Claims, outcomes and retries of queued mail, through judge.store.mail_queue, on a real file."""
    from datetime import UTC, datetime

    from judge.store import mail_queue
    from judge.store.statuses import OutboxStatus

    db = open_db(str(tmp_path / "judge.db"))
    now = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    with write(db):
        for n in range(3):
            mail_queue.queue_mail(db, f"p{n}@example.org", f"mail {n}", "body", now, in_reply_to="<x>" if n else None)
        assert [r["subject"] for r in mail_queue.due_mail(db, "2026-12-01T08:00:00Z", 2)] == ["mail 1", "mail 2"]
        ids = [r["id"] for r in mail_queue.outbox_rows(db)]
        mail_queue.mark_claimed(db, ids, "2026-12-01T08:00:00Z")
        assert mail_queue.mail_waiting(db) and mail_queue.due_mail(db, "2026-12-01T09:00:00Z", 9) == []
        assert mail_queue.requeue_claims(db, "2026-12-01T07:00:00Z") == 0  # not stale yet
        mail_queue.mark_sent(db, ids[0], "2026-12-01T08:00:01Z", "<a@example.org>")
        mail_queue.mark_failed(db, ids[1], "refused: 550 no such user")
        mail_queue.defer(db, ids[2], 1, "2026-12-01T08:00:30Z", "451 later")
        assert mail_queue.next_attempt_at(db) == "2026-12-01T08:00:30Z"
        assert [r["id"] for r in mail_queue.outbox_rows(db, OutboxStatus.FAILED)] == [ids[1]]
        assert [r["id"] for r in mail_queue.unreported_failures(db)] == [ids[1]]
        mail_queue.mark_reported(db, [ids[1]])
        assert mail_queue.unreported_failures(db) == []
        mail_queue.mark_claimed(db, [ids[2]], "2026-12-01T08:00:30Z")
        mail_queue.unclaim(db, [ids[2]])
        mail_queue.mark_claimed(db, [ids[2]], "2026-12-01T08:00:30Z")
        assert mail_queue.requeue_claims(db) == 1
        mail_queue.mark_failed(db, ids[2], "not sent: the judge's own address", reported=True)
        assert not mail_queue.mail_waiting(db) and mail_queue.next_attempt_at(db) is None
        assert mail_queue.unreported_failures(db) == []
        assert mail_queue.last_digest_at(db, "gm@example.org") is None
        mail_queue.set_last_digest_at(db, "gm@example.org", "2026-12-01T08:01:00Z")
        assert mail_queue.last_digest_at(db, "gm@example.org") == "2026-12-01T08:01:00Z"
        assert mail_queue.picture_png(db, 12345) is None
    rows = {r["id"]: r for r in mail_queue.outbox_rows(db)}
    assert [rows[i]["status"] for i in ids] == ["sent", "failed", "failed"]
    assert rows[ids[0]]["message_id"] == "<a@example.org>" and rows[ids[2]]["reported"] == 1


def test_the_inbox_bookkeeping(tmp_path: Path) -> None:
    from judge.store import inbox

    db = open_db(str(tmp_path / "judge.db"))
    with write(db):
        assert inbox.mailbox_position(db, "judge") == (0, 0)
        inbox.advance(db, "judge", 7, 41, "2026-12-01T08:00:00Z")
        inbox.advance(db, "judge", 7, 42, "2026-12-01T08:00:01Z")
        inbox.quarantine(db, "judge", 43, "d43", "x" * 600, "2026-12-01T08:00:02Z")
        inbox.record_handled(db, "m1@example.org", "d44", "p@example.org", "2026-12-01T08:00:03Z", "refused: too old")
    assert inbox.mailbox_position(db, "judge") == (7, 42)
    assert inbox.quarantined(db, "d43") and not inbox.quarantined(db, "d44")
    assert len(next(iter(db.query("select reason from quarantine")))["reason"]) == 500
    assert inbox.handled_outcome(db, "d44") == "refused: too old" and inbox.handled_outcome(db, "d43") is None
    assert inbox.handled_digest(db, "d44") and not inbox.handled_digest(db, "d43")
    assert inbox.handled_message_id(db, "m1@example.org", "p@example.org")
    assert not inbox.handled_message_id(db, "m1@example.org", "q@example.org")
