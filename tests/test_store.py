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
