"""Issue #23: the game master's commands are idempotent and visible. A second eject, replace, pause, resume or end
changes nothing, mails nobody and says so (exit status 0, "nothing changed: ..."; by mail an answer, not an error);
`judge outbox show` prints a mail as it is sent; attempts count the try that delivered a mail."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from gamekit import Table

from judge.config import SmtpConfig
from judge.transport.smtp import drain_outbox

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


@pytest.fixture
def t(tmp_path: Path) -> Table:
    table = Table(tmp_path / "judge.db")
    table.seven("g", "--master", "gm@p.test", reuse=True)
    return table


def twice(t: Table, capsys: Any, *args: str) -> str:
    """Run a command twice: the first changes something, the second must change nothing and queue no mail."""
    assert t.cli(*args) == 0
    before = len(t.outbox())
    events = t.db.execute("select count(*) from events").fetchone()[0]
    capsys.readouterr()
    assert t.cli(*args) == 0
    out = capsys.readouterr().out
    assert out.startswith("nothing changed: "), out
    assert len(t.outbox()) == before
    assert t.db.execute("select count(*) from events").fetchone()[0] == events
    return out


def test_a_second_pause_resume_eject_replace_or_end_changes_nothing(t: Table, capsys: Any) -> None:
    assert "paused already" in twice(t, capsys, "game", "pause", "g")
    assert "running already" in twice(t, capsys, "game", "resume", "g")
    assert "civil disorder" in twice(t, capsys, "game", "eject", "g", "France")
    replace = ("game", "replace", "g", "--power", "France", "--email", "new@p.test", "--password", "pw-new-1")
    assert "played by new@p.test already" in twice(t, capsys, *replace)
    assert "over already" in twice(t, capsys, "game", "end", "g", "--abandoned")


def test_a_second_pause_by_mail_is_an_answer_and_mails_nobody_else(t: Table) -> None:
    assert t.cli("game", "master-password", "g", "--password", "master-pw-1") == 0
    t.reply("gm@p.test", "MASTER g master-pw-1\nPAUSE")
    before = len(t.outbox())
    answer = t.reply("gm@p.test", "MASTER g master-pw-1\nPAUSE")
    assert "game g is paused already" in answer and "ERROR" not in answer
    assert len(t.outbox()) == before + 1  # the answer alone


def test_outbox_show_prints_the_mail_as_sent_and_attempts_count_the_sending(t: Table, capsys: Any, smtp: Any) -> None:
    first = next(m for m in t.outbox() if "has started" in m["subject"])
    capsys.readouterr()
    assert t.cli("outbox", "show", str(first["id"]), "--db", str(t.path)) == 0
    shown = capsys.readouterr().out
    assert f"To: {first['to_addr']}" in shown and "Subject: Diplomacy game g has started" in shown
    assert "part" in shown and "text/plain" in shown and "image/png map.png" in shown and "not shown" in shown
    assert t.cli("outbox", "show", str(first["id"]), "--text") == 0
    assert capsys.readouterr().out.startswith("[judge-mail]")
    assert t.cli("outbox", "show", "99999") == 1
    cfg = SmtpConfig(host="127.0.0.1", port=smtp.port, security="none", timeout=5)
    sent = drain_outbox(t.db, cfg, "judge@p.test", lambda: NOW)
    assert sent == len(t.outbox())
    row = t.db.execute("select status, attempts from outbox where id = ?", [first["id"]]).fetchone()
    assert tuple(row) == ("sent", 1)
    capsys.readouterr()
    assert t.cli("outbox", "list") == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.split()[0] == str(first["id"]))
    assert "sent" in line and " 1 try " in line
    [delivered] = smtp.to(first["to_addr"])[:1]
    assert delivered["Subject"] == first["subject"]
