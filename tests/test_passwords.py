"""Password hashing: scrypt round trips, wrong passwords, and stored strings that are not hashes."""

from __future__ import annotations

import base64
import hashlib

import pytest

from judge.game.passwords import hash_password, verify_password


def test_round_trip() -> None:
    stored = hash_password("correct horse battery staple")
    assert verify_password("correct horse battery staple", stored)


@pytest.mark.usefixtures("judge_password_cost")
def test_stored_form_describes_itself() -> None:
    scheme, n, r, p, salt, digest = hash_password("hunter2").split("$")
    assert (scheme, n, r, p) == ("scrypt", "16384", "8", "1")
    assert len(base64.b64decode(salt, validate=True)) == 16
    assert len(base64.b64decode(digest, validate=True)) == 32


def test_each_hash_has_its_own_salt() -> None:
    first, second = hash_password("same"), hash_password("same")
    assert first != second
    assert verify_password("same", first) and verify_password("same", second)


@pytest.mark.parametrize("attempt", ["hunter3", "Hunter2", "hunter2 ", " hunter2", "", "hunter"])
def test_wrong_password(attempt: str) -> None:
    assert not verify_password(attempt, hash_password("hunter2"))


def test_unicode_password_in_either_normal_form() -> None:
    composed = "caf\u00e9 \u043f\u0430\u0440\u043e\u043b\u044c"  # "café пароль" with é as one code point
    decomposed = "cafe\u0301 \u043f\u0430\u0440\u043e\u043b\u044c"  # e followed by a combining acute accent
    assert composed != decomposed
    stored = hash_password(composed)
    assert verify_password(decomposed, stored)
    assert not verify_password("cafe \u043f\u0430\u0440\u043e\u043b\u044c", stored)


def test_lone_surrogate_is_hashed_not_raised() -> None:
    stored = hash_password("pass\udc80word")
    assert verify_password("pass\udc80word", stored)
    assert not verify_password("password", stored)


def test_verify_uses_the_stored_parameters() -> None:
    salt = b"0123456789abcdef"
    digest = hashlib.scrypt(b"old cost", salt=salt, n=2**10, r=4, p=2, dklen=32)
    stored = f"scrypt$1024$4$2${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"
    assert verify_password("old cost", stored)
    assert not verify_password("new cost", stored)


def test_changed_parameters_do_not_verify() -> None:
    scheme, n, r, p, salt, digest = hash_password("pw").split("$")
    assert not verify_password("pw", "$".join([scheme, n, "4", p, salt, digest]))
    assert not verify_password("pw", "$".join([scheme, "8192", r, p, salt, digest]))


@pytest.mark.parametrize(
    "stored",
    [
        "",
        "pw",
        "scrypt",
        "scrypt$16384$8$1$c2FsdA==",  # no hash
        "bcrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g=",
        "scrypt$16000$8$1$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g=",  # n not a power of 2
        "scrypt$1$8$1$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g=",
        "scrypt$-16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g=",
        "scrypt$1073741824$8$1$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g=",  # 128 GiB
        "scrypt$16384$8$99$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g=",
        "scrypt$16384$0$1$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g=",
        "scrypt$16384$8$1$not base64!$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g=",
        "scrypt$16384$8$1$$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g=",  # empty salt
        "scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaA==",  # hash too short
        "scrypt$１６３８４$8$1$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g=",
        "scrypt$" + "9" * 5000 + "$8$1$c2FsdA==$aGFzaA==",
    ],
)
def test_malformed_stored_hash_is_false_not_an_error(stored: str) -> None:
    assert verify_password("pw", stored) is False


def test_truncated_or_padded_real_hash_is_false() -> None:
    stored = hash_password("pw")
    assert not verify_password("pw", stored[:-4])
    assert not verify_password("pw", stored + "$")
    assert not verify_password("pw", stored.replace("scrypt", "SCRYPT"))


def test_non_string_stored_value_is_false() -> None:
    assert verify_password("pw", None) is False  # type: ignore[arg-type]
    assert verify_password("pw", b"scrypt$16384$8$1$") is False  # type: ignore[arg-type]


def test_errors_never_show_the_password() -> None:
    with pytest.raises(TypeError) as caught:
        hash_password(b"sw0rdfish")  # type: ignore[arg-type]
    assert "sw0rdfish" not in str(caught.value)
    with pytest.raises(ValueError, match="must not be empty"):
        hash_password("")


def test_a_verified_sign_on_is_remembered_and_a_failure_always_pays_the_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    from judge.game import passwords

    stored = hash_password("correct horse")
    other = hash_password("correct horse")  # another seat with the same password: its own salt, its own entry
    passwords.forget_verified()
    calls = []
    real = passwords._derive
    monkeypatch.setattr(passwords, "_derive", lambda *a: calls.append(1) or real(*a))
    assert verify_password("correct horse", stored) and len(calls) == 1
    for _ in range(5):
        assert verify_password("correct horse", stored)
    assert len(calls) == 1  # remembered: no second scrypt
    for _ in range(3):
        assert not verify_password("wrong horse", stored)
    assert len(calls) == 4  # every failure paid in full
    assert verify_password("correct horse", other) and len(calls) == 5
    assert not verify_password("correct horse", hash_password("changed"))  # a new hash: no stale match
    assert all(b"correct horse" not in k for k in passwords._verified)  # only keyed hashes are held
    passwords.forget_verified()
    assert verify_password("correct horse", stored) and len(calls) == 8  # (hashing "changed" was one)
