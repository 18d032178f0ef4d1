"""Upgrades a host can trust: a database a newer judge wrote is refused by every command and left as it was, a backup
is taken before the first migration, `judge db backup` and `judge db check`, draws moved to their turn (m013), and
--db/--config honoured before every command."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from gamekit import POWERS, Table
from hypothesis import given
from hypothesis import strategies as st

from judge import __version__, config
from judge.cli import main
from judge.game.draws import turn_of
from judge.rules.phase import Phase
from judge.store import open_db
from judge.store.backup import BackupError, backup
from judge.store.health import check
from judge.store.schema import KNOWN, _turn_of_code
from judge.store.versions import NewerDatabase, schema_state

NEWER = "m999_from_the_future"


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with no configuration in reach."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUDGE_CONFIG", raising=False)
    monkeypatch.delenv("JUDGE_DB", raising=False)
    monkeypatch.setattr(config, "SYSTEM_CONFIG", tmp_path / "no-system-config.toml")
    return tmp_path


def _game(path: Path) -> Table:
    t = Table(path)
    t.seven("g", reuse=True)
    return t


def _as_before_m012(db: sqlite3.Connection | object, draw_phase: str | None = None) -> None:
    """Make a current database look as judge 0.1.0 (m011) left it: no versions recorded, and (``draw_phase``) an open
    draw stored under the phase code as the first judges did."""
    conn = db.conn if hasattr(db, "conn") else db  # type: ignore[union-attr]
    assert isinstance(conn, sqlite3.Connection)
    conn.execute("drop table judge_versions")
    conn.execute("drop table calendar_events")  # m020
    for table in ("openpgp_keys", "openpgp_key_ids", "used_signatures", "player_records"):  # m018, m021
        conn.execute(f"drop table {table}")
    conn.execute("alter table outbox drop column first_attempt_at")
    for table, column in (  # m019
        ("players", "reminders"),
        ("players", "calendar"),
        ("players", "reminded"),
        ("games", "remind_at"),
        ("games", "remind_for"),
        ("outbox", "calendar"),
    ):
        conn.execute(f"alter table {table} drop column {column}")
    since = KNOWN[KNOWN.index("m011_game_masters") + 1 :]
    conn.execute(f"delete from _sqlite_migrations where name in ({','.join('?' * len(since))})", since)
    if draw_phase is not None:
        conn.execute(
            "insert into draws (game_id, phase, proposer, votes, status) values (1, ?, 'England', ?, 'open')",
            [draw_phase, json.dumps({"England": "accept"})],
        )
    conn.commit()


def _config(*judge_lines: str) -> str:
    """A whole configuration (its servers never reached by these tests) with these [judge] lines."""
    return "\n".join(
        [
            "[judge]",
            'address = "judge@j.test"',
            *judge_lines,
            "[imap]",
            'host = "127.0.0.1"\nport = 9\nsecurity = "none"\nusername = "j"\npassword = "x"',
            "[smtp]",
            'host = "127.0.0.1"\nport = 9\nsecurity = "none"',
            "",
        ]
    )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _from_a_newer_judge(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute(
        "insert into _sqlite_migrations (migration_set, name, applied_at) values ('judge', ?, '2027-03-01')", [NEWER]
    )
    conn.execute("insert into judge_versions values (?, '0.9.1', '2027-03-01T09:00:00Z')", [NEWER])
    conn.commit()
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()


# --- a newer database is refused ------------------------------------------------------------------------------------

REFUSING = [
    ["game", "list"],
    ["game", "show", "g"],
    ["game", "tick"],
    ["game", "extend", "g", "1d"],
    ["outbox", "list"],
    ["map", "g"],
    ["db", "stats"],
    ["db", "prune"],
    ["mail", "handle", "msg.eml"],
    ["sandbox", "--from-game", "g", "empty.json"],
]


@pytest.mark.parametrize("argv", REFUSING, ids=" ".join)
def test_every_command_refuses_a_database_a_newer_judge_wrote(
    place: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    t = _game(place / "judge.db")
    t.db.conn.close()
    _from_a_newer_judge(place / "judge.db")
    (place / "msg.eml").write_bytes(b"From: a@b.test\r\nSubject: x\r\n\r\nSIGNON France g pw-France\r\nA par H\r\n")
    (place / "empty.json").write_text("{}")
    before = _digest(place / "judge.db")
    capsys.readouterr()
    assert main([*argv, "--db", "judge.db"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"written by judge 0.9.1 (its schema has {NEWER}, which judge {__version__} does not know)" in err[0]
    assert "upgrade the judge to 0.9.1 or later, or restore the backup" in err[0]
    assert _digest(place / "judge.db") == before  # nothing read into it, nothing written
    assert sorted(p.name for p in place.iterdir() if ".before-" in p.name) == []


def test_the_daemon_refuses_it_and_systemd_does_not_restart(place: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = _game(place / "judge.db")
    t.db.conn.close()
    _from_a_newer_judge(place / "judge.db")
    (place / "judge.toml").write_text(_config('db = "judge.db"'))
    (place / "judge.toml").chmod(0o600)
    before = _digest(place / "judge.db")
    assert main(["serve", "--once", "--config", "judge.toml"]) == 2
    err = capsys.readouterr().err
    assert "was written by judge 0.9.1" in err and "Traceback" not in err
    assert _digest(place / "judge.db") == before


def test_a_database_without_recorded_versions_names_a_newer_judge(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    open_db(path).conn.close()
    conn = sqlite3.connect(path)
    conn.execute("insert into _sqlite_migrations (migration_set, name, applied_at) values ('judge', ?, 'x')", [NEWER])
    conn.execute("delete from judge_versions")
    conn.commit()
    conn.close()
    with pytest.raises(NewerDatabase, match="written by a newer judge"):
        open_db(path)


def test_each_migration_records_the_judge_that_applied_it(tmp_path: Path) -> None:
    db = open_db(tmp_path / "j.db")
    state = schema_state(db)
    assert state.applied == tuple(KNOWN) and not state.pending and not state.unknown
    assert state.versions == dict.fromkeys(KNOWN, __version__)
    assert state.label() == f"{__version__}-{KNOWN[-1].split('_')[0]}"


# --- the backup before migrating ------------------------------------------------------------------------------------


def test_a_backup_is_taken_before_the_first_migration_and_only_then(tmp_path: Path) -> None:
    t = _game(tmp_path / "judge.db")
    _as_before_m012(t.db, draw_phase="S1901M")
    games = list(t.db.query("select name, phase, status from games"))
    t.db.conn.close()
    db = open_db(tmp_path / "judge.db")
    copies = sorted(tmp_path.glob("judge.m011.before-*.db"))
    assert [p.name.split(".")[1:3] for p in copies] == [["m011", f"before-{__version__.split('.')[0]}"]]
    assert copies[0].name.startswith(f"judge.m011.before-{__version__}.")
    # the copy is the database as it was: the old schema, the old draw, every game
    old = sqlite3.connect(copies[0])
    assert [r[0] for r in old.execute("select name from _sqlite_migrations")][-1] == "m011_game_masters"
    assert old.execute("select phase, status from draws").fetchall() == [("S1901M", "open")]
    assert old.execute("select name, phase, status from games").fetchall() == [tuple(g.values()) for g in games]
    assert old.execute("pragma integrity_check").fetchone() == ("ok",)
    assert old.execute("pragma journal_mode").fetchone() == ("delete",)  # one file, no -wal to lose
    old.close()
    # the database itself is migrated, and says by whom
    assert schema_state(db).versions["m013_draws_by_turn"] == __version__
    assert list(db.query("select phase, status from draws")) == [{"phase": "S1901", "status": "open"}]
    db.conn.close()
    open_db(tmp_path / "judge.db").conn.close()  # nothing pending: no second backup
    assert sorted(tmp_path.glob("judge.*.before-*.db")) == copies


def test_the_backup_goes_to_the_configured_folder(place: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = _game(place / "judge.db")
    _as_before_m012(t.db)
    t.db.conn.close()
    (place / "backups").mkdir()
    (place / "judge.toml").write_text(_config('backup_dir = "backups"'))
    (place / "judge.toml").chmod(0o600)
    assert main(["game", "list", "--config", "judge.toml"]) == 0
    assert [p.name.split(".")[1] for p in (place / "backups").iterdir()] == ["m011"]
    assert not list(place.glob("judge.*.before-*"))


def test_no_migration_without_its_backup(tmp_path: Path) -> None:
    t = _game(tmp_path / "judge.db")
    _as_before_m012(t.db)
    t.db.conn.close()
    (tmp_path / "not-a-folder").write_text("")
    with pytest.raises(BackupError, match="cannot write the backup"):
        open_db(tmp_path / "judge.db", backup_dir=tmp_path / "not-a-folder")
    conn = sqlite3.connect(tmp_path / "judge.db")
    assert "m012_judge_versions" not in {r[0] for r in conn.execute("select name from _sqlite_migrations")}
    assert not list(tmp_path.glob(".*.part"))  # no half-written copy left behind


def test_two_judges_opening_an_old_database_at_once_migrate_it_once(tmp_path: Path) -> None:
    t = _game(tmp_path / "judge.db")
    _as_before_m012(t.db, draw_phase="S1901M")
    t.db.conn.close()
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    def opener() -> None:
        try:
            start.wait()
            open_db(tmp_path / "judge.db").conn.close()
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=opener) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    copies = list(tmp_path.glob("judge.*.before-*.db"))
    assert len(copies) == 1
    conn = sqlite3.connect(copies[0])
    assert conn.execute("select phase from draws").fetchall() == [("S1901M",)]  # taken before the migration


def test_judge_db_backup_is_consistent_while_a_writer_is_busy(place: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = _game(place / "judge.db")
    writer = sqlite3.connect(place / "judge.db", isolation_level=None)
    writer.execute("begin immediate")
    writer.execute("update games set status = 'half-written'")  # not committed while the copy is taken
    assert main(["db", "backup", "copy.db", "--db", "judge.db"]) == 0
    assert "wrote copy.db" in capsys.readouterr().out
    writer.execute("rollback")
    copy = sqlite3.connect(place / "copy.db")
    assert copy.execute("select status from games").fetchall() == [("active",)]
    assert copy.execute("select count(*) from players").fetchone() == (len(POWERS),)
    assert (place / "copy.db").stat().st_mode == (place / "judge.db").stat().st_mode
    t.db.conn.close()
    with pytest.raises(BackupError, match="exists"):
        backup(place / "judge.db", place / "copy.db")


# --- judge db check ------------------------------------------------------------------------------------------------


def test_db_check_reads_an_old_database_without_changing_it(place: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = _game(place / "judge.db")
    t.db.conn.execute("update outbox set status = 'sent', sent_at = next_attempt")  # the start mails went out
    _as_before_m012(t.db)
    t.db.conn.close()
    before = _digest(place / "judge.db")
    capsys.readouterr()
    assert main(["db", "check", "--db", "judge.db"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["integrity", "foreign keys", "schema", "mail queue"]
    assert lines[0] == "integrity: ok" and lines[1] == "foreign keys: ok"
    assert lines[2] == (
        f"schema: m011_game_masters, applied by a judge before {__version__} (no version kept); judge {__version__} "
        f"applies {len(KNOWN) - 11} migrations at its next start, after a backup ({', '.join(KNOWN[11:])})"
    )
    assert lines[3] == "mail queue: 0 waiting, 0 being sent, 0 failed; none stuck"
    assert _digest(place / "judge.db") == before
    assert not list(place.glob("judge.*.before-*"))


def test_db_check_finds_what_is_wrong(place: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = _game(place / "judge.db")
    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    t.db.conn.execute("pragma foreign_keys = off")
    t.db.conn.execute("insert into players (game_id, power, email) values (99, 'France', 'ghost@p.test')")
    t.db.conn.execute("update outbox set status = 'queued', next_attempt = '2026-12-01T12:00:00Z'")
    t.db.conn.execute("update outbox set status = 'parked' where id = (select max(id) from outbox)")
    t.db.conn.commit()
    findings = {f.topic: f for f in check(place / "judge.db", now)}
    assert findings["integrity"].ok and findings["schema"].ok
    assert not findings["foreign keys"].ok
    assert findings["foreign keys"].text == "1 rows refer to rows that are gone (players -> games: 1)"
    queue = findings["mail queue"]
    assert not queue.ok
    waiting = t.db.execute("select count(*) from outbox where status = 'queued'").fetchone()[0]
    assert queue.text.startswith(f"{waiting} waiting, 0 being sent, 0 failed; {waiting + 1} stuck: {waiting} due")
    assert "1 with a status this judge does not know" in queue.text
    _from_a_newer_judge(place / "judge.db")
    assert main(["db", "check", "--db", "judge.db"]) == 1
    assert "schema: judge.db was written by judge 0.9.1" in capsys.readouterr().out


# --- m013: draws keyed by their turn -------------------------------------------------------------------------------


def _old_draws(t: Table, rows: list[tuple[str, str]]) -> None:
    _as_before_m012(t.db)
    for phase, status in rows:
        t.db.conn.execute(
            "insert into draws (game_id, phase, proposer, votes, status) values (1, ?, 'England', ?, ?)",
            [phase, json.dumps({"England": "accept"}), status],
        )
    t.db.conn.commit()


def test_an_open_draw_of_an_old_judge_can_still_be_accepted(tmp_path: Path) -> None:
    t = _game(tmp_path / "judge.db")
    _old_draws(t, [("S1901M", "open")])
    t.db.conn.close()
    t.db = open_db(tmp_path / "judge.db")
    for power in POWERS[:-1]:
        if power != "England":
            answer = t.reply(f"{power.lower()}@p.test", f"SIGNON {power} g pw-{power}\nDRAW ACCEPT")
            assert "no draw is proposed" not in answer
    t.reply("turkey@p.test", "SIGNON Turkey g pw-Turkey\nDRAW ACCEPT")
    game = next(iter(t.db.query("select status, result from games")))
    assert game["status"] == "finished" and json.loads(game["result"])["kind"] == "draw"


def test_old_proposals_of_one_turn_keep_the_one_that_counts(tmp_path: Path) -> None:
    t = _game(tmp_path / "judge.db")  # the game is in S1901M
    _old_draws(
        t,
        [
            ("S1901M", "rejected"),
            ("S1901R", "open"),
            ("F1900M", "accepted"),
            ("F1900R", "lapsed"),
            ("W1900A", "rejected"),
            ("F1899R", "lapsed"),
            ("W1899A", "accepted"),
            ("S1900M", "open"),  # a turn the game has left: lapses
        ],
    )
    t.db.conn.close()
    db = open_db(tmp_path / "judge.db")
    rows = {r["phase"]: r["status"] for r in db.query("select phase, status from draws")}
    assert rows == {"S1901": "open", "F1900": "accepted", "S1900": "lapsed", "F1899": "accepted"}


@given(st.sampled_from("SFW"), st.integers(1, 9999), st.sampled_from("MRA"))
def test_the_turn_of_a_stored_code_is_the_games_turn(season: str, year: int, step: str) -> None:
    try:
        phase = Phase.parse(f"{season}{year}{step}")
    except ValueError:
        return  # a code the judge never stores
    assert _turn_of_code(phase.code) == turn_of(phase)
    assert _turn_of_code(turn_of(phase)) == turn_of(phase)  # rows already keyed by turn stay as they are


@given(st.text(max_size=12))
def test_no_other_text_has_a_turn(text: str) -> None:
    turn = _turn_of_code(text)
    assert turn is None or turn == _turn_of_code(turn)


# --- --db and --config before every command -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [["game", "list"], ["game", "show", "g"], ["outbox", "list"], ["db", "stats"], ["db", "check"], ["map", "g"]],
    ids=" ".join,
)
def test_global_options_before_the_command_are_honoured(
    place: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    _game(place / "games.db").db.conn.close()
    capsys.readouterr()
    status = main(["--db", "games.db", *argv, *(["-o", "before.png"] if argv[0] == "map" else [])])
    before = capsys.readouterr()
    assert before.out.strip() and not before.err  # `db check` finds the start mails unsent (status 1): a finding
    assert main([*argv, "--db", "games.db", *(["-o", "after.png"] if argv[0] == "map" else [])]) == status
    after = capsys.readouterr().out.replace("after.png", "before.png")
    if argv == ["db", "stats"]:  # the bytes on disk may move by a page between two looks: the tables are the same
        words = [line.split()[:1] for line in before.out.splitlines()]
        assert [line.split()[:1] for line in after.splitlines()] == words
    else:
        assert after == before.out
    if argv[0] == "map":
        assert (place / "before.png").read_bytes() == (place / "after.png").read_bytes()


def test_map_reads_the_configuration_given_before_or_after_it(place: Path) -> None:
    _game(place / "games.db").db.conn.close()
    (place / "judge.toml").write_text(_config('db = "games.db"'))
    (place / "judge.toml").chmod(0o600)
    assert main(["--config", "judge.toml", "map", "g", "-o", "a.png"]) == 0
    assert main(["map", "g", "--config", "judge.toml", "-o", "b.png"]) == 0
    assert (place / "a.png").read_bytes() == (place / "b.png").read_bytes()


def test_init_takes_the_db_given_before_it(place: Path) -> None:
    assert main(["--db", "/srv/judge/games.db", "init", "j.toml"]) == 0
    assert 'db = "/srv/judge/games.db"' in (place / "j.toml").read_text()


# --- m014: games set up before the tie rules play on at a tie --------------------------------------------------------


def test_games_set_up_before_the_tie_rules_keep_playing_on_at_a_tie(tmp_path: Path) -> None:
    t = _game(tmp_path / "judge.db")
    t.cli("game", "create", "new")
    _as_before_m012(t.db)
    settings = json.loads(next(iter(t.db.query("select settings from games where name = 'g'")))["settings"])
    del settings["tie_others"]  # as every judge before the tie rules wrote them
    settings["last_year"] = 1905
    t.db.conn.execute("update games set settings = ? where name in ('g', 'new')", [json.dumps(settings)])
    settings["tie_others"] = None  # written by a judge that knew the rules: left alone
    t.db.conn.execute(
        "insert into games (name, variant, status, settings) values ('ours', 'classic', 'forming', ?)",
        [json.dumps(settings)],
    )
    t.db.conn.execute("update games set status = 'finished' where name = 'new'")
    t.db.conn.commit()
    t.db.conn.close()
    db = open_db(tmp_path / "judge.db")
    after = {r["name"]: json.loads(r["settings"]) for r in db.query("select name, settings from games")}
    assert after["g"]["tie_others"] == "play-on" and after["g"]["last_year"] == 1905
    assert "tie_others" not in after["new"]  # finished: nothing to decide any more
    assert after["ours"]["tie_others"] is None
    from judge.game.records import load_game
    from judge.rules.victory import TieOthers

    game = load_game(db, "g")
    assert game is not None and game.settings.victory(game.variant).tie_others is TieOthers.PLAY_ON


# --- users: a setting never chosen follows the judge's default -------------------------------------------------------


def test_a_language_never_chosen_follows_the_default_when_the_host_changes_it(tmp_path: Path) -> None:
    from judge.store.users import set_default_language, set_user, user_settings

    db = open_db(tmp_path / "j.db")
    set_default_language(db, "de")
    set_user(db, "ivan@p.test", timezone="Europe/Moscow")
    set_user(db, "anna@p.test", language="de")
    set_default_language(db, "ru")
    assert user_settings(db, "ivan@p.test") == {"timezone": "Europe/Moscow", "language": "ru"}
    assert user_settings(db, "anna@p.test") == {"timezone": "UTC", "language": "de"}
    set_user(db, "anna@p.test", timezone="Europe/Berlin")
    assert user_settings(db, "anna@p.test") == {"timezone": "Europe/Berlin", "language": "de"}


def test_a_second_backup_within_the_same_second_gets_a_name_of_its_own(tmp_path: Path) -> None:
    from judge.store.backup import backup_name

    db = open_db(tmp_path / "judge.db")
    state = schema_state(db)
    db.conn.close()
    now = datetime(2026, 12, 4, 21, 0, tzinfo=UTC)
    first = backup(tmp_path / "judge.db", backup_name(tmp_path / "judge.db", state, now))
    second = backup(tmp_path / "judge.db", backup_name(tmp_path / "judge.db", state, now))
    assert first != second and first.is_file() and second.is_file()
    assert second.name == first.name.replace(".db", "-1.db")
