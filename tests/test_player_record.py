"""The rest of issue #24: a player's record across games (counted at each deadline, shown at a join, RECORD and WHOIS
by mail, ``min_reliability``), the missed-orders options (``nmr_wait``, ``excuses``), ``bots`` set after creation,
and "(bot)" beside the powers the stand-in plays. Real SQLite, games through the command line and the mail handler."""

from __future__ import annotations

from pathlib import Path

import pytest
from gamekit import POWERS, Table
from hypothesis import given
from hypothesis import strategies as st

from judge.commands.body import parse_body
from judge.commands.items import LineProblem, MyRecord, WhoIs
from judge.game import records
from judge.game.settings import Bots, GameSettings
from judge.game.track_record import record_of


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str, game: str = "g") -> str:
    return "\n".join([f"SIGNON {power} {game} pw-{power}", *lines])


def game(t: Table, name: str = "g") -> records.Game:
    loaded = records.load_game(t.db, name)
    assert loaded is not None
    return loaded


def mails_to(t: Table, address: str, subject: str = "") -> list[dict[str, object]]:
    return [m for m in t.outbox() if m["to_addr"] == address and subject in str(m["subject"])]


def all_ready_but(t: Table, *silent: str, game_name: str = "g") -> None:
    for power in POWERS:
        if power not in silent:
            t.reply(addr(power), sign(power, "READY", game=game_name))


# --- settings ---------------------------------------------------------------------------------------------------------


def test_old_games_keep_the_old_behaviour() -> None:
    old = GameSettings.from_json('{"grace": 0, "abandon_after": 2}')
    assert (old.bots, old.nmr_wait, old.excuses, old.min_reliability) == (Bots.NONE, 0, 0, 0.0)
    assert old.missed_limit() == 2
    assert GameSettings(excuses=1).missed_limit() == 1  # excuses alone: the first unexcused miss abandons
    assert GameSettings().missed_limit() == 0


def test_bots_and_the_missed_orders_options_are_settable_after_creation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", reuse=True)
    for key, value in (("bots", "cd"), ("nmr_wait", "12h"), ("excuses", "1"), ("min_reliability", "80%")):
        assert t.cli("game", "settings", "g", key, value) == 0
    shown = t.show("g", capsys)["settings"]
    assert (shown["bots"], shown["nmr_wait"], shown["excuses"], shown["min_reliability"]) == ("cd", "12h", 1, 0.8)
    assert t.cli("game", "settings", "g", "min_reliability", "2") != 0
    assert t.cli("game", "settings", "g", "bots", "always") != 0
    t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    all_ready_but(t, "Italy")
    assert game(t).phase == "F1901M"
    assert t.show("g", capsys)["units"]["Italy"] != ["F nap", "A rom", "A ven"]  # the bot played Italy


def test_create_by_mail_takes_the_new_settings(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    reply = t.reply("boss@p.test", "CREATE club pw-master-1 bots=cd nmr-wait=12h excuses=1 min-reliability=0.8")
    assert "created club" in reply
    s = game(t, "club").settings
    assert (s.bots, s.nmr_wait, s.excuses, s.min_reliability) == (Bots.CD, 12 * 3600, 1, 0.8)


# --- (bot) in every mail that names a power the bot plays ------------------------------------------------------------


def test_the_powers_the_bot_plays_are_named_as_bots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--bots", "cd", reuse=True)
    t.reply(addr("England"), sign("England", "SET LANGUAGE ru"))
    t.reply(addr("France"), sign("France", "SET LANGUAGE de"))
    t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    all_ready_but(t, "Italy")
    for to, word in ((addr("Austria"), "Italy (bot)"), (addr("England"), "(бот)"), (addr("France"), "(Bot)")):
        (results,) = [m for m in t.outbox() if m["to_addr"] == to and "1901" in str(m["subject"])][-1:]
        assert word in str(results["body"])
        assert results["body"].count(word) >= 3  # the orders, the tally, the units after the phase
    assert "Austria (bot)" not in str(mails_to(t, addr("Austria"))[-1]["body"])
    listed = t.reply(addr("Austria"), "LIST g")
    assert "Italy (bot)" in listed and "italy@p.test" not in listed
    assert "Italy (bot)" in t.reply(addr("Austria"), "WHOGAME g")
    shown = t.show("g", capsys)
    assert [p["power"] for p in shown["players"] if p["bot"]] == ["Italy"]
    capsys.readouterr()
    assert t.cli("game", "show", "g") == 0
    assert "Italy (bot)" in capsys.readouterr().out


def test_the_start_mail_of_a_practice_game_names_the_bots(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--bots", "fill") == 0
    assert t.cli("game", "join", "g", "--power", "France", "--email", addr("France"), "--password", "pw-France") == 0
    assert t.cli("game", "start", "g") == 0
    (start,) = mails_to(t, addr("France"), "has started")
    assert "Germany (bot)" in str(start["body"]) and "France (bot)" not in str(start["body"])


def test_a_game_without_bots_names_nobody_a_bot(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", reuse=True)
    t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    all_ready_but(t, "Italy")
    assert not [m for m in t.outbox() if "(bot)" in str(m["body"])]


# --- the record -------------------------------------------------------------------------------------------------------


def miss_deadlines(t: Table, count: int, *, hours: int = 25) -> None:
    """Deadlines pass with nobody's orders in: each tick plays a phase."""
    for _ in range(count):
        t.later(hours=hours)
        assert t.cli("game", "tick") == 0


def test_deadlines_met_and_missed_are_counted_per_address(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "24h", reuse=True)
    t.reply(addr("France"), sign("France", "A par - bur"))
    miss_deadlines(t, 1)
    france, italy = record_of(t.db, addr("France")), record_of(t.db, addr("Italy"))
    assert (france.owed, france.missed, france.games) == (1, 0, 1)
    assert (italy.owed, italy.missed) == (1, 1)
    assert italy.reliability is None  # too short a record to judge
    mine = t.reply(addr("Italy"), "RECORD")
    assert "deadlines owed 1: met 0" in mine and "missed 1" in mine and "not judged yet" in mine
    assert "no record yet" in t.reply("nobody@p.test", "RECORD")
    t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    assert record_of(t.db, addr("Italy")).resigned == 1


def test_whois_is_for_the_game_master(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--master", "gm@p.test", "--deadline", "24h", reuse=True)
    assert t.cli("game", "master-password", "g", "--password", "pw-master-g") == 0
    miss_deadlines(t, 1)
    refused = t.reply("nosy@p.test", "WHOIS italy@p.test")
    assert "ERROR" in refused and "missed 1" not in refused
    told = t.reply("gm@p.test", "MASTER g pw-master-g\nWHOIS <Italy@p.test>")
    assert "italy@p.test: games 1" in told and "deadlines owed 1: met 0" in told


def test_the_game_master_hears_the_joiner_s_record_and_min_reliability_refuses(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "24h", reuse=True)
    miss_deadlines(t, 6)  # nobody gives orders: six movement phases (no winter adjustments without captures)
    italy = record_of(t.db, addr("Italy"))
    assert italy.owed >= 5 and italy.missed == italy.owed and italy.reliability == 0.0
    assert record_of(t.db, addr("Austria")).owed >= 5
    assert t.cli("game", "create", "h", "--master", "gm@p.test", "--min-reliability", "0.8") == 0
    refused = t.reply(addr("Italy"), "JOIN h pw-italy-h")
    assert "ERROR" in refused and "80%" in refused and "0%" in refused
    assert "ERROR" not in t.reply("new@p.test", "JOIN h pw-new-h")  # no record: welcome
    (notice,) = mails_to(t, "gm@p.test", "new@p.test")
    assert "no record yet" in str(notice["body"])
    assert t.cli("game", "join", "h", "--email", addr("Italy"), "--password", "pw-italy-h") == 0  # the master may
    assert t.cli("game", "settings", "h", "min_reliability", "0") == 0
    assert "ERROR" not in t.reply(addr("Austria"), "JOIN h pw-austria-h")
    (notice,) = mails_to(t, "gm@p.test", "austria@p.test")
    assert "reliability" in str(notice["body"]) and "  g: owed" in str(notice["body"])


# --- missed orders: nmr_wait and excuses ------------------------------------------------------------------------------


HOLDS = {
    "Austria": "A vie H",
    "England": "F lon H",
    "France": "A par H",
    "Germany": "A ber H",
    "Italy": "A ven H",
    "Russia": "A mos H",
    "Turkey": "A con H",
}


def test_nmr_wait_moves_the_deadline_once_and_tells_the_late(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "24h", "--nmr-wait", "12h", reuse=True)
    for power in POWERS:
        if power != "Italy":
            t.reply(addr(power), sign(power, HOLDS[power]))
    deadline = game(t).deadline
    assert deadline is not None
    t.later(hours=25)
    assert t.cli("game", "tick") == 0
    g = game(t)
    assert g.phase == "S1901M" and g.deadline is not None and g.deadline > deadline  # moved, not played
    assert mails_to(t, addr("Italy"), "are late")
    assert mails_to(t, addr("France"), "waiting for orders") and not mails_to(t, addr("Italy"), "waiting for orders")
    t.reply(addr("Italy"), sign("Italy", "A ven - pie"))  # in during the wait
    all_ready_but(t)  # everyone READY: played at once, the wait's end not waited for
    assert game(t).phase == "F1901M"
    italy = record_of(t.db, addr("Italy"))
    assert (italy.owed, italy.missed, italy.late) == (1, 0, 1)
    t.later(hours=25)
    assert t.cli("game", "tick") == 0  # nobody's orders: the wait again, once for this phase
    assert game(t).phase == "F1901M"
    t.later(hours=13)
    assert t.cli("game", "tick") == 0  # the moved deadline plays whatever is in
    assert game(t).phase != "F1901M"
    assert record_of(t.db, addr("Italy")).missed == 1


def test_excuses_come_before_abandon_after(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "24h", "--excuses", "1", "--abandon-after", "2", reuse=True)
    miss_deadlines(t, 1)  # S1901M: excused
    seat = next(p for p in records.players(t.db, game(t).id) if p.power == "Italy")
    assert seat.active
    assert mails_to(t, addr("Italy"), "(excused)")
    assert record_of(t.db, addr("Italy")).excused == 1
    miss_deadlines(t, 1)  # F1901M: one unexcused miss in a row
    assert next(p for p in records.players(t.db, game(t).id) if p.power == "Italy").active
    assert game(t).phase == "S1902M"  # nobody owed an adjustment: the winter was played at once
    miss_deadlines(t, 1)  # the second unexcused miss in a row: civil disorder
    seat = next(p for p in records.players(t.db, game(t).id) if p.power == "Italy")
    assert not seat.active
    italy = record_of(t.db, addr("Italy"))
    assert italy.abandoned == 1 and italy.excused == 1


def test_excuses_alone_abandon_at_the_first_miss_not_excused(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "24h", "--excuses", "1", reuse=True)
    miss_deadlines(t, 1)
    assert next(p for p in records.players(t.db, game(t).id) if p.power == "Italy").active
    miss_deadlines(t, 1)
    assert not next(p for p in records.players(t.db, game(t).id) if p.power == "Italy").active


# --- the parsers ------------------------------------------------------------------------------------------------------


@given(st.emails())
def test_whois_reads_any_address(address: str) -> None:
    (item,) = parse_body(f"WHOIS {address}").items
    assert isinstance(item, WhoIs) and item.email == address.lower()


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n@"), max_size=30))
def test_whois_without_an_address_is_a_problem_never_a_crash(word: str) -> None:
    parsed = parse_body(f"WHOIS {word}")
    assert not any(isinstance(i, WhoIs) for i in parsed.items)


@given(st.text(alphabet="abc xyz1", max_size=12))
def test_record_takes_nothing_after_it(tail: str) -> None:
    parsed = parse_body(f"RECORD {tail}")
    if tail.strip():
        assert isinstance(parsed.problems[0], LineProblem) and not parsed.items
    else:
        assert isinstance(parsed.items[0], MyRecord)
