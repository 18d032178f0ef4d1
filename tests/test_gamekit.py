"""The tests' own game helper: a game reused from the session's built games is the game built afresh."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from gamekit import Table

# drawn at random each time a game is built: a salt in each password hash, the Message-IDs, the calendar events'
# UIDs, the migrations' clock
RANDOM = {"password_hash", "message_id", "applied_at", "uid"}


def _same(key: str, value: Any) -> Any:
    """A value as the comparison sees it: a mail's calendar text with its event's UID left out."""
    return re.sub(r"UID:[^\r\n]*", "UID:", value) if key == "calendar" and isinstance(value, str) else value


def _rows(t: Table) -> dict[str, list[dict[str, Any]]]:
    return {
        name: [
            {k: _same(k, v) for k, v in row.items() if k not in RANDOM} for row in t.db.query(f"select * from [{name}]")
        ]
        for name in t.db.table_names()
    }


def test_a_reused_game_is_the_game_built_afresh(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fresh = Table(tmp_path / "fresh.db")
    fresh.seven("g", "--master", "gm@p.test")
    built = capsys.readouterr()
    reused = Table(tmp_path / "reused.db")
    reused.seven("g", "--master", "gm@p.test", reuse=True)
    assert capsys.readouterr() == built  # what the commands printed, printed again
    assert _rows(reused) == _rows(fresh)
    assert len(_rows(reused)["players"]) == 7
    # the copy is the test's own file: a later change reaches no other table built from the same game
    assert reused.reply("france@p.test", "SIGNON France g pw-France\nA par - bur").count("OK: A par - bur") == 1
    again = Table(tmp_path / "again.db")
    again.seven("g", "--master", "gm@p.test", reuse=True)
    assert _rows(again) == _rows(fresh) != _rows(reused)


def test_a_database_that_is_not_empty_gets_the_game_built_in_it(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "first") == 0
    t.seven("g", reuse=True)
    assert sorted(row["name"] for row in t.db.query("select name from games")) == ["first", "g"]
