"""Properties of signature checking (hypothesis): a signed part altered by one byte never verifies — in the exact
bytes of a detached signature, in a PGP/MIME mail as it arrives, in a cleartext-signed text — and the readers of
keys, signatures and mail never raise on any input. Real keys and signatures (pysequoia), nothing mocked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pgp_mail as pm
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from judge.mail.message import parse_incoming
from judge.signatures.keys import read_public_key
from judge.signatures.verify import Refused, Verified, verify_cleartext, verify_detached

KEY = pm.sequoia_key("Prop", "prop@p.test")
NOW = datetime.now(UTC)
WEEK = timedelta(days=7)
ORDER_LINE = st.from_regex(r"[AF] [a-z]{3} (- [a-z]{3}|H|S [AF] [a-z]{3} - [a-z]{3})", fullmatch=True)
TEXT = st.lists(ORDER_LINE, min_size=1, max_size=8).map("\n".join)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def keys(ids: object) -> list[str]:
    return [KEY.public]


@SETTINGS
@given(text=TEXT, where=st.integers(min_value=0), byte=st.integers(min_value=0, max_value=255))
def test_detached_signature_over_bytes_altered_by_one_byte_never_verifies(text: str, where: int, byte: int) -> None:
    data = f"Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n".encode()
    signature = KEY.detached(data)
    assert isinstance(verify_detached(data, signature, keys, NOW, WEEK), Verified)
    i = where % len(data)
    assume(data[i] != byte)
    altered = data[:i] + bytes([byte]) + data[i + 1 :]
    assert isinstance(verify_detached(altered, signature, keys, NOW, WEEK), Refused)


@SETTINGS
@given(text=TEXT, where=st.integers(min_value=0), byte=st.integers(min_value=0, max_value=255))
def test_a_pgp_mime_mail_altered_by_one_byte_in_its_signed_part_never_verifies(
    text: str, where: int, byte: int
) -> None:
    raw = pm.k9(KEY, KEY.address, "SIGNON France g\n" + text)
    start = raw.index(b"\r\n--sig") + 2
    start = raw.index(b"\r\n", start) + 2  # the first byte of the signed part
    end = raw.index(b"\r\n--sig", start)  # the line break before the next boundary is not signed
    i = start + where % (end - start)
    assume(raw[i] != byte)
    altered = raw[:i] + bytes([byte]) + raw[i + 1 :]
    msg = parse_incoming(altered)
    signed = msg.pgp.signed
    if signed is None:  # the change broke the structure: nothing is signed, so nothing verifies
        return
    assert not isinstance(verify_detached(signed.signed, signed.signature, keys, NOW, WEEK), Verified)


@SETTINGS
@given(text=TEXT, where=st.integers(min_value=0), byte=st.integers(min_value=33, max_value=126))
def test_a_cleartext_signed_text_altered_by_one_byte_never_verifies(text: str, where: int, byte: int) -> None:
    """Any visible character changed in the signed text (whitespace at a line's end is not signed: RFC 4880 7.1)."""
    armoured = KEY.clearsign(text.encode())
    head = armoured.index(b"\n\n") + 2
    body_end = armoured.index(b"\n-----BEGIN PGP SIGNATURE-----")
    positions = [i for i in range(head, body_end) if armoured[i] not in b" \t\r\n"]
    i = positions[where % len(positions)]
    assume(armoured[i] != byte)
    altered = armoured[:i] + bytes([byte]) + armoured[i + 1 :]
    assert not isinstance(verify_cleartext(altered, keys, NOW, WEEK), Verified)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=2000))
def test_the_readers_never_raise(data: bytes) -> None:
    read_public_key(data, NOW)
    verify_detached(data, data, keys, NOW, WEEK)
    verify_cleartext(data, keys, NOW, WEEK)
    parse_incoming(
        b'From: a@p.test\r\nContent-Type: multipart/signed; protocol="application/pgp-signature"; '
        b"boundary=b\r\n\r\n--b\r\n" + data + b"\r\n--b--\r\n"
    )
