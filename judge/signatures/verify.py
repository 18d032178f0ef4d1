"""Verifying a signature over the exact bytes it signs: a detached signature (PGP/MIME, RFC 3156) over the signed MIME
part in canonical CRLF form, a cleartext-signed text (inline PGP, dash-escaped), and a message encrypted to the judge
(signed inside, or not). Each returns what it found as a value: who signed, when, and the digest that marks the
signature as used; or why it is refused.

The keys to verify with are given (``keys_for``: the armoured public keys the judge has for some key IDs); the time
is given (``now``): a signature made more than ``max_age`` before it, or after it by more than ``MAX_SKEW``, is
refused here, whatever the library thinks of it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pysequoia import Cert, Sig

MAX_SIGNATURE_BYTES = 64 * 1024  # an armoured signature block (real ones: under 2 KB)
MAX_SKEW = timedelta(hours=1)  # a signature dated this far after ``now`` is refused (a wrong clock, or a forgery)

KeysFor = Callable[[Sequence[str]], Sequence[str]]  # key IDs / fingerprints -> the armoured keys that hold one


class SignatureProblem(StrEnum):
    """Why a signature is refused (a closed set; the handler words each for the reader)."""

    UNREADABLE = "unreadable"  # no signature could be read from the signature part
    SEVERAL = "several signatures"  # more than one signature: the judge takes one signer per mail
    UNKNOWN_KEY = "unknown key"  # no key the judge has made it (not by itself a refusal: see the handler)
    BAD = "does not verify"  # made by a key the judge has, and the signed bytes are not what it signed
    TOO_OLD = "too old"  # made more than max_age before now
    FUTURE = "dated in the future"
    NOT_DECRYPTED = "cannot be decrypted"  # encrypted, and not to the judge's key (or the judge has none)


@dataclass(frozen=True)
class Verified:
    """A good signature: the signer's primary key, the key that signed (a subkey or the primary), when, the digest
    of the signature packet (to refuse it used twice), and for a cleartext or encrypted message the text it holds."""

    fingerprint: str
    signing_key: str
    created: datetime | None  # None inside an encrypted message (the library does not say)
    digest: str
    content: bytes | None = None


@dataclass(frozen=True)
class Unsigned:
    """A message decrypted that carries no signature (its content is all it gives)."""

    content: bytes


@dataclass(frozen=True)
class Refused:
    """A signature refused: why, and (where it could be read) the key that made it."""

    problem: SignatureProblem
    issuer: str = ""  # the fingerprint or key ID the signature names, lower-case; "" when unknown
    created: datetime | None = None
    content: bytes | None = None  # an encrypted message's content, decrypted, when only its signer is unknown


@dataclass(frozen=True)
class _Sig:
    sig: Sig
    issuer: str
    created: datetime
    digest: str


def _read_signature(armoured: bytes) -> _Sig | SignatureProblem:
    """The one signature packet of an armoured (or binary) signature block."""
    if not armoured or len(armoured) > MAX_SIGNATURE_BYTES:
        return SignatureProblem.UNREADABLE
    try:
        from pysequoia import Sig
        from pysequoia.packet import PacketPile, Tag

        packets = list(PacketPile.from_bytes(armoured))
        signatures = [p for p in packets if p.tag == Tag.Signature]
        if not signatures:
            return SignatureProblem.UNREADABLE
        if len(signatures) > 1:
            return SignatureProblem.SEVERAL
        sig = Sig.from_bytes(bytes(signatures[0]))
    except Exception:  # noqa: BLE001 - the library's words are for developers; the reader is told plainly
        return SignatureProblem.UNREADABLE
    created = sig.created
    issuer = (sig.issuer_fingerprint or sig.issuer_key_id or "").lower()
    if created is None or not issuer:
        return SignatureProblem.UNREADABLE
    return _Sig(sig, issuer, created, hashlib.sha256(bytes(sig)).hexdigest())


def _certs(keys_for: KeysFor, ids: Sequence[str]) -> list[Cert]:
    from pysequoia import Cert

    found = []
    for armoured in keys_for([i.lower() for i in ids]):
        try:
            found.append(Cert.from_bytes(armoured.encode("ascii")))
        except Exception:  # noqa: BLE001 - a stored key the library no longer reads is as good as none
            continue
    return found


def _dated(read: _Sig, now: datetime, max_age: timedelta) -> Refused | None:
    if read.created < now - max_age:
        return Refused(SignatureProblem.TOO_OLD, read.issuer, read.created)
    if read.created > now + MAX_SKEW:
        return Refused(SignatureProblem.FUTURE, read.issuer, read.created)
    return None


def verify_detached(
    signed: bytes, signature: bytes, keys_for: KeysFor, now: datetime, max_age: timedelta
) -> Verified | Refused:
    """A detached signature (``signature``, armoured) over ``signed``, the exact bytes: for PGP/MIME, the first part
    of the multipart/signed with its MIME headers, in canonical CRLF form (:func:`canonical`)."""
    checked = _signature_to_verify(_read_signature(signature), keys_for, now, max_age)
    if isinstance(checked, Refused):
        return checked
    read, certs = checked
    try:
        from pysequoia import verify

        result = verify(bytes=signed, store=lambda _ids: certs, signature=read.sig)
    except Exception:  # noqa: BLE001 - the library raises when no signature is good
        return Refused(SignatureProblem.BAD, read.issuer, read.created)
    return _verified(result.valid_sigs, read, None)


def _signature_to_verify(
    read: _Sig | SignatureProblem, keys_for: KeysFor, now: datetime, max_age: timedelta
) -> tuple[_Sig, Any] | Refused:
    """A signature read, with the keys of the issuer it names, when it is one to verify: not unreadable, by a key the
    judge knows, and neither too old nor from the future."""
    if isinstance(read, SignatureProblem):
        return Refused(read)
    certs = _certs(keys_for, [read.issuer])
    if not certs:
        return Refused(SignatureProblem.UNKNOWN_KEY, read.issuer, read.created)
    late = _dated(read, now, max_age)
    if late is not None:
        return late
    return read, certs


def _verified(valid: list[Any], read: _Sig, content: bytes | None) -> Verified | Refused:
    if len(valid) != 1:
        return Refused(SignatureProblem.BAD, read.issuer, read.created)
    good = valid[0]
    return Verified(str(good.certificate).lower(), str(good.signing_key).lower(), read.created, read.digest, content)


_CLEARTEXT_SIGNATURE = re.compile(
    rb"^-----BEGIN PGP SIGNATURE-----\r?$.*?^-----END PGP SIGNATURE-----\r?$", re.MULTILINE | re.DOTALL
)


def verify_cleartext(armoured: bytes, keys_for: KeysFor, now: datetime, max_age: timedelta) -> Verified | Refused:
    """A cleartext-signed message (``-----BEGIN PGP SIGNED MESSAGE-----`` … ``-----END PGP SIGNATURE-----``), as the
    mail carried it after its transfer encoding; the verified text (dash-escaping undone) is the ``content``."""
    block = _CLEARTEXT_SIGNATURE.search(armoured)
    if block is None:
        return Refused(SignatureProblem.UNREADABLE)
    checked = _signature_to_verify(_read_signature(block.group(0)), keys_for, now, max_age)
    if isinstance(checked, Refused):
        return checked
    read, certs = checked
    try:
        from pysequoia import verify

        result = verify(bytes=armoured, store=lambda _ids: certs)
    except Exception:  # noqa: BLE001 - the library raises when no signature is good
        return Refused(SignatureProblem.BAD, read.issuer, read.created)
    return _verified(result.valid_sigs, read, result.bytes or b"")


def decrypt(message: bytes, secret: Any, keys_for: KeysFor) -> Verified | Unsigned | Refused:
    """An OpenPGP message encrypted to the judge's key (``secret``: a :class:`judge.signatures.keys.JudgeKey`), and
    the signature inside it if there is one. ``content`` is what was encrypted: a MIME entity for PGP/MIME, the text
    for inline PGP."""
    if secret is None:
        return Refused(SignatureProblem.NOT_DECRYPTED)
    from pysequoia import decrypt as sq_decrypt

    asked: list[str] = []
    found: list[Cert] = []

    def store(ids: list[str]) -> list[Cert]:
        asked.extend(i.lower() for i in ids)
        found[:] = _certs(keys_for, ids)
        return found

    try:
        result = sq_decrypt(message, decryptor=secret.tsk.decryptor(), store=store)
    except Exception:  # noqa: BLE001 - not to the judge's key, or a signature inside that is not good
        if not asked:
            return Refused(SignatureProblem.NOT_DECRYPTED)
        try:
            plain = sq_decrypt(message, decryptor=secret.tsk.decryptor())
        except Exception:  # noqa: BLE001
            return Refused(SignatureProblem.NOT_DECRYPTED)
        problem = SignatureProblem.BAD if found else SignatureProblem.UNKNOWN_KEY
        return Refused(problem, asked[0], None, plain.bytes or b"")
    content = result.bytes or b""
    if not result.valid_sigs:
        return Unsigned(content)
    if len(result.valid_sigs) != 1:
        return Refused(SignatureProblem.SEVERAL, asked[0] if asked else "")
    good = result.valid_sigs[0]
    # pysequoia 0.1.35 gives a good signature inside an encrypted message without its creation time: the mail's own
    # Date and arrival were checked against max_mail_age_days before; a replay is known by the encrypted message's
    # digest, which the same signed message encrypted again would not share (a new session key each time).
    digest = hashlib.sha256(message).hexdigest()
    return Verified(str(good.certificate).lower(), str(good.signing_key).lower(), None, digest, content)


def canonical(data: bytes) -> bytes:
    """``data`` with every line ending CRLF, as RFC 3156 signs a MIME part (mail arrives with LF or CRLF)."""
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
