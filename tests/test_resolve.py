"""Early resolution and orders for later phases, by mail: powers that owe nothing are not waited for, phases nobody
owes anything in are played at once, ``--resolve orders-in`` with SET WAIT / SET NOWAIT, and PHASE … orders kept for
a later phase and checked when it opens."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from gamekit import POWERS, Table
from hypothesis import given
from hypothesis import strategies as st

from judge.commands.body import parse_body
from judge.commands.items import SetAbsence
from judge.game import records
from judge.game.settings import GameSettings, Resolve


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


def phase(t: Table) -> str:
    game = records.load_game(t.db, "g")
    assert game is not None and game.phase is not None
    return game.phase


def everyone_ready(t: Table, but: tuple[str, ...] = ()) -> None:
    for power in POWERS:
        if power not in but:
            t.reply(addr(power), sign(power, "READY"))


def dislodge_venice(t: Table, *, italy_resigns: bool = False) -> None:
    """Spring: Austria A vie - tyr. Fall: F tri - ven supported by A tyr, Italy's A ven holds and is dislodged."""
    t.reply(addr("Austria"), sign("Austria", "A vie - tyr"))
    everyone_ready(t)
    assert phase(t) == "F1901M"
    t.reply(addr("Austria"), sign("Austria", "F tri - ven", "A tyr S F tri - ven"))
    if italy_resigns:
        t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    everyone_ready(t, but=("Italy",) if italy_resigns else ())


@pytest.fixture
def t(tmp_path: Path) -> Table:
    table = Table(tmp_path / "judge.db")
    table.seven("g", reuse=True)
    return table


@pytest.fixture
def fast(tmp_path: Path) -> Table:
    table = Table(tmp_path / "judge.db")
    table.seven("g", "--resolve", "orders-in", reuse=True)
    return table


def test_a_retreat_phase_waits_only_for_the_power_that_owes_a_retreat(t: Table) -> None:
    dislodge_venice(t)
    assert phase(t) == "F1901R"
    assert "ERROR" not in t.reply(addr("England"), sign("England", "READY"))
    assert phase(t) == "F1901R"  # England owes nothing here; Italy is still waited for
    t.reply(addr("Italy"), sign("Italy", "A ven - pie", "READY"))
    assert phase(t) == "W1901A"  # nobody else was asked for a READY


def test_a_phase_where_only_powers_in_civil_disorder_owe_is_played_at_once(t: Table) -> None:
    dislodge_venice(t, italy_resigns=True)
    # F1901R: only resigned Italy had a unit to retreat; it was disbanded at once, no deadline waited for
    assert phase(t) == "W1901A"
    played = [r["phase"] for r in t.db.query("select phase from phases order by rowid")]
    assert played == ["S1901M", "F1901M", "F1901R"]
    t.reply(addr("Austria"), sign("Austria", "Build A vie", "READY"))
    assert phase(t) == "S1902M"  # Austria alone owed a build; resigned Italy's removal was civil disorder


def test_orders_in_resolves_when_the_last_complete_set_arrives(fast: Table) -> None:
    for power in POWERS[:-1]:
        fast.reply(addr(power), sign(power, *[f"{u} H" for u in _units(fast, power)]))
    assert phase(fast) == "S1901M"
    text = fast.reply(addr("Turkey"), sign("Turkey", "F ank H", "A con H"))
    assert phase(fast) == "S1901M"  # Turkey's A smy has no order yet: its set is not complete
    assert "smy" in text.lower()
    fast.reply(addr("Turkey"), sign("Turkey", "A smy H"))
    assert phase(fast) == "F1901M"


def test_set_wait_holds_the_game_until_nowait_or_ready(fast: Table) -> None:
    answer = fast.reply(addr("France"), sign("France", "SET WAIT"))
    assert "will wait for the deadline or your READY" in answer
    for power in POWERS:
        fast.reply(addr(power), sign(power, *[f"{u} H" for u in _units(fast, power)]))
    assert phase(fast) == "S1901M"  # France waits, though every set is in
    answer = fast.reply(addr("France"), sign("France", "SET NOWAIT"))
    assert "may resolve as soon as every order due is in" in answer
    assert phase(fast) == "F1901M"
    seat = next(p for p in records.players(fast.db, 1) if p.power == "France")
    assert seat.wait is False
    # kept until withdrawn: a WAIT sent in Spring still holds in the Fall
    fast.reply(addr("France"), sign("France", "SET WAIT"))
    for power in POWERS:
        fast.reply(addr(power), sign(power, *[f"{u} H" for u in _units(fast, power)]))
    assert phase(fast) == "F1901M"
    fast.reply(addr("France"), sign("France", "READY"))  # READY says the orders are final: no more waiting
    assert phase(fast) == "S1902M"  # nothing changed hands: no adjustments, straight to the next Spring


def test_set_wait_in_a_ready_game_is_kept_and_said_to_change_nothing(t: Table) -> None:
    answer = t.reply(addr("France"), sign("France", "SET WAIT"))
    assert "resolves early only when everyone is READY" in answer
    assert "SET needs" not in answer


def test_wait_and_phase_need_a_sign_on_and_are_read_strictly(t: Table) -> None:
    assert "sign on first" in t.reply("eve@evil.test", "SET WAIT")
    assert "takes nothing after it" in t.reply(addr("France"), sign("France", "SET WAIT please"))
    assert "PHASE needs a later phase" in t.reply(addr("France"), sign("France", "PHASE soon"))
    assert "is not like S1901M" in t.reply(addr("France"), sign("France", "PHASE X1901M"))


def test_resolve_setting_by_command_line_is_checked_and_applies_at_once(t: Table, capsys) -> None:
    for power in POWERS:
        t.reply(addr(power), sign(power, *[f"{u} H" for u in _units(t, power)]))
    assert phase(t) == "S1901M"  # ready mode: all orders in, nobody READY
    assert t.cli("game", "settings", "g", "resolve", "sometimes") != 0
    assert "resolve: one of ready, orders-in" in capsys.readouterr().err
    assert t.cli("game", "settings", "g", "resolve", "orders-in") == 0
    assert phase(t) == "F1901M"  # every set was in: the change resolved the phase


def test_settings_round_trip_the_resolve_mode() -> None:
    s = GameSettings(resolve=Resolve.ORDERS_IN)
    assert GameSettings.from_json(s.to_json()).resolve is Resolve.ORDERS_IN
    assert GameSettings.from_json("{}").resolve is Resolve.READY


def test_phase_orders_are_kept_and_checked_when_the_phase_opens(t: Table) -> None:
    t.reply(addr("Austria"), sign("Austria", "A vie - tyr"))
    everyone_ready(t)
    t.reply(addr("Austria"), sign("Austria", "F tri - ven", "A tyr S F tri - ven"))
    answer = t.reply(
        addr("Italy"), sign("Italy", "PHASE F1901R", "A ven - pie", "A ven - zzz", "PHASE F1901M", "READY")
    )
    assert "kept for Fall 1901 retreats" in answer
    assert "the orders that follow are for the current phase" in answer
    assert answer.count("ERROR") == 1  # the line naming no place
    everyone_ready(t, but=("Italy",))
    assert phase(t) == "F1901R"
    told = [m for m in t.outbox() if m["to_addr"] == addr("Italy") and "kept" in m["subject"]]
    assert len(told) == 1
    assert "A ven - pie: OK" in told[0]["body"]
    kept = records.orders_of(t.db, 1, "F1901R")
    assert kept == {"Italy": ["A ven - pie"]}
    t.reply(addr("Italy"), sign("Italy", "READY"))
    game = records.load_game(t.db, "g")
    assert game is not None and game.position is not None
    assert any(u.power == "Italy" and t_loc(game, u.loc) == "pie" for u in game.position.units.values())


def test_phase_orders_complete_an_orders_in_phase_when_it_opens(fast: Table) -> None:
    fast.reply(addr("Austria"), sign("Austria", "A vie - tyr", "A bud H", "F tri H"))
    fast.reply(addr("Italy"), sign("Italy", "PHASE S1901R", "A ven - pie"))  # a phase that never comes
    answer = fast.reply(addr("Italy"), sign("Italy", "PHASE W1901A", "Build A ven"))
    assert "orders can be kept for" in answer and answer.count("ERROR") == 2
    for power in POWERS:
        if power != "Austria":
            fast.reply(addr(power), sign(power, *[f"{u} H" for u in _units(fast, power)]))
    assert phase(fast) == "F1901M"
    told = [m for m in fast.outbox() if m["to_addr"] == addr("Italy") and "kept" in m["subject"]]
    assert len(told) == 1 and "not used" in told[0]["body"]  # S1901R was skipped: nothing was due
    assert list(fast.db.query("select * from future_orders")) == []


def test_phase_orders_for_the_next_movement_resolve_it_at_once(fast: Table) -> None:
    for power in POWERS:
        lines = [f"{u} H" for u in _units(fast, power)]
        fast.reply(addr(power), sign(power, "PHASE F1901M", *lines, "PHASE S1901M", *lines))
    # S1901M resolved on the last set; F1901M opened with every set kept for it: resolved too; nothing changed
    assert phase(fast) == "S1902M"


def test_clear_after_phase_withdraws_the_kept_orders(t: Table) -> None:
    t.reply(addr("France"), sign("France", "PHASE F1901M", "A par - bur"))
    answer = t.reply(addr("France"), sign("France", "PHASE F1901M", "CLEAR"))
    assert "withdrawn" in answer
    assert list(t.db.query("select * from future_orders")) == []


def test_phase_answers_are_worded_in_russian_and_german(t: Table) -> None:
    t.reply(addr("France"), sign("France", "SET LANGUAGE ru"))
    ru = t.reply(addr("France"), sign("France", "PHASE F1901M", "A par - bur", "SET WAIT"))
    t.reply(addr("Germany"), sign("Germany", "SET LANGUAGE de"))
    de = t.reply(addr("Germany"), sign("Germany", "PHASE F1901M", "A mun - bur", "SET NOWAIT"))
    for english in ("kept for", "the orders that follow", "resolves early"):
        assert english not in ru and english not in de


def _units(t: Table, power: str) -> list[str]:
    game = records.load_game(t.db, "g")
    assert game is not None and game.position is not None
    geo = game.variant.geo
    return [f"{u.kind.value} {geo.loc_names[u.loc]}" for u in game.position.units.values() if u.power == power]


def t_loc(game: records.Game, loc: int) -> str:
    return str(game.variant.geo.loc_names[loc]).lower()


# --- SET ABSENCE ----------------------------------------------------------------------------------------------------


def deadline(t: Table) -> str:
    game = records.load_game(t.db, "g")
    assert game is not None and game.deadline is not None
    return f"{game.deadline:%Y-%m-%d %H:%M}"


def test_absence_moves_the_deadline_and_tells_the_others(t: Table) -> None:
    assert deadline(t) == "2026-12-03 12:00"
    before = len(t.outbox())
    answer = t.reply(addr("France"), sign("France", "SET ABSENCE 2026-12-03 TO 2026-12-05"))
    assert "absence noted: no deadline of g falls from 2026-12-03 to 2026-12-05" in answer
    assert deadline(t) == "2026-12-06 00:00"
    told = [m for m in t.outbox()[before:] if "deadline moved" in m["subject"]]
    assert sorted(m["to_addr"] for m in told) == sorted(addr(p) for p in POWERS if p != "France")
    assert "Sun 6 Dec 2026 00:00 UTC" in told[0]["body"]


def test_the_next_deadline_skips_an_absence_too(t: Table) -> None:
    t.reply(addr("France"), sign("France", "SET ABSENCE 2026-12-02 TO 2026-12-03"))
    assert deadline(t) == "2026-12-04 00:00"
    everyone_ready(t)
    assert phase(t) == "F1901M"
    assert deadline(t) == "2026-12-04 00:00"  # now + 48h fell on 2026-12-03 12:00, inside the absence


def test_absences_are_days_in_the_players_zone(t: Table) -> None:
    t.reply(addr("France"), sign("France", "SET TIMEZONE Europe/Moscow", "SET ABSENCE 2026-12-03"))
    assert deadline(t) == "2026-12-03 21:00"  # midnight in Moscow


def test_absence_limit_per_year_and_clear(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--absence-days", "5", reuse=True)
    assert "absence noted" in t.reply(addr("France"), sign("France", "SET ABSENCE 2026-12-10 TO 2026-12-13"))
    refused = t.reply(addr("France"), sign("France", "SET ABSENCE 2026-12-20 TO 2026-12-21"))
    assert "allows at most 5 days of absence a year; you have declared 4 in 2026, and this is 2" in refused
    assert len(list(t.db.query("select * from absences"))) == 1
    assert "withdrawn (1)" in t.reply(addr("France"), sign("France", "SET ABSENCE CLEAR"))
    assert "absence noted" in t.reply(addr("France"), sign("France", "SET ABSENCE 2026-12-20 TO 2026-12-21"))
    assert "over already" in t.reply(addr("France"), sign("France", "SET ABSENCE 2026-11-20"))
    assert "sign on first" in t.reply("eve@evil.test", "SET ABSENCE 2026-12-20")
    assert t.cli("game", "settings", "g", "absence_days_per_year", "400") != 0


def test_a_resigned_players_absence_no_longer_holds_deadlines(t: Table) -> None:
    t.reply(addr("Italy"), sign("Italy", "SET ABSENCE 2026-12-02 TO 2026-12-03"))
    assert deadline(t) == "2026-12-04 00:00"
    t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    everyone_ready(t, but=("Italy",))
    assert deadline(t) == "2026-12-03 12:00"  # now + 48h: Italy no longer plays


def test_a_resumed_game_keeps_its_deadline_out_of_an_absence(t: Table) -> None:
    assert t.cli("game", "pause", "g") == 0
    assert "absence noted" in t.reply(addr("France"), sign("France", "SET ABSENCE 2026-12-01 TO 2026-12-04"))
    assert t.cli("game", "resume", "g") == 0
    assert deadline(t) == "2026-12-05 00:00"  # the 48 hours left would have ended inside France's absence


def test_a_replaced_player_leaves_no_wait_or_absence_behind(fast: Table) -> None:
    fast.reply(addr("France"), sign("France", "SET WAIT", "SET ABSENCE 2026-12-20 TO 2026-12-22"))
    assert fast.cli("game", "replace", "g", "--power", "France", "--email", "fr2@p.test", "--password", "pw-fr2") == 0
    seat = next(p for p in records.players(fast.db, 1) if p.power == "France")
    assert seat.wait is False
    assert list(fast.db.query("select * from absences")) == []


def test_orders_kept_by_a_power_that_resigned_are_not_used(t: Table) -> None:
    t.reply(addr("Italy"), sign("Italy", "PHASE F1901M", "A ven H", "RESIGN"))
    everyone_ready(t, but=("Italy",))
    assert phase(t) == "F1901M"
    told = [m for m in t.outbox() if m["to_addr"] == addr("Italy") and "kept" in m["subject"]]
    assert len(told) == 1 and "A ven H: not used" in told[0]["body"]
    assert records.orders_of(t.db, 1, "F1901M") == {}


def test_no_absence_in_a_finished_game(t: Table) -> None:
    assert t.cli("game", "end", "g", "--abandoned") == 0
    answer = t.reply(addr("France"), sign("France", "SET ABSENCE 2026-12-20"))
    assert "no deadlines to keep clear" in answer


# --- the parsers, as properties -------------------------------------------------------------------------------------

_days = st.dates(min_value=date(1900, 1, 1), max_value=date(9999, 12, 31))


@given(_days, _days)
def test_set_absence_reads_any_two_days(first: date, last: date) -> None:
    body = parse_body(f"SET ABSENCE {first.isoformat()} TO {last.isoformat()}")
    if last < first:
        assert body.items == () and "ends on or after" in str(body.problems[0].reason)
    else:
        assert body.items == (SetAbsence(1, body.items[0].text, first, last),)


@given(st.integers(1, 99999), st.sampled_from(["S", "F", "W"]), st.sampled_from(["M", "R", "A"]))
def test_phase_reads_codes_and_words_alike(year: int, season: str, step: str) -> None:
    code = f"{season}{year}{step}"
    valid = (season == "W") == (step == "A")
    names = {"S": "Spring", "F": "Fall", "W": "Winter"}, {"M": "movement", "R": "retreats", "A": "adjustments"}
    for line in (f"PHASE {code}", f"PHASE {names[0][season]} {year} {names[1][step]}"):
        body = parse_body(line)
        if valid:
            assert [getattr(i, "phase", None) for i in body.items] == [code]
        else:
            assert body.items == () and len(body.problems) == 1


@given(st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=60))
def test_phase_and_absence_lines_never_raise_and_are_one_entry(rest: str) -> None:
    """Whatever follows the command word on its line, the line is one command or one problem, never an order."""
    for head in ("PHASE", "SET ABSENCE", "SET WAIT", "SET NOWAIT"):
        body = parse_body(f"{head} {rest}")
        assert len(body.items) + len(body.problems) == 1
        assert not any(type(i).__name__ == "OrderLine" for i in body.items)


def test_a_rollback_drops_the_orders_kept_for_later_phases(t: Table) -> None:
    everyone_ready(t)
    t.reply(addr("France"), sign("France", "PHASE S1902M", "A par H"))
    assert len(list(t.db.query("select * from future_orders"))) == 1
    assert t.cli("game", "rollback", "g", "S1901M") == 0
    assert list(t.db.query("select * from future_orders")) == []
