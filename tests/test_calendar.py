"""Issue #23, deadline invitations: the start mail, results and every mail of a moved deadline carry the deadline as
an iCalendar event (one per deadline, its UID kept and its SEQUENCE rising when it moves), in the player's zone and
language with an alarm at his first reminder; a pause, the end and leaving the seat cancel it; SET CALENDAR OFF stops
them. Sent for real: a real SQLite file, the SMTP path to an aiosmtpd sink, the bytes parsed back with the email
package and icalendar."""

from __future__ import annotations

from datetime import UTC, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from gamekit import Table
from hypothesis import given
from hypothesis import strategies as st
from icalendar import Calendar

from judge.config import SmtpConfig
from judge.game.records import load_game
from judge.transport.smtp import _folded, drain_outbox, with_organizer

JUDGE = "judge@judge.test"
FRANCE, RUSSIA, GERMANY = "france@p.test", "russia@p.test", "germany@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


def sent(t: Table, smtp: Any) -> None:
    """Send every queued mail to the sink, as the daemon does."""
    cfg = SmtpConfig(host="127.0.0.1", port=smtp.port, security="none", timeout=10)
    while drain_outbox(t.db, cfg, JUDGE, lambda: t.now):
        pass


def invitation(message: EmailMessage) -> tuple[str, Any]:
    """The method of the text/calendar alternative and its event; the attachment invite.ics says the same."""
    parts = {part.get_content_type(): part for part in message.walk() if not part.is_multipart()}
    part, attached = parts["text/calendar"], parts["application/ics"]
    assert attached.get_filename() == "invite.ics" and attached.get_content_disposition() == "attachment"
    text = part.get_content()
    assert (attached.get_payload(decode=True) or b"").decode() == text.replace("\r\n", "\n").replace("\n", "\r\n")
    cal = Calendar.from_ical(text)
    assert str(cal["METHOD"]) == part.get_param("method")
    (event,) = cal.walk("VEVENT")
    return str(cal["METHOD"]), event


def last_to(smtp: Any, address: str) -> EmailMessage:
    return smtp.to(address)[-1]


def has_calendar(message: EmailMessage) -> bool:
    return any(p.get_content_type() in ("text/calendar", "application/ics") for p in message.walk())


@pytest.fixture
def game(tmp_path: Path) -> Table:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "48h")
    return t


def test_start_mail_invites_every_player_with_an_alarm_at_his_first_reminder(game: Table, smtp: Any) -> None:
    t = game
    sent(t, smtp)
    g = load_game(t.db, "g")
    assert g is not None and g.deadline is not None
    message = last_to(smtp, FRANCE)
    assert message.get_content_type() == "multipart/mixed"
    assert "Diplomacy" in message.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
    html = message.get_body(preferencelist=("html",))
    assert html is not None and "invite.ics" in html.get_content()
    method, event = invitation(message)
    assert method == "REQUEST" and int(event["SEQUENCE"]) == 0
    assert event.decoded("DTEND") == g.deadline and event.decoded("DTSTART") == g.deadline - timedelta(minutes=15)
    assert str(event["ORGANIZER"]) == f"mailto:{JUDGE}"  # queued before serve knew it: the sending address
    assert str(event["ATTENDEE"]) == f"mailto:{FRANCE}" and event["ATTENDEE"].params["RSVP"] == "FALSE"
    assert event["DTSTAMP"].dt == t.now and str(event["STATUS"]) == "CONFIRMED"
    (alarm,) = event.walk("VALARM")
    assert event.decoded("DTSTART") + alarm.decoded("TRIGGER") == g.deadline - timedelta(hours=24)  # the game's 24h
    uids = {str(invitation(last_to(smtp, f"{p}@p.test"))[1]["UID"]) for p in ("france", "russia", "germany")}
    assert len(uids) == 3  # one event per player


def test_a_moved_deadline_moves_the_same_event_in_the_players_zone_and_words(game: Table, smtp: Any) -> None:
    t = game
    sent(t, smtp)
    first = invitation(last_to(smtp, RUSSIA))[1]
    t.mail(RUSSIA, sign("Russia", "SET LANGUAGE ru", "SET TIMEZONE Europe/Moscow", "SET REMINDER 6h 1h"))
    t.mail(GERMANY, sign("Germany", "SET LANGUAGE de", "SET TIMEZONE Europe/Berlin"))
    t.later(hours=1)
    assert t.cli("game", "extend", "g", "24h") == 0
    sent(t, smtp)
    g = load_game(t.db, "g")
    assert g is not None and g.deadline is not None
    method, moved = invitation(last_to(smtp, RUSSIA))
    assert method == "REQUEST" and str(moved["UID"]) == str(first["UID"]) and int(moved["SEQUENCE"]) == 1
    assert moved["DTEND"].params["TZID"] == "Europe/Moscow"
    assert moved.decoded("DTEND") == g.deadline
    assert moved.decoded("DTEND").utcoffset() == timedelta(hours=3)
    assert str(moved["SUMMARY"]) == "Дипломатия g: Весна 1901, движение, срок приказов"
    (alarm,) = moved.walk("VALARM")
    assert moved.decoded("DTSTART") + alarm.decoded("TRIGGER") == g.deadline - timedelta(hours=6)  # his first
    cal = Calendar.from_ical(_calendar(smtp, RUSSIA))
    assert [str(z["TZID"]) for z in cal.walk("VTIMEZONE")] == ["Europe/Moscow"]
    german = invitation(last_to(smtp, GERMANY))[1]
    assert german["DTEND"].params["TZID"] == "Europe/Berlin" and "Befehle" in str(german["SUMMARY"])
    assert invitation(last_to(smtp, FRANCE))[1]["DTEND"].dt.tzinfo in (UTC, ZoneInfo("UTC"))  # no zone chosen: UTC
    t.later(hours=1)
    assert t.cli("game", "shorten", "g", "12h") == 0
    sent(t, smtp)
    shortened = invitation(last_to(smtp, RUSSIA))[1]
    assert str(shortened["UID"]) == str(first["UID"]) and int(shortened["SEQUENCE"]) == 2


def _calendar(smtp: Any, address: str) -> str:
    part = next(p for p in last_to(smtp, address).walk() if p.get_content_type() == "text/calendar")
    return str(part.get_content())


def test_results_open_a_new_event_and_pause_resume_end_cancel_and_restore_it(game: Table, smtp: Any) -> None:
    t = game
    sent(t, smtp)
    spring = invitation(last_to(smtp, FRANCE))[1]
    t.later(hours=2)
    assert t.cli("game", "process", "g") == 0
    sent(t, smtp)
    method, fall = invitation(last_to(smtp, FRANCE))
    assert method == "REQUEST" and str(fall["UID"]) != str(spring["UID"]) and int(fall["SEQUENCE"]) == 0
    assert "F1901M" in str(fall["UID"])
    results = last_to(smtp, FRANCE)  # the map stays related to the HTML, inside the mixed mail with invite.ics
    kinds = [p.get_content_type() for p in results.walk()]
    assert kinds[:3] == ["multipart/mixed", "multipart/related", "multipart/alternative"] and "image/png" in kinds
    html = results.get_body(preferencelist=("html",))
    assert html is not None and "cid:map@judge" in html.get_content()
    assert t.cli("game", "pause", "g") == 0
    sent(t, smtp)
    method, paused = invitation(last_to(smtp, FRANCE))
    assert method == "CANCEL" and str(paused["UID"]) == str(fall["UID"]) and int(paused["SEQUENCE"]) == 1
    assert str(paused["STATUS"]) == "CANCELLED"
    t.later(hours=1)
    assert t.cli("game", "resume", "g") == 0
    sent(t, smtp)
    method, resumed = invitation(last_to(smtp, FRANCE))
    assert method == "REQUEST" and str(resumed["UID"]) == str(fall["UID"]) and int(resumed["SEQUENCE"]) == 2
    assert t.cli("game", "end", "g", "--abandoned") == 0
    sent(t, smtp)
    method, over = invitation(last_to(smtp, FRANCE))
    assert method == "CANCEL" and str(over["UID"]) == str(fall["UID"]) and int(over["SEQUENCE"]) == 3


def test_set_calendar_off_stops_them_and_an_ejected_player_gets_a_cancel(game: Table, smtp: Any) -> None:
    t = game
    sent(t, smtp)
    t.mail(FRANCE, sign("France", "SET CALENDAR OFF"))
    t.later(hours=1)
    assert t.cli("game", "extend", "g", "24h") == 0
    sent(t, smtp)
    assert not has_calendar(last_to(smtp, FRANCE))
    assert "calendar" not in str(last_to(smtp, FRANCE).get_body(("plain",)).get_content())  # type: ignore[union-attr]
    assert has_calendar(last_to(smtp, RUSSIA))
    assert t.cli("game", "eject", "g", "Russia") == 0
    sent(t, smtp)
    method, gone = invitation(last_to(smtp, RUSSIA))
    assert method == "CANCEL" and int(gone["SEQUENCE"]) == 2
    t.later(hours=2)
    assert t.cli("game", "process", "g") == 0
    sent(t, smtp)
    assert not has_calendar(last_to(smtp, FRANCE)) and not has_calendar(last_to(smtp, RUSSIA))
    assert has_calendar(last_to(smtp, GERMANY))


def test_outbox_show_names_the_calendar_part(game: Table, capsys: Any) -> None:
    t = game
    row = next(r for r in t.outbox() if r["to_addr"] == FRANCE)
    capsys.readouterr()
    assert t.cli("outbox", "show", str(row["id"])) == 0
    out = capsys.readouterr().out
    assert "text/calendar METHOD=REQUEST UID=deadline-g-S1901M-" in out and "SEQUENCE=0" in out
    assert "application/ics invite.ics METHOD=REQUEST" in out


@given(st.text(min_size=0, max_size=300).filter(lambda s: "\r" not in s and "\n" not in s))
def test_folded_lines_fit_and_unfold_to_the_line(line: str) -> None:
    folded = _folded(line)
    assert all(len(piece.encode()) <= 75 for piece in folded.split("\r\n"))
    assert folded.replace("\r\n ", "") == line


def test_the_placeholder_organizer_is_replaced_in_folded_lines() -> None:
    text = "BEGIN:VCALENDAR\r\nDESCRIPTION:" + "ж" * 30 + " judge@judge.invalid\r\n tail\r\nEND:VCALENDAR\r\n"
    out = with_organizer(text, "a-much-longer-judge-address@diplomacy.example.org")
    assert "judge@judge.invalid" not in out and "diplomacy.example.org" in out.replace("\r\n ", "")
    assert with_organizer(out, "x@y.z") == out  # only the placeholder is replaced


def test_a_replaced_player_gets_a_cancel_and_the_new_one_the_event(game: Table, smtp: Any) -> None:
    t = game
    sent(t, smtp)
    old = invitation(last_to(smtp, FRANCE))[1]
    assert (
        t.cli("game", "replace", "g", "--power", "France", "--email", "new@p.test", "--password", "a-new-password") == 0
    )
    sent(t, smtp)
    method, gone = invitation(last_to(smtp, FRANCE))
    assert method == "CANCEL" and str(gone["UID"]) == str(old["UID"]) and int(gone["SEQUENCE"]) == 1
    method, new = invitation(last_to(smtp, "new@p.test"))
    assert method == "REQUEST" and str(new["UID"]) != str(old["UID"]) and str(new["ATTENDEE"]) == "mailto:new@p.test"
