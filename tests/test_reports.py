"""Reports: every mail kind renders from templates in every language; HTML is escaped; the English results match a
golden file; results carry the tally (with changes) and the map; reminders; the MIME structure of what is sent."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from gamekit import Table

from judge.game import records
from judge.reports import outbox
from judge.reports.render import LANGUAGES, render_mail
from judge.transport.smtp import build_message

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
GOLDEN = Path(__file__).parent / "golden"
TEMPLATES = Path(__file__).parent.parent / "templates"


def template_names() -> list[str]:
    """Every mail the judge ships a template for (the English set, which every language has)."""
    return sorted(p.name.removesuffix(".txt.j2") for p in (TEMPLATES / "en").glob("*.txt.j2"))


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Table, list[tuple[str, dict[str, Any]]]]]:
    """A short real game that sends every kind of mail; returns the table and each (template, context) used.
    Played once for the module: the tests that use it only read it."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield _play(tmp_path_factory.mktemp("played"), monkeypatch)


def _play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Table, list[tuple[str, dict[str, Any]]]]:
    seen: list[tuple[str, dict[str, Any]]] = []
    real = outbox.render_mail

    def recording(name: str, language: str, **context: Any) -> Any:
        seen.append((name, context))
        return real(name, language, **context)

    monkeypatch.setattr(outbox, "render_mail", recording)
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "48h", "--grace", "6h", "--master", "gm@p.test")
    t.reply(
        addr("France"),
        sign(
            "France",
            "A par - bur",
            "A mar S A par - bur",
            "PRESS TO England",
            "<b>Hi</b> & welcome",
            "ENDPRESS",
            "DRAW PROPOSE",
        ),
    )
    t.reply(addr("England"), sign("England", "DRAW REJECT", "HELP", "MAP", "PHASE F1901M", "F lon H"))  # future_orders
    t.reply("eve@evil.test", "SIGNON Germany g wrong")
    for _ in range(31):  # a mail loop: the 31st message in an hour gets the one "replies paused" notice
        t.mail("loop@p.test", "HELP")
    t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    t.later(hours=40)
    t.cli("game", "tick")  # the reminder
    t.later(hours=8, seconds=1)
    t.cli("game", "tick")  # the deadline passes: late notices, grace
    t.cli("game", "pause", "g")
    t.cli("game", "resume", "g")
    t.cli("game", "process", "g")  # Spring results
    t.reply(addr("France"), sign("France", "A bur - bel"))
    t.reply(addr("Germany"), sign("Germany", "A mun - bur", "A ber - mun", "A bur S A mun"))
    t.cli("game", "process", "g")  # Fall: France takes Belgium
    t.cli("game", "process", "g")  # Winter: France's build waived
    t.reply(addr("England"), sign("England", "SET ABSENCE 2026-12-05"))  # deadline_moved, to the others
    t.cli("game", "replace", "g", "--power", "Italy", "--email", "it2@p.test", "--password", "pw-it2")  # seat mail
    t.cli("game", "eject", "g", "Italy")
    t.reply("it3@p.test", "TAKEOVER g Italy pw-it3")  # civil_disorder (taken over) to the others
    t.cli("game", "eject", "g", "Italy")
    for power in POWERS:
        if power != "Italy":
            t.reply(addr(power), sign(power, "DRAW ACCEPT" if power != "Austria" else "DRAW PROPOSE"))
    return t, seen


def test_every_mail_kind_is_sent_in_a_real_game(played: tuple[Table, list]) -> None:
    _, seen = played
    # delivery_failed goes to the game master only when mail cannot be delivered: tests/test_reliability.py
    assert {name for name, _ in seen} >= set(template_names()) - {
        "help",
        "get_orders",  # a guide worded into the reply, as HELP
        "eliminated",
        "internal_error",
        "delivery_failed",
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_template_renders_in_every_language(played: tuple[Table, list], language: str) -> None:
    _, seen = played
    contexts = {}
    for name, context in seen:
        contexts.setdefault(name, context)
    contexts.setdefault("help", {})
    contexts.setdefault("get_orders", {})
    contexts.setdefault("eliminated", dict(contexts["resigned"]))
    contexts.setdefault(
        "internal_error",
        {
            "game": contexts["resigned"]["game"],
            "sender": "a@p.test",
            "message_id": "x@p.test",
            "when": "2026-12-01T12:00:00Z",
            "what": "KeyError",
            "partial": True,
            "count": 1,
            "since": "2026-12-01T11:00:00Z",
        },
    )
    contexts.setdefault(
        "delivery_failed",
        {
            "failures": [
                {
                    "to": "x@p.test",
                    "subject": "Diplomacy game g: results",
                    "error": "refused: 550 5.1.1 no such user",
                    "game": "g",
                    "queued": "2026-12-01T12:00:00Z",
                }
            ]
        },
    )
    assert set(contexts) == set(template_names())
    for name, context in contexts.items():
        mail = render_mail(name, language, **context)
        assert mail.subject and mail.text.strip(), name
        for line in mail.text.splitlines():
            assert len(line) <= 110, (name, line)  # readable in a plain-text reader (order lists may be long)
        if language == "ru":
            assert re.search("[а-яА-Я]", mail.subject + mail.text), f"{name} is not translated to Russian"
        if language == "de" and name != "help":
            english = render_mail(name, "en", **context)
            assert mail.text != english.text, f"{name} is not translated to German"
        if name not in ("help", "get_orders"):  # guides worded into a reply's text
            assert mail.html is not None and "<html" in mail.html, name


def test_html_is_escaped_and_text_is_verbatim(played: tuple[Table, list]) -> None:
    t, _ = played
    press = next(m for m in t.outbox() if "press from" in m["subject"])
    assert "<b>Hi</b> & welcome" in press["body"]
    assert "&lt;b&gt;Hi&lt;/b&gt; &amp; welcome" in press["html"] and "<b>Hi</b>" not in press["html"]


def test_results_carry_the_tally_with_changes(played: tuple[Table, list]) -> None:
    t, _ = played
    fall = next(
        m for m in t.outbox() if "results of Fall 1901 movement" in m["subject"] and m["to_addr"] == addr("Germany")
    )
    assert "France      4 centres (+1),  3 units, builds 1" in fall["body"]
    assert "Germany     3 centres,  3 units" in fall["body"]
    assert "Change" in fall["html"] and "+1" in fall["html"]
    assert fall["image"] is None and 'src="cid:map@judge"' in fall["html"]  # the map, stored once per phase:
    pictures = list(t.db.query("select * from pictures where id = ?", [fall["picture_id"]]))
    assert pictures[0]["png"][:8] == b"\x89PNG\r\n\x1a\n" and pictures[0]["phase"] == "F1901M"
    same = [m["picture_id"] for m in t.outbox() if "results of Fall 1901 movement" in m["subject"]]
    assert len(same) >= 7 and set(same) == {fall["picture_id"]}


def test_english_results_match_the_golden_file(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("golden", "--deadline", "48h", reuse=True)
    for power, orders in {
        "France": ["A par - bur", "A mar - spa", "F bre - mao"],
        "Germany": ["A mun - bur", "A ber - kie", "F kie - den"],
        "England": ["F lon - nth", "F edi - nwg", "A lvp - yor"],
        "Russia": ["A war - gal", "F sev - bla", "A mos - ukr", "F stp/sc - bot"],
        "Austria": ["A vie - gal", "A bud - ser", "F tri - alb"],
        "Turkey": ["F ank - bla", "A con - bul", "A smy - arm"],
    }.items():
        t.reply(addr(power), "\n".join([f"SIGNON {power} golden pw-{power}", *orders]))
    t.cli("game", "process", "golden")
    mail = next(m for m in t.outbox() if m["to_addr"] == addr("England") and "results of" in m["subject"])
    golden = GOLDEN / "results_en.txt"
    text = f"Subject: {mail['subject']}\n\n{mail['body']}"
    assert text == golden.read_text()  # after a deliberate change: review the new text, then update the file


def test_reminder_once_before_the_deadline(tmp_path: Path) -> None:
    """The game's default: one reminder 24 hours before the deadline, to every player who still owes something."""
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "48h", reuse=True)
    t.reply(addr("France"), sign("France", "A par H", "A mar H", "F bre H", "READY"))
    t.later(hours=23)
    t.cli("game", "tick")
    assert not [m for m in t.outbox() if "due soon" in m["subject"]]
    t.later(hours=2)
    t.cli("game", "tick")
    t.later(hours=1)
    t.cli("game", "tick")
    reminded = sorted(m["to_addr"] for m in t.outbox() if "due soon" in m["subject"])
    assert reminded == sorted(addr(p) for p in POWERS if p != "France")


def test_sent_mail_carries_the_map_once_for_html_and_text_readers() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 100
    row = {
        "id": 7,
        "to_addr": "x@p.test",
        "subject": "Diplomacy game g: results",
        "body": "plain text",
        "html": '<html><body><img src="cid:map@judge"></body></html>',
        "in_reply_to": "",
        "message_id": "<abc@judge.test>",
    }
    from datetime import datetime

    msg = build_message(row, "judge@judge.test", "g", datetime(2026, 12, 1, tzinfo=UTC), png)
    raw = bytes(msg)
    parsed = message_from_bytes(raw, policy=policy.default)
    assert parsed.get_content_type() == "multipart/related"
    alternative, picture = parsed.get_payload()
    assert alternative.get_content_type() == "multipart/alternative"
    plain, html = alternative.get_payload()
    assert plain.get_content() == "plain text\n" and html.get_content_type() == "text/html"
    assert picture["Content-ID"] == "<map@judge>" and picture.get_filename() == "map.png"
    assert picture.get_content() == png
    assert [p.get_filename() for p in parsed.iter_attachments()] == ["map.png"]  # what a text reader lists
    assert sum(1 for p in parsed.walk() if p.get_content_type() == "image/png") == 1  # carried once
    assert parsed["Message-ID"] == "<abc@judge.test>"
    assert parsed["Auto-Submitted"] == "auto-replied" and parsed["List-Id"].endswith("<g.judge.test>")


def test_language_choice_and_judge_default(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    with t.db.atomic():
        records.set_default_language(t.db, "de")
    assert records.user_settings(t.db, "new@p.test")["language"] == "de"
    t.seven("g", reuse=True)
    t.reply(addr("Russia"), "SET LANGUAGE ru")  # without a sign-on nothing changes
    assert records.user_settings(t.db, addr("Russia"))["language"] == "de"
    t.reply(addr("Russia"), sign("Russia", "SET LANGUAGE ru"))
    assert records.user_settings(t.db, addr("Russia"))["language"] == "ru"
