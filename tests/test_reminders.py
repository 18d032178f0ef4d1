"""Issue #23, reminders a player chooses: SET REMINDER's lead times, the game's default, what each reminder lists,
moved deadlines moving them, none while orders are in and READY, none during a declared absence; the pure rule
(judge.game.reminders) and the lead-time parser, with properties."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from gamekit import Table
from hypothesis import given
from hypothesis import strategies as st

from judge.game.reminders import Reminded, look
from judge.timeutil import MAX_LEAD, MIN_LEAD, format_lead_times, parse_lead_times

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
D = datetime(2026, 12, 10, 12, 0, tzinfo=UTC)
H = 3600


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


def reminders_to(t: Table, who: str) -> list[dict[str, object]]:
    return [m for m in t.outbox() if "due soon" in str(m["subject"]) and m["to_addr"] == who]


# --- the pure rule ----------------------------------------------------------------------------------------------


def test_each_lead_time_reminds_once_and_a_later_deadline_reminds_again() -> None:
    leads, length = (24 * H, 2 * H), timedelta(hours=48)
    first = look(leads, D, "S1901M", length, Reminded(), D - timedelta(hours=30))
    assert not first.due and first.next_at == D - timedelta(hours=24)
    at24 = look(leads, D, "S1901M", length, first.reminded, D - timedelta(hours=24))
    assert at24.due and at24.reminded.leads == {24 * H} and at24.next_at == D - timedelta(hours=2)
    again = look(leads, D, "S1901M", length, at24.reminded, D - timedelta(hours=23))
    assert not again.due
    moved = D + timedelta(hours=12)  # extended: the 24-hour moment is ahead again
    later = look(leads, moved, "S1901M", length, again.reminded, D - timedelta(hours=22))
    assert not later.due and later.reminded.leads == frozenset() and later.next_at == moved - timedelta(hours=24)
    assert look(leads, moved, "S1901M", length, later.reminded, moved - timedelta(hours=24)).due


def test_two_moments_passed_together_give_one_reminder_and_long_leads_are_skipped() -> None:
    leads = (24 * H, 2 * H)
    both = look(leads, D, "S1901M", timedelta(hours=48), Reminded(), D - timedelta(hours=1))
    assert both.due and both.reminded.leads == {24 * H, 2 * H} and both.next_at is None
    short = look(leads, D, "F1901R", timedelta(hours=24), Reminded(), D - timedelta(hours=23, minutes=59))
    assert not short.due and short.next_at == D - timedelta(hours=2)  # 24h in a 24h phase: never
    new_phase = look(
        leads, D, "F1901M", timedelta(hours=48), Reminded("S1901M", frozenset(leads)), D - timedelta(hours=3)
    )
    assert new_phase.due  # what was passed in another phase does not count


@given(
    st.lists(st.integers(min_value=600, max_value=7 * 86400), max_size=3),
    st.lists(st.integers(min_value=0, max_value=10 * 86400), min_size=1, max_size=12),
)
def test_a_lead_time_never_reminds_twice_for_one_deadline(leads: list[int], offsets: list[int]) -> None:
    length, reminded, sent = timedelta(days=8), Reminded(), 0
    for offset in sorted(offsets, reverse=True):  # the clock only goes forward
        seen = look(tuple(leads), D, "S1901M", length, reminded, D - timedelta(seconds=offset))
        sent += seen.due
        reminded = seen.reminded
        assert seen.next_at is None or seen.next_at > D - timedelta(seconds=offset)
    assert sent <= len(set(leads))


# --- the parser ---------------------------------------------------------------------------------------------------

durations = st.integers(min_value=10, max_value=7 * 24 * 60).map(lambda m: timedelta(minutes=m))


@given(st.lists(durations, min_size=1, max_size=3))
def test_lead_times_read_back_what_they_print(leads: list[timedelta]) -> None:
    parsed = parse_lead_times([f"{int(d.total_seconds() // 60)}m" for d in leads])
    assert parsed == tuple(sorted({int(d.total_seconds()) for d in leads}, reverse=True))
    assert parse_lead_times(format_lead_times(parsed).split()) == parsed


@given(st.text(max_size=20))
def test_any_word_is_read_or_refused_with_a_reason(word: str) -> None:
    try:
        leads = parse_lead_times([word])
    except ValueError as exc:
        assert str(exc.args[0])
    else:
        assert leads == () or MIN_LEAD.total_seconds() <= leads[0] <= MAX_LEAD.total_seconds()


def test_lead_time_limits() -> None:
    assert parse_lead_times(["NONE"]) == ()
    for words in (["5m"], ["8d"], ["1h", "2h", "3h", "4h"], []):
        with pytest.raises(ValueError):
            parse_lead_times(words)


# --- the whole path: mail in, the tick, mail out ------------------------------------------------------------------


def test_set_reminder_lists_what_is_owed_and_follows_a_moved_deadline(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "48h", reuse=True)
    answer = t.reply(addr("France"), sign("France", "SET REMINDER 24h 2h", "A par H"))
    assert "reminders in game g: 1d 2h before each deadline" in answer
    t.reply(addr("England"), sign("England", "SET REMINDER NONE"))
    t.reply(addr("Turkey"), sign("Turkey", "F ank H", "A con H", "A smy H", "READY"))
    t.later(hours=25)
    t.cli("game", "tick")
    [first] = reminders_to(t, addr("France"))
    assert "Still without an order: A mar, F bre" in str(first["body"])
    assert "READY" in str(first["body"])
    assert not reminders_to(t, addr("England")) and not reminders_to(t, addr("Turkey"))
    assert len(reminders_to(t, addr("Germany"))) == 1  # the game's default, 24h
    t.cli("game", "extend", "g", "24h")  # the deadline moves: so do the reminders
    t.later(hours=1)
    t.cli("game", "tick")
    assert len(reminders_to(t, addr("France"))) == 1
    t.later(hours=22)  # 24 hours before the new deadline
    t.cli("game", "tick")
    assert len(reminders_to(t, addr("France"))) == 2
    t.later(hours=22)  # 2 hours before
    t.cli("game", "tick")
    t.cli("game", "tick")
    assert len(reminders_to(t, addr("France"))) == 3 and len(reminders_to(t, addr("Germany"))) == 2


def test_no_reminder_during_a_declared_absence(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db", now=datetime(2026, 12, 1, 12, tzinfo=UTC))
    t.seven("g", "--deadline", "72h", reuse=False)
    t.reply(addr("Italy"), sign("Italy", "SET ABSENCE 2026-12-03"))  # the deadline moves past the absence
    t.later(hours=38)  # 2026-12-03 02:00 UTC: Italy is away
    t.cli("game", "tick")
    assert not reminders_to(t, addr("Italy"))
