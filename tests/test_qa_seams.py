"""Seams between the mail reader, the daemon and the host's configuration, tried with inputs nobody quoted.

Real SQLite files and a real SMTP server (aiosmtpd) on 127.0.0.1; every case here was a defect once.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from hypothesis import given, settings
from hypothesis import strategies as st
from mailservers import Sink

from judge.config import SmtpConfig
from judge.game.records import queue_mail
from judge.store import open_db, write
from judge.transport.embedded import free_port
from judge.transport.smtp import drain_outbox, message_bytes

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
JUDGE = "judge@judge.test"


def _row(**extra: Any) -> dict[str, Any]:
    return {
        "id": 1,
        "to_addr": "alice@players.test",
        "subject": "Re: orders",
        "body": "[judge-mail]\nOK\n",
        "html": None,
        "in_reply_to": None,
        "thread_refs": None,
        "message_id": None,
        "image": None,
        **extra,
    }


@pytest.mark.parametrize(
    "row",
    [
        _row(subject="Re: " + "a" * 1500),  # one long word, as a player may write
        _row(subject="Re: " + "word " * 300),
        _row(
            in_reply_to="last@players.test", thread_refs=" ".join(f"id{i}.{'x' * 200}@players.test" for i in range(20))
        ),  # 20 long ids kept
        _row(subject="Re: Приказы на весну — " * 20, html="<p>[judge-mail]</p>" + "<p>x</p>" * 50),
    ],
    ids=["long-word", "long-subject", "long-references", "long-non-ascii"],
)
def test_every_header_line_of_an_outgoing_mail_is_within_smtp_line_limits(row: dict[str, Any]) -> None:
    raw = message_bytes(row, JUDGE, "demo", NOW, b"\x89PNG" + b"0" * 3000 if row.get("html") else None)
    assert max(len(line) for line in raw.split(b"\r\n")) <= 998  # RFC 5322 2.1.1: servers refuse longer lines
    head = raw.split(b"\r\n\r\n", 1)[0]
    assert max(len(line) for line in head.split(b"\r\n")) <= 78 or row["subject"].startswith("Re: a")
    parsed = BytesParser(policy=policy.default).parsebytes(raw)
    assert " ".join(str(parsed["Subject"]).split()) == " ".join(row["subject"].split())
    if row["thread_refs"]:
        refs = str(parsed["References"]).split()
        assert refs[1:-1] == [f"<{r}>" for r in row["thread_refs"].split()] and refs[-1] == "<last@players.test>"
    assert parsed.get_body(("plain",)).get_content().startswith("[judge-mail]")


@pytest.mark.parametrize("smtputf8", [True, False])
def test_a_mail_to_an_address_the_server_cannot_take_never_holds_up_the_others(tmp_path: Path, smtputf8: bool) -> None:
    """A non-ASCII address (a player may sign up with one) goes out with SMTPUTF8 where the server offers it; where
    it does not, that one mail fails with its reason, and the mail queued after it goes out in the same round."""
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port(), enable_SMTPUTF8=smtputf8)
    controller.start()
    try:
        db = open_db(tmp_path / "judge.db")
        with write(db):
            queue_mail(db, "zoë@players.test", "Re: orders", "[judge-mail]\nOK\n", NOW)
            queue_mail(db, "bob@players.test", "Re: orders", "[judge-mail]\nOK\n", NOW)
        cfg = SmtpConfig(host="127.0.0.1", port=controller.port, security="none", timeout=5)
        assert drain_outbox(db, cfg, JUDGE, lambda: NOW) == (2 if smtputf8 else 1)
    finally:
        controller.stop()
    rows = {r["to_addr"]: r for r in db.query("select * from outbox")}
    assert rows["bob@players.test"]["status"] == "sent"
    if smtputf8:
        assert rows["zoë@players.test"]["status"] == "sent"
        assert sorted(str(m["To"]) for m in sink.messages) == ["bob@players.test", "zoë@players.test"]
    else:
        assert rows["zoë@players.test"]["status"] == "failed" and "SMTPUTF8" in rows["zoë@players.test"]["last_error"]
        assert [m["To"] for m in sink.messages] == ["bob@players.test"]


def test_the_judge_never_mails_itself(tmp_path: Path, smtp: Any) -> None:
    """A game whose master is the judge's own address: notices to it are kept, marked, and never sent (its own mail
    would come back to its inbox), and no digest of undeliverable mail is made of them."""
    from judge.transport.failures import report_failures

    db = open_db(tmp_path / "judge.db")
    with write(db):
        queue_mail(db, "Judge@Judge.Test", "demo is full", "[judge-mail]\nThe game is full.\n", NOW)
        queue_mail(db, "bob@players.test", "Re: orders", "[judge-mail]\nOK\n", NOW)
    cfg = SmtpConfig(host="127.0.0.1", port=smtp.port, security="none", timeout=5)
    assert drain_outbox(db, cfg, JUDGE, lambda: NOW) == 1
    assert [m["To"] for m in smtp.sink.messages] == ["bob@players.test"]
    row = next(db.query("select * from outbox where to_addr = 'Judge@Judge.Test'"))
    assert row["status"] == "failed" and "judge's own address" in row["last_error"]
    assert report_failures(db, NOW) == 0


_REPORT = (
    "--d\nContent-Type: text/plain\n\nYour message could not be delivered.\n--d\n"
    "Content-Type: message/delivery-status\n\nReporting-MTA: dns; mx.test\n\nStatus: 5.1.1\n--d--\n"
)


@pytest.mark.parametrize(
    "raw",
    [
        # a delivery report wrapped in multipart/mixed, from an address that is not a known robot, no Return-Path
        (
            "From: bounces@mx.test\nTo: judge@judge.test\nSubject: Re: orders\nMessage-ID: <b1@mx.test>\n"
            'Content-Type: multipart/mixed; boundary="o"\n\n--o\nContent-Type: multipart/report; '
            'report-type=delivery-status; boundary="d"\n\n' + _REPORT + "--o--\n"
        ),
        # plain-text bounces as older MTAs write them (qmail, Exim, Postfix without DSN, Exchange)
        (
            "From: Mail Delivery System <mail@mx.test>\nSubject: Undelivered Mail Returned to Sender\n"
            "Message-ID: <b2@mx.test>\n\nThis is the mail system at host mx.test.\n"
        ),
        "From: mail@mx.test\nSubject: failure notice\nMessage-ID: <b3@mx.test>\n\n"
        "Hi. This is the qmail-send program.\n",
        "From: mail@mx.test\nSubject: Mail delivery failed: returning message to sender\n"
        "Message-ID: <b4@mx.test>\n\nx\n",
        "From: mail@mx.test\nSubject: Undeliverable: Re: orders\nMessage-ID: <b5@mx.test>\n\nDelivery has failed.\n",
        "From: mail@mx.test\nSubject: Delivery Status Notification (Failure)\nMessage-ID: <b6@mx.test>\n\nx\n",
        "From: mail@mx.test\nSubject: Returned mail: see transcript for details\nMessage-ID: <b7@mx.test>\n\nx\n",
        "From: mail@mx.test\nSubject: Unzustellbar: Re: orders\nMessage-ID: <b8@mx.test>\n\nx\n",
    ],
    ids=["nested-report", "postfix", "qmail", "exim", "exchange", "gmail", "sendmail", "exchange-de"],
)
def test_a_bounce_is_never_answered(tmp_path: Path, raw: str) -> None:
    """Answering a bounce can start a loop between the judge and a mail server; none of these is answered."""
    from judge.commands.handler import handle_message

    db = open_db(tmp_path / "judge.db")
    handled = handle_message(db, raw.encode(), NOW, judge_address=JUDGE)
    assert handled.text == "dropped: automatic message" and handled.replies == []


_CONFIG = {
    "judge": {"address": "judge@example.org", "db": "games.db"},
    "imap": {"host": "imap.example.org", "username": "judge", "password": "imap-secret"},
    "smtp": {"host": "smtp.example.org", "username": "judge", "password": "smtp-secret"},
}


@pytest.mark.parametrize(
    "section, values, expected",
    [
        # handled mail forgotten before it is too old to act on: the same message sent again would be acted on again
        ("judge", {"handled_retention_days": 5, "max_mail_age_days": 7}, "handled_retention_days"),
        ("judge", {"handled_retention_days": 7}, "handled_retention_days"),
        # a folder the judge moves mail to that is the folder it reads: moved mail gets a new UID and comes back
        # for ever
        ("imap", {"processed_folder": "INBOX"}, "processed_folder"),
        ("imap", {"rejected_folder": "inbox"}, "rejected_folder"),
        ("imap", {"folder": "Orders", "quarantine_folder": "Orders"}, "quarantine_folder"),
        ("imap", {"host": "imap.example.org:993"}, "port"),
    ],
)
def test_settings_that_would_make_the_daemon_act_twice_or_loop_are_refused(
    section: str, values: dict[str, Any], expected: str
) -> None:
    from judge.config import ConfigError, config_from_data

    data = {name: dict(body) for name, body in _CONFIG.items()}
    data[section].update(values)
    with pytest.raises(ConfigError, match=expected):
        config_from_data(data, {}, "judge.toml")


def test_an_ipv6_server_address_is_still_a_host() -> None:
    from judge.config import config_from_data

    data = {name: dict(body) for name, body in _CONFIG.items()}
    data["imap"]["host"] = "::1"
    assert config_from_data(data, {}, "judge.toml").imap.host == "::1"


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)
_IDS = st.lists(
    st.from_regex(r"[A-Za-z0-9.$%_-]{1,60}@[a-z0-9-]{1,20}\.test", fullmatch=True), max_size=25, unique=True
)


@settings(max_examples=60, deadline=None)
@given(
    subject=_TEXT,
    body=_TEXT,
    html=st.one_of(st.none(), _TEXT),
    refs=_IDS,
    to=st.sampled_from(["alice@players.test", "Bob.O'Neil+dip@players.test", "zoë@players.test"]),
    picture=st.booleans(),
)
def test_every_outgoing_mail_parses_back_and_is_never_answered_by_a_judge(
    subject: str, body: str, html: str | None, refs: list[str], to: str, picture: bool
) -> None:
    """What message_bytes builds by hand reads back with the standard parser (subject, text, threading, lines within
    SMTP's limit), and a judge that receives it (its own mail come back, or another judge's) never answers it."""
    from judge.mail.message import parse_incoming

    row = _row(
        to_addr=to,
        subject=subject,
        body=body,
        html=html,
        in_reply_to=refs[-1] if refs else None,
        thread_refs=" ".join(refs[:-1]) or None,
    )
    raw = message_bytes(row, JUDGE, "demo", NOW, b"\x89PNG\r\n" * 50 if picture else None)
    assert max(len(line) for line in raw.split(b"\r\n")) <= 998 and b"\n" not in raw.replace(b"\r\n", b"")
    parsed = BytesParser(policy=policy.default).parsebytes(raw)
    assert not parsed.defects
    assert " ".join(str(parsed["Subject"]).split()) == " ".join(subject.split())
    assert str(parsed["To"]) == to
    text = parsed.get_body(("plain",)).get_content()
    assert (
        text.replace("\r\n", "\n").rstrip("\n") == body.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
        or not body.isprintable()
    )
    if refs:
        assert str(parsed["References"]).split()[-len(refs) :] == [f"<{r}>" for r in refs]
    back = parse_incoming(raw, loop_token=JUDGE)
    assert back.auto and back.sender == JUDGE
    assert parse_incoming(raw, loop_token="other-judge@elsewhere.test").auto  # Auto-Submitted: auto-replied


def test_a_reply_to_naming_the_judge_itself_is_answered_at_the_from_address(tmp_path: Path) -> None:
    """Reply-To is honoured (the answer goes where the sender asks), except when it names the judge: the answer
    would go to the judge's own inbox, and the sender would never see it."""
    from judge.commands.handler import handle_message

    db = open_db(tmp_path / "judge.db")
    raw = (
        f"From: Alice <alice@players.test>\nReply-To: Judge <{JUDGE.upper()}>\nSubject: list\n"
        "Message-ID: <rt1@players.test>\n\nLIST\n"
    ).encode()
    assert [r["to_addr"] for r in handle_message(db, raw, NOW, judge_address=JUDGE).replies] == ["alice@players.test"]
    raw = raw.replace(JUDGE.upper().encode(), b"alice.other@players.test").replace(b"rt1", b"rt2")
    assert [r["to_addr"] for r in handle_message(db, raw, NOW, judge_address=JUDGE).replies] == [
        "alice.other@players.test"
    ]


def test_a_password_file_name_with_a_nul_is_a_config_error() -> None:
    """Found by test_config's property test: a NUL in password_file raised ValueError instead of a config error."""
    from judge.config import ConfigError, config_from_data

    data = {name: dict(body) for name, body in _CONFIG.items()}
    del data["imap"]["password"]
    data["imap"]["password_file"] = "imap\x00password"
    with pytest.raises(ConfigError, match="password_file"):
        config_from_data(data, {}, "judge.toml")
