"""Signed orders (issue #20, OpenPGP): keys per seat (SET KEY), sign-on by signature, every refusal, the per-game
policy, signed mail in the shapes real mail programs send, the judge's own key. Real keys made here (pysequoia, and
gpg in a throwaway GNUPGHOME), real signatures, a real SQLite file; nothing of the library is mocked."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pgp_mail as pm
import pytest
from gamekit import Table

from judge.commands.handler import handle_message
from judge.game.records import orders_of
from judge.game.service import get_game
from judge.signatures.keys import read_judge_key
from judge.store import key_rows
from judge.store.key_rows import Holder

NOW = datetime.now(UTC).replace(microsecond=0)
FRANCE = "france@p.test"
ORDERS = ["A par - bur", "A mar - spa", "F bre - mao"]


@pytest.fixture(scope="module")
def alice() -> pm.Key:
    return pm.sequoia_key("Alice", FRANCE)


@pytest.fixture(scope="module")
def eve() -> pm.Key:
    return pm.sequoia_key("Eve", "eve@evil.test")


@pytest.fixture(scope="module")
def gus() -> pm.Key:
    """A key made by gpg (mutt and Enigmail sign with gpg)."""
    return pm.gpg_key("Gus", FRANCE)


def table(tmp_path: Path, *options: str) -> Table:
    t = Table(tmp_path / "judge.db", now=NOW)
    t.seven("g", "--master", "gm@p.test", *options)
    return t


def send(t: Table, raw: bytes, **kw: Any) -> tuple[str, str]:
    """Handle one raw mail: (the outcome recorded, the reply's body to the sender, "" if none)."""
    handled = handle_message(t.db, raw, t.now, **kw)
    bodies = [r["body"] for r in handled.replies if r["subject"].startswith("Re:")]
    return handled.text, " ".join(" ".join(bodies).split())


def france_orders(t: Table) -> list[str]:
    game = get_game(t.db, "g")
    return orders_of(t.db, game.id, game.phase or "").get("France", [])


def register(t: Table, key: pm.Key, password: str = "pw-France") -> str:
    """SET KEY after a password sign-on, the key attached as Thunderbird's "attach my public key" does."""
    outcome, reply = send(t, pm.plain(FRANCE, f"SIGNON France g {password}\nSET KEY", attach_key=key))
    assert outcome == "handled", reply
    return reply


def france_key(t: Table) -> str | None:
    game = get_game(t.db, "g")
    player = next(
        p for p in __import__("judge.game.records", fromlist=["players"]).players(t.db, game.id) if p.power == "France"
    )
    row = key_rows.key_of(t.db, Holder.PLAYER, player.id)
    return None if row is None else str(row["fingerprint"])


# --- SET KEY ----------------------------------------------------------------------------------------------------------


def test_set_key_attached_names_the_fingerprint_and_user_ids(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    reply = register(t, alice)
    assert f"key {alice.fingerprint.upper()} (Alice <{FRANCE}>) is registered" in reply
    assert france_key(t) == alice.fingerprint


def test_set_key_pasted_in_the_body(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    _outcome, reply = send(t, pm.plain(FRANCE, f"SIGNON France g pw-France\nSET KEY\n{alice.public}\nA par - bur"))
    assert "is registered" in reply and "A par - bur" in reply
    assert france_orders(t) == ["A par - bur"]  # the key block itself is not read as orders
    assert "ERROR" not in reply


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (
            lambda: b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nbm90IGEga2V5\n-----END PGP PUBLIC KEY BLOCK-----\n",
            "not an OpenPGP public key",
        ),
        (lambda: str(pm.sequoia_key("S", "s@p.test").tsk).encode(), "SECRET key"),
        (lambda: pm.gpg_key("Carl", "carl@p.test", usage="cert").public.encode(), "cannot make signatures"),
    ],
)
def test_set_key_refuses_what_is_not_a_usable_key(tmp_path: Path, make: Callable[[], bytes], words: str) -> None:
    t = table(tmp_path)
    block = make().decode()
    _outcome, reply = send(t, pm.plain(FRANCE, f"SIGNON France g pw-France\nSET KEY\n{block}"))
    assert words in reply and france_key(t) is None
    assert "PRIVATE KEY" not in reply and "BEGIN PGP" not in reply  # a secret is never quoted back


def test_set_key_refuses_an_expired_and_a_revoked_key(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    expiring = pm.gpg_key("Short", FRANCE, expire="1d")
    t.later(days=2)  # the key expired yesterday (the judge's clock says)
    _, reply = send(t, pm.plain(FRANCE, "SIGNON France g pw-France\nSET KEY", attach_key=expiring))
    assert "that key has expired" in reply and france_key(t) is None
    revoked = pm.sequoia_key("Rev", FRANCE)
    assert revoked.tsk is not None
    cert = revoked.tsk.extract_certificate()
    signature = cert.revoke(revoked.tsk.certifier())
    from pysequoia import Cert

    revoked.public = str(
        Cert.from_packets(
            [
                *__import__("pysequoia.packet", fromlist=["PacketPile"]).PacketPile.from_bytes(bytes(cert)),
                *__import__("pysequoia.packet", fromlist=["PacketPile"]).PacketPile.from_bytes(bytes(signature)),
            ]
        )
    )
    _, reply = send(t, pm.plain(FRANCE, "SIGNON France g pw-France\nSET KEY", attach_key=revoked))
    assert "that key is revoked" in reply and france_key(t) is None


def test_set_key_needs_a_sign_on_and_set_key_none_removes(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    _, reply = send(t, pm.plain(FRANCE, "SET KEY", attach_key=alice))
    assert "sign on first" in reply and france_key(t) is None
    register(t, alice)
    _, reply = send(t, pm.plain(FRANCE, "SIGNON France g pw-France\nSET KEY NONE"))
    assert "your key is removed" in reply and france_key(t) is None


def test_an_autocrypt_header_alone_is_never_taken(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    raw = pm.k9(alice, FRANCE, "SIGNON France g pw-France\nSET KEY")  # signed by a key the judge does not know yet
    _, reply = send(t, raw)
    assert "Autocrypt header is not taken by itself" in reply and france_key(t) is None


# --- signing on by signature ------------------------------------------------------------------------------------------


def test_signed_mail_signs_on_without_a_password(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    register(t, alice)
    outcome, reply = send(t, pm.thunderbird(alice, FRANCE, "\n".join(["SIGNON France g", *ORDERS])))
    assert outcome == "handled"
    assert f"signed on as France in g, signed by {alice.fingerprint.upper()}" in reply
    assert france_orders(t) == ORDERS


def test_signed_mail_with_the_password_too_is_fine(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    register(t, alice)
    _, reply = send(t, pm.k9(alice, FRANCE, "\n".join(["SIGNON France g pw-France", *ORDERS])))
    assert "signed by" in reply and france_orders(t) == ORDERS


def test_without_a_signature_or_a_password_nothing_signs_on(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    register(t, alice)
    _, reply = send(t, pm.plain(FRANCE, "SIGNON France g\nA par - bur"))
    assert "not signed with the seat's registered key, and gives no password" in reply
    assert france_orders(t) == []


# --- refusals: the whole mail, with the reason ------------------------------------------------------------------------


def _flip(raw: bytes, old: bytes, new: bytes) -> bytes:
    assert raw.count(old) == 1
    return raw.replace(old, new)


def test_a_signature_that_does_not_verify_refuses_everything(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    register(t, alice)
    raw = _flip(
        pm.mutt_mime(alice, FRANCE, "SIGNON France g pw-France\nA par - bur\nDRAW\nSET WAIT"),
        b"A par - bur",
        b"A par - pic",
    )
    outcome, reply = send(t, raw)
    assert outcome.startswith("refused: signature does not verify")
    assert "Nothing in your mail was acted on" in reply and "does not verify" in reply
    assert france_orders(t) == []  # not even with the right password


def test_a_key_that_is_not_the_seats_refuses_everything(tmp_path: Path, alice: pm.Key, eve: pm.Key) -> None:
    t = table(tmp_path)
    register(t, alice)
    t.db.execute("select 1")
    # Eve's key is registered for Germany; she signs a mail for France, with France's password
    outcome, reply = send(t, pm.plain("germany@p.test", "SIGNON Germany g pw-Germany\nSET KEY", attach_key=eve))
    outcome, reply = send(t, pm.thunderbird(eve, FRANCE, "SIGNON France g pw-France\nA par - bur"))
    assert outcome == "refused: signature not the seat's key"
    assert f"signed by {eve.fingerprint.upper()}, which is not the key registered for France in g" in reply
    assert france_orders(t) == []
    # a key the judge does not know at all, on a seat that has one: the same
    stranger = pm.sequoia_key("Mallory", FRANCE)
    outcome, _ = send(t, pm.enigmail_inline(stranger, FRANCE, "SIGNON France g pw-France\nA par - bur"))
    assert outcome == "refused: signature not the seat's key" and france_orders(t) == []


def test_an_old_signature_is_refused(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    register(t, alice)
    raw = pm.gpgol(alice, FRANCE, "SIGNON France g\nA par - bur")
    t.later(days=8)  # captured, and sent again 8 days later with a fresh Date (max_mail_age_days is 7)
    head, _, rest = raw.partition(b"\r\nDate: ")
    fresh = head + b"\r\nDate: " + format_datetime(t.now).encode() + b"\r\n" + rest.partition(b"\r\n")[2]
    outcome, reply = send(t, fresh)
    assert outcome == "refused: signature too old" and "older than the judge accepts" in reply
    assert france_orders(t) == []


def test_a_replayed_signature_is_refused(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    register(t, alice)
    raw = pm.thunderbird(alice, FRANCE, "SIGNON France g\nA par - bur")
    assert send(t, raw)[0] == "handled"
    send(t, pm.plain(FRANCE, "SIGNON France g pw-France\nA par - pic"))
    replay = raw.replace(b"Message-ID: <", b"Message-ID: <again.")  # captured, sent again as a new mail
    outcome, reply = send(t, replay)
    assert outcome == "refused: signature used before" and "used before" in reply
    assert france_orders(t) == ["A par - pic"]


def test_a_signed_mail_never_reverts_newer_orders(tmp_path: Path) -> None:
    t = table(tmp_path)
    gus = pm.gpg_key("Gus", FRANCE, made_at=NOW - timedelta(hours=1))
    register(t, gus)
    earlier = dataclasses.replace(gus, signed_at=NOW - timedelta(minutes=5))  # gpg signs as if five minutes ago
    first = pm.mutt_mime(earlier, FRANCE, "SIGNON France g\nA par - bur")
    second = pm.mutt_mime(gus, FRANCE, "SIGNON France g\nA par - pic")
    assert send(t, second)[0] == "handled"
    outcome, reply = send(t, first)  # delivered late
    assert outcome == "refused: signature older than the seat's last"
    assert "never reverts newer orders" in reply and france_orders(t) == ["A par - pic"]


# --- the game's policy ------------------------------------------------------------------------------------------------


def test_a_key_game_takes_only_signed_mail(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path, "--auth", "key")
    _, reply = send(t, pm.plain(FRANCE, "SIGNON France g pw-France\nA par - bur"))
    assert "takes only mail signed with the seat's OpenPGP key" in reply and "SET KEY" in reply
    assert france_orders(t) == []
    register(t, alice)  # the password, once, registers the key
    _, reply = send(t, pm.plain(FRANCE, "SIGNON France g pw-France\nSET KEY NONE"))
    assert "needs a mail signed with it" in reply and france_key(t) == alice.fingerprint
    _, reply = send(t, pm.mailvelope(alice, FRANCE, "\n".join(["SIGNON France g", *ORDERS])))
    assert france_orders(t) == ORDERS


def test_a_key_game_master_follows_the_same_rule(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path, "--auth", "key")
    assert t.cli("game", "master-password", "g", "--password", "master-pw") == 0
    _, reply = send(t, pm.plain("gm@p.test", "MASTER g master-pw\nPAUSE"))
    assert "takes only mail signed" in reply
    master = pm.sequoia_key("Gamemaster", "gm@p.test")
    _, reply = send(t, pm.plain("gm@p.test", "MASTER g master-pw\nSET KEY", attach_key=master))
    assert "is registered" in reply
    _, reply = send(t, pm.thunderbird(master, "gm@p.test", "MASTER g\nPAUSE"))
    assert "signed on as the game master of g, signed by" in reply
    assert get_game(t.db, "g").status == "paused"


# --- every shape a real program sends, each with its own orders -------------------------------------------------------

CLIENTS: list[tuple[str, Callable[..., bytes], list[str], str]] = [
    ("thunderbird", pm.thunderbird, ["A par - bur", "A mar - spa", "F bre - mao"], "alice"),
    ("enigmail-mime", pm.enigmail_mime, ["A par - pic", "A mar - pie", "F bre - eng"], "gus"),
    ("enigmail-inline", pm.enigmail_inline, ["A par - gas", "A mar H", "F bre - pic"], "gus"),
    ("mailvelope", pm.mailvelope, ["A par H", "A mar - bur", "F bre - mao"], "alice"),
    (
        "mailvelope-html",
        lambda k, s, b: pm.mailvelope(k, s, b, html_only=True),
        ["A par - bur", "A mar H", "F bre H"],
        "alice",
    ),
    ("gpgol", pm.gpgol, ["A mar - spa", "A par - bur", "F bre - mao"], "alice"),
    ("k9", pm.k9, ["F bre - mao", "A par - pic", "A mar - pie"], "alice"),
    ("mutt-mime", pm.mutt_mime, ["A par - bur", "A mar - gas", "F bre H"], "gus"),
    ("mutt-inline", pm.mutt_inline, ["A par - gas", "A mar - bur", "F bre - pic"], "gus"),
]


@pytest.mark.parametrize(("name", "build", "orders", "who"), CLIENTS, ids=[c[0] for c in CLIENTS])
def test_each_program_signs_on_with_its_orders(
    tmp_path: Path, name: str, build: Callable[..., bytes], orders: list[str], who: str, alice: pm.Key, gus: pm.Key
) -> None:
    key = alice if who == "alice" else gus
    t = table(tmp_path)
    register(t, key)
    body = "\n".join(["SIGNON France g", *orders, "- a dash-escaped line is no order"][: 1 + len(orders)])
    outcome, reply = send(t, build(key, FRANCE, body))
    assert outcome == "handled", reply
    assert f"signed by {key.fingerprint.upper()}" in reply
    assert france_orders(t) == orders


def test_only_the_signed_text_is_read(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    register(t, alice)
    signed = alice.clearsign(b"SIGNON France g\nA par - bur\n").decode()
    raw = pm.plain(FRANCE, f"A mar - spa\n{signed}\nF bre - mao\n")
    outcome, _reply = send(t, raw)
    assert outcome == "handled" and france_orders(t) == ["A par - bur"]


# --- the judge's own key ----------------------------------------------------------------------------------------------


def test_get_key_and_mail_encrypted_to_the_judge(tmp_path: Path, alice: pm.Key) -> None:
    from pysequoia import Tsk, encrypt

    t = table(tmp_path)
    secret = Tsk.generate("Judge <judge@judge.test>")
    judge_key = read_judge_key(str(secret).encode(), NOW)
    _, reply = send(t, pm.plain(FRANCE, "GET KEY"), judge_key=judge_key)
    assert judge_key.fingerprint.upper() in reply and "BEGIN PGP PUBLIC KEY BLOCK" in reply
    assert "PRIVATE" not in reply
    register(t, alice)
    assert alice.tsk is not None
    armoured = encrypt(
        b"SIGNON France g\nA par - bur\n", recipients=[secret.extract_certificate()], signer=alice.tsk.signer()
    ).decode()
    outcome, reply = send(t, pm.plain(FRANCE, armoured), judge_key=judge_key)
    assert outcome == "handled" and "signed by" in reply and france_orders(t) == ["A par - bur"]
    outcome, reply = send(t, pm.plain(FRANCE, armoured))  # a judge without the key cannot read it
    assert france_orders(t) == ["A par - bur"]


def test_a_signature_is_checked_at_the_time_given(alice: pm.Key) -> None:
    from judge.signatures.verify import Refused, SignatureProblem, Verified, verify_detached

    data = b"Content-Type: text/plain\r\n\r\nA par - bur\r\n"
    signature = alice.detached(data)
    week = timedelta(days=7)
    keys = lambda ids: [alice.public]  # noqa: E731
    assert isinstance(verify_detached(data, signature, keys, NOW, week), Verified)
    late = verify_detached(data, signature, keys, NOW + timedelta(days=8), week)
    assert isinstance(late, Refused) and late.problem is SignatureProblem.TOO_OLD
    early = verify_detached(data, signature, keys, NOW - timedelta(days=1), week)
    assert isinstance(early, Refused) and early.problem is SignatureProblem.FUTURE


# --- the judge signs its own mail -------------------------------------------------------------------------------------


def _key_file(folder: Path, mode: int = 0o600) -> tuple[Path, str]:
    from pysequoia import Tsk

    secret = Tsk.generate("Judge <judge@judge.test>")
    path = folder / "judge-key.asc"
    path.write_text(str(secret))
    path.chmod(mode)
    return path, secret.extract_certificate().fingerprint


def _config(folder: Path, key_line: str) -> Path:
    path = folder / "judge.toml"
    path.write_text(
        f'[judge]\naddress = "judge@judge.test"\ndb = "{folder / "judge.db"}"\n{key_line}\n'
        '[imap]\nhost = "127.0.0.1"\nusername = "judge"\npassword = "x"\n[smtp]\nhost = "127.0.0.1"\n'
    )
    path.chmod(0o600)
    return path


def test_the_key_file_is_read_from_the_config_or_a_credential_and_refused_when_others_read_it(tmp_path: Path) -> None:
    from judge.config import ConfigError, load_config
    from judge.transport.keyfile import load_judge_key

    path, fingerprint = _key_file(tmp_path)
    cfg = load_config(_config(tmp_path, 'openpgp_key = "judge-key.asc"'), {})
    key = load_judge_key(cfg, NOW)
    assert key is not None and key.fingerprint == fingerprint and "PRIVATE" not in repr(key)
    creds = tmp_path / "creds"
    creds.mkdir()
    path.rename(creds / "openpgp-key")
    cfg = load_config(_config(tmp_path, ""), {"CREDENTIALS_DIRECTORY": str(creds)})
    assert cfg.openpgp_key == str(creds / "openpgp-key")
    (creds / "openpgp-key").chmod(0o644)
    with pytest.raises(ConfigError, match="readable or writable by other users; chmod 0600 it"):
        load_config(_config(tmp_path, ""), {"CREDENTIALS_DIRECTORY": str(creds)})
    public = tmp_path / "public.asc"
    public.write_text(pm.sequoia_key("P", "p@p.test").public)
    public.chmod(0o600)
    with pytest.raises(ConfigError, match="not a secret key"):
        load_judge_key(load_config(_config(tmp_path, 'openpgp_key = "public.asc"'), {}), NOW)


def test_judge_key_export_prints_the_public_key_only(tmp_path: Path, capsys: Any) -> None:
    from judge.cli import main

    _, fingerprint = _key_file(tmp_path)
    config = _config(tmp_path, 'openpgp_key = "judge-key.asc"')
    assert main(["key", "export", "--config", str(config)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("-----BEGIN PGP PUBLIC KEY BLOCK-----") and "PRIVATE" not in out + err
    assert fingerprint.upper() in err


def test_every_mail_the_judge_sends_is_pgp_mime_signed(tmp_path: Path) -> None:
    from pysequoia import Tsk

    from judge.signatures.verify import Verified, verify_detached
    from judge.transport.smtp import message_bytes

    secret = Tsk.generate("Judge <judge@judge.test>")
    judge_key = read_judge_key(str(secret).encode(), NOW)
    row = {"id": 7, "to_addr": FRANCE, "subject": "Re: orders", "body": "ok\nA par - bur\n", "html": "<p>ok</p>"}
    for image in (None, b"\x89PNG fake picture"):
        raw = message_bytes(row, "judge@judge.test", "g", NOW, image, None, judge_key)
        msg = __import__("judge.mail.message", fromlist=["parse_incoming"]).parse_incoming(raw)
        signed = msg.pgp.signed
        assert signed is not None and b"micalg=pgp-sha512" in raw
        result = verify_detached(signed.signed, signed.signature, lambda ids: [judge_key.public], NOW, timedelta(1))
        assert isinstance(result, Verified) and result.fingerprint == judge_key.fingerprint
        assert "A par - bur" in msg.body


def test_the_start_mail_names_the_judges_fingerprint(tmp_path: Path) -> None:
    from judge.store import write
    from judge.store.users import set_judge_fingerprint

    t = Table(tmp_path / "judge.db", now=NOW)
    with write(t.db):
        set_judge_fingerprint(t.db, "ab" * 20)
    t.seven("g")
    started = [m for m in t.outbox() if "has started" in m["subject"]]
    assert started and all(("AB" * 20) in " ".join(m["body"].split()) for m in started)


def test_pgp_mime_encrypted_to_the_judge_and_signed_inside(tmp_path: Path, alice: pm.Key) -> None:
    """Thunderbird's "encrypt and sign": multipart/encrypted, the signed MIME entity inside the OpenPGP message."""
    from pysequoia import Tsk, encrypt

    t = table(tmp_path)
    register(t, alice)
    secret = Tsk.generate("Judge <judge@judge.test>")
    judge_key = read_judge_key(str(secret).encode(), NOW)
    assert alice.tsk is not None
    inner = b"Content-Type: text/plain; charset=UTF-8\r\n\r\nSIGNON France g\r\nA mar - spa\r\nF bre - mao\r\n"
    encrypted = encrypt(inner, recipients=[secret.extract_certificate()], signer=alice.tsk.signer()).decode()
    raw = (
        f"From: {FRANCE}\r\nTo: judge@judge.test\r\nSubject: ...\r\nMessage-ID: <enc1@p.test>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary="enc"\r\n\r\n'
        "This is an OpenPGP/MIME encrypted message (RFC 4880 and 3156)\r\n--enc\r\n"
        "Content-Type: application/pgp-encrypted\r\nContent-Description: PGP/MIME version identification\r\n\r\n"
        "Version: 1\r\n\r\n--enc\r\n"
        'Content-Type: application/octet-stream; name="encrypted.asc"\r\n'
        'Content-Disposition: inline; filename="encrypted.asc"\r\n\r\n'
        + encrypted.replace("\n", "\r\n")
        + "\r\n--enc--\r\n"
    ).encode()
    outcome, reply = send(t, raw, judge_key=judge_key)
    assert outcome == "handled" and "signed by" in reply
    assert france_orders(t) == ["A mar - spa", "F bre - mao"]
    outcome, reply = send(t, raw.replace(b"<enc1@", b"<enc2@"), judge_key=judge_key)  # the same, sent again
    assert outcome == "refused: signature used before"


def test_the_auth_setting_changes_by_the_command_line(tmp_path: Path, alice: pm.Key) -> None:
    t = table(tmp_path)
    assert t.cli("game", "settings", "g", "auth", "key") == 0
    _, reply = send(t, pm.plain(FRANCE, "SIGNON France g pw-France\nA par - bur"))
    assert "takes only mail signed" in reply and france_orders(t) == []
    assert t.cli("game", "settings", "g", "auth", "sometimes") != 0


def test_serve_and_check_config_refuse_a_key_that_cannot_sign(tmp_path: Path, capsys: Any) -> None:
    from judge.cli import main

    public = tmp_path / "public.asc"
    public.write_text(pm.sequoia_key("P", "p@p.test").public)
    public.chmod(0o600)
    config = _config(tmp_path, 'openpgp_key = "public.asc"')
    assert main(["check-config", "--config", str(config)]) == 2
    assert main(["serve", "--once", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("not a secret key") == 2 and "BEGIN PGP" not in err
    _key_file(tmp_path)
    good = _config(tmp_path, 'openpgp_key = "judge-key.asc"')
    assert main(["check-config", "--config", str(good)]) == 0
    assert "every mail the judge sends is signed" in capsys.readouterr().out
