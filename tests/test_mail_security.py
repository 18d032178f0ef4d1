"""What a forged From address cannot do, and the other guards of the handler: quota, lockout, alerts, settings,
password echo, scrypt per message, mail age, out-of-office, per-command isolation, the game master told of errors,
threading of replies."""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

import pytest
from gamekit import POWERS, Table

from judge.commands import handlers, info_commands, security, seen
from judge.commands import items as c
from judge.commands.handler import handle_message
from judge.game.records import orders_of, user_settings
from judge.game.service import get_game


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


@pytest.fixture
def t(tmp_path: Any) -> Table:
    table = Table(tmp_path / "judge.db")
    table.seven("g", "--master", "gm@p.test", reuse=True)
    return table


def _france_orders(t: Table) -> list[str]:
    game = get_game(t.db, "g")
    return orders_of(t.db, game.id, game.phase or "").get("France", [])


def _raw(sender: str, body: str, **headers: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "judge@judge.test"
    msg["Subject"] = headers.pop("Subject", "orders")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return bytes(msg)


def test_forged_mail_cannot_use_up_the_quota_and_drop_orders(t: Table) -> None:
    for _ in range(30):  # forged: anyone can write as France's address
        t.mail(addr("France"), "LIST")
    replies = t.mail(addr("France"), sign("France", "A par - bur"))
    assert _france_orders(t) == ["A par - bur"]  # the real orders count
    (notice,) = replies
    words = " ".join(notice["body"].split())
    assert "replies to you are paused until Tue 1 Dec 2026 13:00 UTC; your orders still count" in words
    assert t.mail(addr("France"), sign("France", "F bre - mao")) == []  # at most one notice per pause
    assert _france_orders(t) == ["A par - bur", "F bre - mao"]
    t.later(hours=1, seconds=1)
    assert len(t.mail(addr("France"), "LIST")) == 1  # answered again once the hour is over


@pytest.mark.parametrize(
    "language,words", [("de", "Ihre Befehle gelten weiterhin"), ("ru", "ваши приказы по-прежнему принимаются")]
)
def test_replies_paused_notice_in_every_language(t: Table, language: str, words: str) -> None:
    t.reply(addr("France"), sign("France", f"SET LANGUAGE {language}"))
    for _ in range(29):
        t.mail(addr("France"), "LIST")
    (notice,) = t.mail(addr("France"), "LIST")
    assert words in " ".join(notice["body"].split())


def test_rotating_forged_addresses_neither_lock_out_nor_flood_the_player(t: Table) -> None:
    for i in range(12):
        t.mail(f"eve{i}@evil.test", "SIGNON France g guess{i}")
    alerts = [m for m in t.outbox() if m["to_addr"] == addr("France") and "failed sign-on" in m["subject"]]
    assert len(alerts) == 1  # at most one an hour
    held = t.reply("eve99@evil.test", "SIGNON France g pw-France\nA par - bur")
    assert "the password was not checked" in held and _france_orders(t) == []  # guessing is slowed for everyone
    assert "signed on as France" in t.reply(addr("France"), sign("France", "A par - pic"))  # but never the player
    assert _france_orders(t) == ["A par - pic"]
    t.later(hours=1, minutes=1)
    t.mail("eve@evil.test", "SIGNON France g another")  # the next alert sums up what happened since the last one
    alerts = [m for m in t.outbox() if m["to_addr"] == addr("France") and "failed sign-on" in m["subject"]]
    assert len(alerts) == 2 and "1 sign-on as France" in alerts[1]["body"]
    first = alerts[0]["body"]
    assert "1 sign-on as France" in first and "eve0@evil.test" in first


def test_forged_from_with_the_players_reply_to_elsewhere_is_held_back(t: Table) -> None:
    for i in range(4):
        t.mail("eve@evil.test", f"SIGNON France g guess{i}")
    out = t.mail(
        addr("France"),
        "SIGNON France g pw-France",
    )
    assert "signed on as France" in out[0]["body"]
    raw = _raw(addr("France"), "SIGNON France g pw-France", Reply_To="eve@evil.test")
    handled = handle_message(t.db, raw, t.now)
    (reply,) = handled.replies
    assert reply["to_addr"] == "eve@evil.test" and "the password was not checked" in reply["body"]


def test_the_wait_grows_and_ends(t: Table) -> None:
    for i in range(3):
        t.mail("eve@evil.test", f"SIGNON France g guess{i}")
    assert "was not checked" in t.reply("eve@evil.test", "SIGNON France g pw-France")
    t.later(minutes=1, seconds=1)
    t.mail("eve@evil.test", "SIGNON France g guess4")  # the fourth failure: two minutes now
    t.later(minutes=1, seconds=1)
    assert "was not checked" in t.reply("eve@evil.test", "SIGNON France g pw-France")
    t.later(minutes=1)
    assert "signed on as France" in t.reply("eve@evil.test", "SIGNON France g pw-France")


def test_settings_need_a_sign_on(t: Table) -> None:
    text = t.reply(addr("Germany"), "SET TIMEZONE Europe/Berlin\nSET LANGUAGE ru\nREADY\nCLEAR\nDRAW\nRESIGN")
    assert text.count("ERROR: sign on first") == 6
    assert user_settings(t.db, addr("Germany")) == {"timezone": "UTC", "language": "en"}
    assert t.db.execute("select count(*) from players where resigned = 1").fetchone()[0] == 0


@pytest.mark.parametrize(
    "body",
    [
        "SIGNON France g my Zq7x phrase",
        "JOIN g Zq7x France",
        "SIGNON France g pw-France\nSET PASSWORD Zq7x extra",
        "SIGNON France g pw-France\nSET PASSWORD Zq7",
        "SIGNON France g Zq7x\x00",
        "JOIN nosuchgame Zq7x",
        "SIGNON France nosuchgame Zq7x",
    ],
)
def test_passwords_are_never_echoed(t: Table, body: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG")
    text = t.reply(addr("France"), body)
    assert "Zq7" not in text and "pw-France" not in text and "phrase" not in text
    assert "Zq7" not in caplog.text and "pw-France" not in caplog.text
    assert "Zq7" not in str(list(t.db.query("select * from events")))


def test_one_password_check_per_message(t: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = security.verify_password
    monkeypatch.setattr(security, "verify_password", lambda *a: calls.append(1) or real(*a))
    body = "\n".join(f"SIGNON France g guess{i}" for i in range(399)) + "\nSIGNON France g pw-France\nA par - bur"
    text = t.reply("eve@evil.test", body)
    assert len(calls) == 1
    assert text.count("only one sign-on is checked per message") == 399
    assert _france_orders(t) == []


def test_one_new_password_per_message(t: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    hashes = []
    real = handlers.hash_password
    monkeypatch.setattr(handlers, "hash_password", lambda p: hashes.append(1) or real(p))
    text = t.reply(addr("France"), sign("France", *["SET PASSWORD newsecret"] * 50))
    assert len(hashes) == 1 and text.count("only one new password") == 49


@pytest.mark.parametrize(
    "headers",
    [
        {"Date": "Mon, 23 Nov 2026 11:00:00 +0000"},
        {"Received": "from mx.p.test by mx.judge.test; Mon, 23 Nov 2026 11:00:00 +0000"},
    ],
)
def test_old_mail_is_not_acted_on(t: Table, headers: dict[str, str]) -> None:
    handled = handle_message(t.db, _raw(addr("France"), sign("France", "A par - bur"), **headers), t.now)
    assert handled.text == "refused: too old" and _france_orders(t) == []
    assert "more than 7 days ago" in handled.replies[0]["body"]
    fresh = _raw(addr("France"), sign("France", "A par - bur"), Date="Tue, 01 Dec 2026 11:00:00 +0000")
    assert handle_message(t.db, fresh, t.now).outcome == "handled" and _france_orders(t) == ["A par - bur"]


def test_age_limit_and_arrival_are_parameters(t: Table) -> None:
    raw = _raw(addr("France"), sign("France", "A par - bur"), Date="Sun, 29 Nov 2026 11:00:00 +0000")
    assert handle_message(t.db, raw, t.now, max_mail_age_days=1).text == "refused: too old"
    raw = _raw(addr("France"), sign("France", "A par - bur", "READY"))
    assert handle_message(t.db, raw, t.now, arrived=t.now.replace(month=11)).text == "refused: too old"


@pytest.mark.parametrize(
    "subject,headers",
    [
        ("Automatic reply: orders", {}),
        ("Out of Office: orders", {}),
        ("Abwesenheitsnotiz: orders", {}),
        ("Réponse automatique : orders", {}),
        ("Автоответ: orders", {}),
        ("Respuesta automática: orders", {}),
        ("Risposta automatica: orders", {}),
        ("orders", {"X-Autoreply": "yes"}),
        ("orders", {"X-Autorespond": "x"}),
    ],
)
def test_out_of_office_is_not_answered(t: Table, subject: str, headers: dict[str, str]) -> None:
    handled = handle_message(t.db, _raw(addr("France"), "I am away.", Subject=subject, **headers), t.now)
    assert handled.text == "dropped: automatic message" and handled.replies == []


def test_a_failing_command_leaves_the_others_and_tells_the_master(t: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> str:
        raise KeyError("a bug")

    monkeypatch.setattr(handlers.draws, "vote", broken)
    text = t.reply(addr("France"), sign("France", "A par - bur", "DRAW", "F bre - mao"))
    assert "an internal error kept this line from taking effect" in text
    assert _france_orders(t) == ["A par - bur", "F bre - mao"]
    told = [m for m in t.outbox() if m["to_addr"] == "gm@p.test" and "internal error" in m["subject"]]
    assert len(told) == 1 and "france@p.test" in told[0]["body"] and "pw-France" not in told[0]["body"]
    t.reply(addr("France"), sign("France", "DRAW"))
    told = [m for m in t.outbox() if m["to_addr"] == "gm@p.test" and "internal error" in m["subject"]]
    assert len(told) == 1  # at most one an hour


def test_handle_message_never_raises(t: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kw: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(seen, "seen", broken)
    handled = handle_message(t.db, _raw(addr("France"), "LIST"), t.now)
    assert handled.text == "error: RuntimeError" and handled.failed and handled.replies == []


def test_bare_place_name_never_replaces_an_order(t: Table) -> None:
    text = t.reply(addr("France"), sign("France", "A par - bur", "", "Françoise", "Paris"))
    assert _france_orders(t) == ["A par - bur"]
    assert "a place name alone is not an order" in text


def test_sandbox_with_an_unknown_power_is_an_answer(t: Table) -> None:
    text = t.reply(
        addr("France"), sign("France", "A par - bur", "SANDBOX", "Narnia: A par", "ENDSANDBOX", "F bre - mao")
    )
    assert "unknown power 'Narnia'" in text and _france_orders(t) == ["A par - bur", "F bre - mao"]


def test_long_s_in_a_coast_is_read(t: Table) -> None:
    t.reply(addr("France"), sign("France", "A par - bur", "F bre - mao"))
    assert _france_orders(t) == ["A par - bur", "F bre - mao"]
    text = t.reply(addr("France"), sign("France", "F spa/ſc - mao", "A mar - spa"))
    assert "internal error" not in text and _france_orders(t)[:2] == ["A par - bur", "F bre - mao"]


def test_reply_subject_and_references_keep_the_thread(t: Table) -> None:
    raw = _raw(
        addr("France"),
        "LIST",
        Subject="AW: RE: Re: Fwd: SV: Antw: Отв: Diplomacy game g",
        Message_ID="<m3@p.test>",
        References="<m1@p.test> <m2@p.test>",
        In_Reply_To="<m2@p.test>",
    )
    (reply,) = handle_message(t.db, raw, t.now).replies
    assert reply["subject"] == "Re: Diplomacy game g"
    assert reply["in_reply_to"] == "m3@p.test" and reply["thread_refs"] == "m1@p.test m2@p.test"
    from judge.transport.smtp import build_message

    sent = build_message(reply, "judge@judge.test", None, t.now)
    assert sent["References"] == "<m1@p.test> <m2@p.test> <m3@p.test>" and sent["In-Reply-To"] == "<m3@p.test>"


def test_every_player_still_plays(t: Table) -> None:
    for power in POWERS:
        assert "signed on as" in t.reply(addr(power), sign(power))


@pytest.mark.parametrize("language", ["en", "ru", "de"])
def test_the_judges_own_mail_is_never_read_again_even_as_html(t: Table, language: str) -> None:
    from judge.commands.body import JUDGE_MARKER, parse_body
    from judge.mail.part_text import html_to_text
    from judge.reports.render import judge_marker

    assert JUDGE_MARKER in judge_marker(language)
    t.reply(addr("France"), sign("France", f"SET LANGUAGE {language}"))
    answer = next(r for r in t.mail(addr("France"), sign("France", "A par - bur")) if r["subject"].startswith("Re:"))
    assert answer["body"].startswith(judge_marker(language))
    for quoted in (answer["body"], html_to_text(answer["html"])):  # as Outlook quotes it: no ">" at all
        parsed = parse_body(f"SIGNON France g pw-France\nA par - pic\n\n{quoted}")
        assert [i.text for i in parsed.items] == ["SIGNON France g pw-France", "A par - pic"]
        assert parsed.problems == ()


def test_references_name_each_message_once(t: Table) -> None:
    from judge.transport.smtp import build_message

    raw = _raw(
        addr("France"),
        "LIST",
        Message_ID="<m9@p.test>",
        References="<game.g@judge.test> <judge.4@judge.test> <m9@p.test>",
    )
    (reply,) = handle_message(t.db, raw, t.now).replies
    sent = build_message(reply, "judge@judge.test", "g", t.now)
    assert sent["References"] == "<game.g@judge.test> <judge.4@judge.test> <m9@p.test>"


def test_the_master_of_a_named_game_hears_of_an_error_before_any_sign_on(
    t: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kw: Any) -> None:
        raise ValueError("a bug")

    monkeypatch.setitem(handlers.HANDLERS, c.SignOn, broken)
    text = t.reply("someone@p.test", "SIGNON France g pw-France\nLIST")
    assert "an internal error kept this line from taking effect" in text and "see below" in text
    told = [m for m in t.outbox() if m["to_addr"] == "gm@p.test" and "internal error" in m["subject"]]
    assert len(told) == 1 and "SIGNON on line 1: ValueError" in told[0]["body"]


def test_without_any_master_an_error_is_logged(
    t: Table, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(info_commands, "_list_text", lambda *a: 1 / 0)
    handled = handle_message(t.db, _raw("someone@p.test", "LIST"), t.now)
    assert handled.outcome == "handled" and "no game master to tell" in caplog.text
    handled = handle_message(t.db, _raw("other@p.test", "LIST"), t.now, master_address="host@p.test")
    assert [r["to_addr"] for r in handled.replies] == ["other@p.test", "host@p.test"]


def test_text_attachments_are_bounded(t: Table) -> None:
    msg = EmailMessage()
    msg["From"] = addr("France")
    msg["Subject"] = "orders"
    msg.set_content(sign("France"))
    for i in range(5):
        msg.add_attachment(b"A par - bur\nF bre - mao\n", maintype="text", subtype="plain", filename=f"o{i}.txt")
    (reply,) = handle_message(t.db, bytes(msg), t.now).replies
    assert reply["body"].count("> A par - bur") == 3
    assert "'o3.txt' (text/plain) was not read: the judge reads at most 3 attached text files" in reply["body"]


def test_what_belongs_in_quarantine(t: Table) -> None:
    bomb = b"From: a@p.test\nSubject: " + b" ".join([b"=?utf-8?q?x?="] * 500) + b"\n\nLIST\n"
    handled = handle_message(t.db, bomb, t.now)
    assert handled.text == "refused: too complex" and handled.quarantine_reason == "too complex"
    assert handled.rejected and len(handled.replies) == 1  # the sender is told why
    assert "more parts, encoded words or header parameters than the judge reads" in handled.replies[0]["body"]
    ok = handle_message(t.db, _raw(addr("France"), "LIST"), t.now)
    assert ok.quarantine_reason is None and not ok.rejected
    old = handle_message(t.db, _raw(addr("France"), "LIST", Date="Mon, 02 Nov 2026 10:00:00 +0000"), t.now)
    assert old.rejected and old.quarantine_reason is None
