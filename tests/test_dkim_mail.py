"""``[judge] sender_check = "dkim"`` end to end: a mail acts for a seat only with a DKIM signature of its From domain
that verifies, besides its password; without one nothing changes and the sender is told why (in every language);
the daemon reads the exact bytes from IMAP, so signatures made by the sending server verify; the judge signs its own
mail with ``[dkim] sign_key``. Real keys, a real DNS server on loopback, real IMAP and SMTP servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dkimkit import DnsServer, Key, rsa_key, signed
from gamekit import Table, raw_mail
from mailservers import SmtpSink, start_imap, write_config

from judge.cli import main
from judge.config import config_from_data, load_config, resolver_address
from judge.game.records import load_game, orders_of
from judge.signatures.dkim import check
from judge.signatures.resolver import txt_lookup
from judge.transport.daemon import serve
from judge.transport.imap import handle_one, sender_check_of


@pytest.fixture(scope="module")
def key() -> Key:
    return rsa_key()


@pytest.fixture(scope="module")
def dns(key: Key) -> Iterator[DnsServer]:
    server = DnsServer()
    server.publish("s1", "p.test", key)
    server.publish("s1", "evil.test", key)
    yield server
    server.stop()


def _settings(dns: DnsServer, **judge: Any) -> Any:
    return config_from_data(
        {
            "judge": {"address": "judge@judge.test", "sender_check": "dkim", **judge},
            "imap": {"host": "127.0.0.1", "username": "judge", "password": "x", "security": "none"},
            "smtp": {"host": "127.0.0.1", "security": "none"},
            "dkim": {"resolver": dns.address, "timeout": 5},
        },
        {},
        "",
    )


@pytest.fixture
def t(tmp_path: Path) -> Table:
    table = Table(tmp_path / "judge.db")
    table.seven("g", "--master", "gm@p.test", reuse=True)
    return table


def _france(t: Table) -> list[str]:
    game = load_game(t.db, "g")
    assert game is not None
    return orders_of(t.db, game.id, game.phase or "").get("France", [])


def _send(t: Table, dns: DnsServer, raw: bytes) -> tuple[str, str]:
    """The outcome and the reply's body, handled as the daemon handles it."""
    handled = handle_one(t.db, raw, t.now, "judge@judge.test", 30, sender_check=sender_check_of(_settings(dns)))
    (reply,) = [r for r in handled.replies if r["subject"].startswith("Re:")]
    return handled.text, " ".join(reply["body"].split())


ORDERS = "SIGNON France g pw-France\nA par - bur\nLIST"


def test_a_signed_mail_acts_for_its_seat(t: Table, dns: DnsServer, key: Key) -> None:
    outcome, reply = _send(t, dns, signed(raw_mail("france@p.test", ORDERS), key, domain="p.test"))
    assert outcome == "handled" and "signed on as France in g" in reply
    assert _france(t) == ["A par - bur"]


def test_the_password_is_still_needed(t: Table, dns: DnsServer, key: Key) -> None:
    """DKIM proves the domain, not the person: anyone at p.test can send mail signed by p.test."""
    raw = signed(raw_mail("germany@p.test", "SIGNON France g not-the-password\nA par - bur"), key, domain="p.test")
    _outcome, reply = _send(t, dns, raw)
    assert "sign-on failed" in reply and _france(t) == []


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda key: raw_mail("france@p.test", ORDERS), "your mail carries no DKIM signature"),
        (
            lambda key: signed(raw_mail("france@p.test", ORDERS), key, domain="evil.test"),
            "your mail is signed by evil.test, not by p.test",
        ),
        (
            lambda key: signed(raw_mail("france@p.test", ORDERS), key, domain="p.test") + b"F bre - mao\n",
            "the text was changed after it was signed",
        ),
        (
            lambda key: signed(raw_mail("france@p.test", ORDERS), key, domain="p.test", length=True),
            "covers only the beginning of the text (l=)",
        ),
    ],
    ids=["unsigned", "another domain", "body changed", "l="],
)
def test_a_mail_not_proven_acts_for_no_seat_password_or_not(t: Table, dns: DnsServer, key: Key, make, why) -> None:
    before = t.outbox()
    outcome, reply = _send(t, dns, make(key))
    assert outcome == "handled: sender not proven (DKIM)"
    assert _france(t) == []  # the right password, and nothing changed
    assert "SIGNON France g **** ERROR: not acted on: your mail is not proven to come from your address" in reply
    assert "A par - bur ERROR: not acted on" in reply
    assert why in reply and "valid DKIM signature of the sender's domain (p.test)" in reply
    assert "LIST" in reply and "g " in reply.split("LIST", 1)[1]  # what changes nothing is still answered
    assert "pw-France" not in reply
    assert len(t.outbox()) == len(before) + 1  # the reply, and nothing else (no warning to the seat's owner)


def test_forged_mail_cannot_join_observe_or_create(t: Table, dns: DnsServer) -> None:
    for body in ("JOIN g new-password-1", "OBSERVE g", "CREATE fresh pw-master-1", "MASTER g pw-master-1"):
        _outcome, reply = _send(t, dns, raw_mail("gm@p.test", body))
        assert "ERROR: not acted on" in reply, body
    assert load_game(t.db, "fresh") is None
    (row,) = t.db.query("select count(*) as n from players where email = 'gm@p.test'")
    assert row["n"] == 0


@pytest.mark.parametrize(
    ("language", "words"),
    [("de", "Ihre Mail trägt keine DKIM-Signatur"), ("ru", "ваше письмо не несёт подписи DKIM")],
)
def test_the_reason_in_the_readers_language(t: Table, dns: DnsServer, key: Key, language: str, words: str) -> None:
    signed_on = signed(
        raw_mail("france@p.test", f"SIGNON France g pw-France\nSET LANGUAGE {language}"), key, domain="p.test"
    )
    _send(t, dns, signed_on)
    _outcome, reply = _send(t, dns, raw_mail("france@p.test", ORDERS))
    assert words in reply and _france(t) == []


def test_without_the_setting_nothing_is_asked_of_the_signature(t: Table) -> None:
    t.mail("france@p.test", ORDERS)
    assert _france(t) == ["A par - bur"]


def test_judge_mail_handle_checks_as_the_daemon_does(
    tmp_path: Path, t: Table, dns: DnsServer, key: Key, capsys
) -> None:
    config = tmp_path / "judge.toml"
    config.write_text(
        f'[judge]\naddress = "judge@judge.test"\nsender_check = "dkim"\n'
        f'[imap]\nhost = "127.0.0.1"\nusername = "judge"\npassword_file = "/nowhere"\n[smtp]\nhost = "127.0.0.1"\n'
        f'[dkim]\nresolver = "{dns.address}"\n'
    )
    unsigned = tmp_path / "unsigned.eml"
    unsigned.write_bytes(raw_mail("france@p.test", ORDERS))
    good = tmp_path / "signed.eml"
    good.write_bytes(signed(raw_mail("france@p.test", ORDERS), key, domain="p.test"))
    now = t.now.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert main(["mail", "handle", str(unsigned), "--config", str(config), "--db", str(t.path), "--now", now]) == 0
    assert "not proven to come from your address" in capsys.readouterr().out and _france(t) == []
    assert main(["mail", "handle", str(good), "--config", str(config), "--db", str(t.path), "--now", now]) == 0
    assert "signed on as France in g" in capsys.readouterr().out and _france(t) == ["A par - bur"]


def test_the_daemon_reads_the_exact_bytes_and_signs_its_own_mail(tmp_path: Path, dns: DnsServer, key: Key) -> None:
    """Over real IMAP and SMTP: the player's server-signed mail is acted on (the bytes fetched are the bytes signed),
    and every mail the judge sends carries its own signature, which verifies at the DNS server."""
    own = rsa_key()
    judge_key = tmp_path / "dkim.key"
    judge_key.write_bytes(own.private)
    judge_key.chmod(0o600)
    imap = start_imap("pymap", tmp_path / "imap")
    smtp = SmtpSink().start()
    try:
        config = write_config(tmp_path / "judge.toml", imap, smtp, tmp_path / "judge.db")
        text = config.read_text().replace(
            'address = "judge@judge.test"', 'address = "judge@judge.test"\nsender_check = "dkim"'
        )
        config.write_text(text + f'[dkim]\nresolver = "{dns.address}"\nsign_key = "dkim.key"\nselector = "j1"\n')
        cfg = load_config(config, {})
        dns.publish("j1", "judge.test", own)
        table = Table(Path(cfg.db))
        table.seven("g", "--master", "gm@p.test", reuse=True)
        imap.append("judge", signed(raw_mail("france@p.test", ORDERS), key, domain="p.test"))
        imap.append("judge", raw_mail("italy@p.test", "SIGNON Italy g pw-Italy\nA rom - ven"))
        assert serve(cfg, once=True, clock=lambda: table.now) == 0
        game = load_game(table.db, "g")
        assert game is not None
        orders = orders_of(table.db, game.id, game.phase or "")
        assert orders.get("France") == ["A par - bur"] and orders.get("Italy") is None
        sent = smtp.sink.raw
        assert {to for to, _raw in sent} >= {"france@p.test", "italy@p.test"}
        lookup = txt_lookup(resolver_address(dns.address))
        for _to, raw in sent:
            assert raw.startswith(b"DKIM-Signature: ") and check(raw, lookup).passed
    finally:
        smtp.stop()
        imap.stop()


def test_check_config_names_an_unusable_key(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    key = tmp_path / "dkim.key"
    key.write_text("-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5\n-----END RSA PRIVATE KEY-----\n")
    key.chmod(0o600)
    config = tmp_path / "judge.toml"
    config.write_text(
        '[judge]\naddress = "judge@judge.test"\n[imap]\nhost = "127.0.0.1"\nusername = "judge"\n'
        '[smtp]\nhost = "127.0.0.1"\n[dkim]\nsign_key = "dkim.key"\nselector = "j1"\n'
    )
    monkeypatch.setenv("JUDGE_IMAP_PASSWORD", "x")
    assert main(["check-config", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "[dkim] sign_key: not an RSA private key in PEM" in err and "bm90" not in err


def test_check_config_says_what_it_checks_and_signs(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    key = tmp_path / "dkim.key"
    key.write_bytes(rsa_key().private)
    key.chmod(0o600)
    config = tmp_path / "judge.toml"
    config.write_text(
        '[judge]\naddress = "judge@judge.test"\nsender_check = "dkim"\n[imap]\nhost = "127.0.0.1"\n'
        'username = "judge"\n[smtp]\nhost = "127.0.0.1"\n[dkim]\nresolver = "127.0.0.1:5353"\nsign_key = "dkim.key"\n'
        'selector = "j1"\n'
    )
    monkeypatch.setenv("JUDGE_IMAP_PASSWORD", "x")
    assert main(["check-config", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "sender check: DKIM of the From domain (relaxed alignment), keys looked up at 127.0.0.1:5353" in out
    assert "signing: DKIM with the key published at j1._domainkey.judge.test" in out and "PRIVATE" not in out
