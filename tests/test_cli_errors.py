"""Every command, on a bad argument, a missing file, bad TOML, an unknown game or a closed pipe: one line on stderr,
exit status 2 (usage or configuration) or 1 (runtime), never a traceback, and nothing created or changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gamekit import Table

from judge import config
from judge.cli import main

ROOT = Path(__file__).resolve().parent.parent
USAGE, RUNTIME = 2, 1


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder with no configuration anywhere (not even the system one)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUDGE_CONFIG", raising=False)
    monkeypatch.delenv("JUDGE_DB", raising=False)
    monkeypatch.setattr(config, "SYSTEM_CONFIG", tmp_path / "no-system-config.toml")
    (tmp_path / "bad.toml").write_text("[judge\naddress = 1\n")
    (tmp_path / "badvariant.toml").write_text("name = 'x'\nname = 'y'\n")
    (tmp_path / "msg.eml").write_bytes(b"From: a@b.test\r\nSubject: x\r\n\r\nLIST\r\n")
    t = Table(tmp_path / "games.db")
    t.seven("g", reuse=True)
    t.db.conn.close()
    return tmp_path


DB = ["--db", "games.db"]


def _files(folder: Path) -> list[str]:
    """The files in ``folder``, but for SQLite's -wal and -shm (which come and go with connections)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(("-wal", "-shm")))


# (command line, exit status, a word the one line must contain)
CASES = [
    ([], USAGE, "choose a command"),
    (["nosuch"], USAGE, "invalid choice"),
    (["--config", "missing.toml", "game", "list"], USAGE, "missing.toml"),
    (["--config", "bad.toml", "game", "list"], USAGE, "not valid TOML"),
    (["sandbox", "nosuch.json"], RUNTIME, "nosuch.json"),
    (["sandbox", "--bogus"], USAGE, "unrecognized"),
    (["sandbox", "."], RUNTIME, "."),
    (["key"], USAGE, "required"),
    (["key", "export", "--config", "missing.toml"], USAGE, "missing.toml"),
    (["variant"], USAGE, "required"),
    (["variant", "check"], USAGE, "required"),
    (["variant", "check", "nosuch.toml"], RUNTIME, "nosuch.toml"),
    (["variant", "check", "badvariant.toml"], RUNTIME, "1 problem"),
    (["variant", "list", "--config", "bad.toml"], USAGE, "bad.toml"),
    (["variant", "show", "nosuch"], RUNTIME, "unknown variant"),
    (["game"], USAGE, "ACTION"),
    (["game", "list"], USAGE, "no configuration found"),
    (["game", "list", "--db", "nosuch.db"], RUNTIME, "no database"),
    (["game", "show", "nosuch", *DB], RUNTIME, "no game called"),
    (["game", "show", "nosuch", "--db", "nosuch.db"], RUNTIME, "no database"),
    (["game", "create", *DB], USAGE, "name"),
    (["game", "create", "g2", "--deadline", "soon", *DB], USAGE, "--deadline"),
    (["game", "create", "g2", "--variant", "atlantis", *DB], RUNTIME, "unknown variant"),
    (["game", "create", "g2", "--variant", "badvariant.toml", *DB], RUNTIME, "given twice"),
    (["game", "create", "g2", "--solo", "many", *DB], USAGE, "invalid int"),
    # the game server's refusals are marked for translation; the command line prints their English
    (["game", "create", "g2", "--solo", "17", *DB], RUNTIME, "solo 17 is at or below half of the 34 centres"),
    (["game", "create", "g2", "--points", "par:x", *DB], USAGE, "--points: points: par = 'x': a value is a whole"),
    (["game", "create", "g2", "--points", "atl:3", "--tie-break", "France,France", *DB], RUNTIME, "'wal'?; tie_break"),
    (["game", "create", "g2", "--db", "/nonexistent/dir/j.db"], RUNTIME, "does not exist"),
    (["game", "join", "nosuch", "--email", "a@b.test", "--password", "secret", *DB], RUNTIME, "no game called"),
    (["game", "join", "g", *DB], USAGE, "--email"),
    (["game", "join", "g", "--email", "x@p.test", "--password-file", "nosuch.txt", *DB], RUNTIME, "nosuch.txt"),
    (["game", "start", "nosuch", *DB], RUNTIME, "no game called"),
    (["game", "start", "g", "--seed", "x", *DB], USAGE, "invalid int"),
    (["game", "process", "nosuch", *DB], RUNTIME, "no game called"),
    (["game", "pause", "nosuch", *DB], RUNTIME, "no game called"),
    (["game", "resume", "nosuch", *DB], RUNTIME, "no game called"),  # resuming a running game: nothing changed, 0
    (["game", "extend", "g", *DB], USAGE, "duration"),
    (["game", "extend", "g", "soon", *DB], USAGE, "cannot read"),
    (["game", "extend", "g", "--to", "tomorrow", *DB], USAGE, "--to"),
    (["game", "extend", "g", "--to", "2000-01-01T00:00", *DB], RUNTIME, "has passed"),
    (["game", "shorten", "g", "30d", *DB], RUNTIME, "has passed"),
    (
        ["game", "replace", "g", "--power", "Atlantis", "--email", "n@p.test", "--password", "secret", *DB],
        RUNTIME,
        "no power",
    ),
    (["game", "eject", "g", "Atlantis", *DB], RUNTIME, "Classic has no power 'Atlantis'; it has Austria, England"),
    (["game", "master-password", "nosuch", "--password", "secret", *DB], RUNTIME, "no game called"),
    (["game", "master-password", "g", "--password", "x", *DB], RUNTIME, "at least"),
    (["game", "approve", "g", "Turkey", *DB], RUNTIME, "nobody waits"),
    (["game", "reject", "g", "Atlantis", *DB], RUNTIME, "nobody waits"),
    (["game", "end", "g", *DB], USAGE, "required"),
    (["game", "end", "g", "--draw", "France", *DB], RUNTIME, "at least two"),
    (["game", "delete", "g", *DB], RUNTIME, "has started"),
    (["game", "settings", "g", "colour", "red", *DB], RUNTIME, "unknown setting"),
    (["game", "settings", "g", "press", *DB], USAGE, "needs a value"),
    (["game", "settings", "g", "solo", "99", *DB], RUNTIME, "solo must be between 1 and 34 for Classic"),
    (["game", "settings", "g", "deadline", "90d", *DB], RUNTIME, "'90d' is too long; a deadline may be at most 60"),
    (["game", "settings", "g", "press", "loud", *DB], RUNTIME, "press: one of white, grey, both, none"),
    (["game", "rollback", "g", "S1800M", *DB], RUNTIME, "no played phase"),
    (["game", "tick", "--now", "yesterday", *DB], USAGE, "--now"),
    (["game", "export", "nosuch", "--format", "json", *DB], RUNTIME, "no game called"),
    (["game", "export", "g", *DB], USAGE, "--format"),
    (["game", "export", "g", "--format", "pdf", *DB], USAGE, "invalid choice"),
    (["game", "export", "g", "--format", "json", "--db", "nosuch.db"], RUNTIME, "no database"),
    (["game", "export", "g", "--format", "mila", "-o", "/nonexistent/dir/g.json", *DB], RUNTIME, "cannot write"),
    (["mail"], USAGE, "ACTION"),
    (["mail", "handle", "/nonexistent.eml", *DB], RUNTIME, "/nonexistent.eml"),
    (["mail", "handle", "msg.eml", "--db", "/nonexistent/dir/j.db"], RUNTIME, "does not exist"),
    (["outbox", "list", "--status", "lost", *DB], USAGE, "invalid choice"),
    (["outbox", "show", "99999", *DB], RUNTIME, "no mail 99999 in the outbox"),
    (["outbox", "show", "first", *DB], USAGE, "invalid int"),
    (["game", "create", "g2", "--reminders", "24h 2h 1h 30m", *DB], USAGE, "--reminders: at most 3 reminders"),
    (["outbox", "list", "--db", "nosuch.db"], RUNTIME, "no database"),
    (["serve", "--config", "missing.toml"], USAGE, "judge init"),
    (["serve", "--config", "bad.toml"], USAGE, "not valid TOML"),
    (["init", "/nonexistent/dir/j.toml"], RUNTIME, "/nonexistent/dir"),
    (["init", "bad.toml"], RUNTIME, "exists"),
    (["check-config", "--config", "missing.toml"], USAGE, "judge init"),
    (["check-config", "--config", "bad.toml"], USAGE, "not valid TOML"),
    (["check-config", "--config", "."], USAGE, "folder"),
    (["demo", "--years", "many"], USAGE, "invalid int"),
    (["map", "nosuch", *DB], RUNTIME, "no game called"),
    (["web", "build", *DB], USAGE, "set [web] dir"),
    (["web", "build", "--dir", "site", "--db", "nosuch.db"], RUNTIME, "no database"),
    (["map", "g", "--db", "nosuch.db"], RUNTIME, "no database"),
    (["db"], USAGE, "ACTION"),
    (["db", "stats", "--db", "nosuch.db"], RUNTIME, "no database"),
    (["db", "stats"], USAGE, "no configuration found"),
    (["db", "prune", "--db", "nosuch.db"], RUNTIME, "no database"),
    (["db", "prune", "--config", "bad.toml"], USAGE, "not valid TOML"),
    (["db", "backup", "copy.db", "--db", "nosuch.db"], RUNTIME, "no database at nosuch.db"),
    (["db", "backup", "msg.eml", *DB], RUNTIME, "msg.eml exists"),
    (["db", "backup", "/nonexistent/dir/copy.db", *DB], RUNTIME, "cannot write the backup"),
    (["db", "backup", *DB], USAGE, "required: FILE"),
    (["db", "check", "--db", "nosuch.db"], RUNTIME, "no database at nosuch.db"),
    (["db", "check", "--config", "bad.toml"], USAGE, "not valid TOML"),
    (["--db", "nosuch.db", "map", "g"], RUNTIME, "no database"),
    (["map", "g", "--config", "missing.toml"], USAGE, "missing.toml"),
    (["demo", "--config", "judge.toml"], USAGE, "reads no configuration"),
]


@pytest.mark.parametrize("argv,status,word", CASES, ids=[" ".join(c[0]) or "(nothing)" for c in CASES])
def test_one_line_and_the_right_status(
    place: Path, capsys: pytest.CaptureFixture[str], argv: list[str], status: int, word: str
) -> None:
    before = _files(place)
    assert main(argv) == status
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip() and "warning" not in line]
    assert len(lines) == 1, err
    assert word in lines[0], lines[0]
    assert "Traceback" not in err
    assert _files(place) == before  # nothing created: no stray judge.db


def test_every_subcommand_has_a_case() -> None:
    from judge.cli import _parser

    tried = {tuple(a for a in argv if not a.startswith("-"))[:2] for argv, _, _ in CASES}
    parser = _parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name, sub in commands.items():
        actions = [a for a in sub._actions if isinstance(a, type(parser._subparsers._group_actions[0]))]
        if actions:
            for action in actions[0].choices:
                assert any(t[:2] == (name, action) for t in tried), f"no error case for judge {name} {action}"
        else:
            assert any(t[:1] == (name,) for t in tried), f"no error case for judge {name}"


def test_a_closed_pipe_is_quiet(place: Path) -> None:
    """`judge … | head -1`: the reader goes away; no BrokenPipeError traceback, exit status 1."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    (place / "many.jsonl").write_text('{"variant": "classic"}\n' * 3000)  # megabytes of output: more than a pipe holds
    proc = subprocess.Popen(
        [sys.executable, "-m", "judge.cli", "sandbox", "--batch", "many.jsonl"],
        cwd=place,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # like head after its first line
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_read_only_commands_never_create_a_database(place: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["game", "list"], ["game", "show", "g"], ["outbox", "list"], ["game", "tick"]):
        assert main([*argv, "--db", "fresh.db"]) == 1
    assert not (place / "fresh.db").exists()
    assert "judge game create" in capsys.readouterr().err
