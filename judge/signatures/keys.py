"""Public keys as players send them (an armoured block in the body, an attached ``.asc`` or ``application/pgp-keys``
part): read, checked for what the judge needs of a seat's key, and kept as the armoured text and its fingerprints;
the judge's own secret key, read from its file."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pysequoia import Cert, Tsk

MAX_KEY_BYTES = 256 * 1024  # a public key block larger than this is not read (real ones: a few KB, photos aside)
MAX_USER_IDS = 20  # user IDs named in a reply


class KeyProblem(StrEnum):
    """Why a block offered as a seat's key is refused (a closed set; the handler words each for the reader)."""

    NOT_A_KEY = "not a key"  # no OpenPGP key could be read from it
    SEVERAL = "several keys"  # more than one key in the block: send one
    SECRET = "a secret key"  # the block holds secret key material: never send it
    EXPIRED = "expired"
    REVOKED = "revoked"
    CANNOT_SIGN = "cannot sign"  # no key of it may make signatures (only certification or encryption)
    TOO_LARGE = "too large"


@dataclass(frozen=True)
class PublicKey:
    """A player's public key as the judge keeps it."""

    fingerprint: str  # of the primary key, lower-case hex
    user_ids: tuple[str, ...]  # its user IDs that are not revoked, as the key says them
    armoured: str  # the whole public key, ASCII-armoured (what is stored and given back)
    key_ids: tuple[str, ...]  # every key's fingerprint and 16-hex key ID (primary and subkeys), lower-case
    expires: datetime | None  # when the key expires, if it does


def _sequoia_cert(data: bytes) -> Cert:
    from pysequoia import Cert

    return Cert.from_bytes(data)


def _packets(data: bytes) -> list[object]:
    from pysequoia.packet import PacketPile

    return list(PacketPile.from_bytes(data))


def read_public_key(data: bytes, now: datetime) -> PublicKey | KeyProblem:
    """The public key in ``data`` (armoured or binary), checked at ``now``: one key, public only, neither expired nor
    revoked, with a key that may sign. Never raises on any input."""
    if len(data) > MAX_KEY_BYTES:
        return KeyProblem.TOO_LARGE
    if b"PRIVATE KEY BLOCK" in data:
        return KeyProblem.SECRET
    try:
        from pysequoia import Cert

        certs = Cert.split_bytes(data)
    except Exception:  # noqa: BLE001 - the library says why in a text meant for developers; the player is told plainly
        return KeyProblem.NOT_A_KEY
    if not certs:
        return KeyProblem.NOT_A_KEY
    if len(certs) > 1:
        return KeyProblem.SEVERAL
    return check_key(certs[0], now)


def check_key(cert: Cert, now: datetime) -> PublicKey | KeyProblem:
    """What the judge needs of a seat's key, checked at ``now`` (see :func:`read_public_key`)."""
    from pysequoia.packet import Tag

    raw = bytes(cert)
    try:
        packets = _packets(raw)
    except Exception:  # noqa: BLE001 - a certificate the library parsed but cannot list: not a usable key
        return KeyProblem.NOT_A_KEY
    if any(getattr(p, "tag", None) in (Tag.SecretKey, Tag.SecretSubkey) for p in packets):
        return KeyProblem.SECRET
    if cert.is_revoked:
        return KeyProblem.REVOKED
    expires = cert.expiration
    if expires is not None and expires <= now:
        return KeyProblem.EXPIRED
    if not _can_sign(packets, now):
        return KeyProblem.CANNOT_SIGN
    ids: list[str] = []
    for p in packets:
        fingerprint, key_id = getattr(p, "fingerprint", None), getattr(p, "key_id", None)
        if fingerprint and key_id:
            ids += [fingerprint.lower(), key_id.lower()]
    user_ids = tuple(str(u) for u in cert.user_ids)[:MAX_USER_IDS]
    return PublicKey(cert.fingerprint.lower(), user_ids, str(cert), tuple(dict.fromkeys(ids)), expires)


def _can_sign(packets: list[object], now: datetime) -> bool:
    """Whether a key of the certificate (the primary or a subkey) is bound with the signing flag, alive at ``now``
    and not revoked: the self-signatures that follow each key packet say what it may do and for how long."""
    from pysequoia.packet import SignatureType, Tag

    binding = (  # the library's enums compare but do not hash
        SignatureType.PositiveCertification,
        SignatureType.GenericCertification,
        SignatureType.CasualCertification,
        SignatureType.PersonaCertification,
        SignatureType.DirectKey,
        SignatureType.SubkeyBinding,
    )
    created: datetime | None = None
    signing: dict[int, datetime | None] = {}  # key index -> expiry (None: never) of keys bound to sign
    revoked: set[int] = set()
    index = -1
    for p in packets:
        tag = getattr(p, "tag", None)
        if tag in (Tag.PublicKey, Tag.PublicSubkey):
            index += 1
            created = getattr(p, "key_created", None)
            continue
        if tag != Tag.Signature or index < 0:
            continue
        kind = getattr(p, "signature_type", None)
        if kind in (SignatureType.SubkeyRevocation, SignatureType.KeyRevocation):
            revoked.add(index)
            continue
        flags = getattr(p, "key_flags", None)
        if kind in binding and flags is not None and flags.signing:
            period = getattr(p, "key_validity_period", None)
            signing[index] = created + period if created is not None and period else None
    return (
        any(index not in revoked and (until is None or until > now) for index, until in signing.items())
        and 0 not in revoked
    )


# --- the judge's own key ----------------------------------------------------------------------------------------------


class JudgeKeyError(Exception):
    """The judge's secret key file cannot be used; the message says why (never a word of the key itself)."""


@dataclass(frozen=True)
class JudgeKey:
    """The judge's secret key: it signs every mail the judge sends and decrypts mail encrypted to the judge."""

    tsk: Tsk
    fingerprint: str  # lower-case hex
    public: str  # the public key, ASCII-armoured (GET KEY, `judge key export`)

    def __repr__(self) -> str:  # never the secret
        return f"JudgeKey({self.fingerprint})"

    def sign_detached(self, data: bytes) -> tuple[str, str]:
        """An ASCII-armoured detached signature over ``data`` (as signed: the caller gives canonical CRLF bytes), and
        the ``micalg`` of a PGP/MIME multipart/signed that carries it (RFC 3156 5: the hash it used)."""
        from pysequoia import Sig, SignatureMode, sign

        armoured = sign(self.tsk.signer(), data, mode=SignatureMode.DETACHED)
        algorithm = repr(Sig.from_bytes(armoured).hash_algorithm).rpartition(".")[2].lower()
        return armoured.decode("ascii"), f"pgp-{algorithm}"


def read_judge_key(data: bytes, now: datetime) -> JudgeKey:
    """The judge's key from the bytes of its secret key file (armoured or binary, without a passphrase)."""
    from pysequoia import Tsk
    from pysequoia.packet import Tag

    try:
        tags = [getattr(p, "tag", None) for p in _packets(data)]  # the library's enums do not hash
    except Exception:  # noqa: BLE001 - the library's words are for developers
        raise JudgeKeyError("not an OpenPGP key") from None
    if Tag.SecretKey not in tags:
        raise JudgeKeyError("not a secret key (export it with gpg --export-secret-keys, or sq key generate)")
    try:
        tsk = Tsk.from_bytes(data)
        tsk.signer()
    except Exception:  # noqa: BLE001 - a passphrase-protected or sign-incapable key
        raise JudgeKeyError(
            "the key cannot sign without a passphrase (the judge takes a key without one, in a file only it reads)"
        ) from None
    cert = tsk.extract_certificate()
    checked = check_key(cert, now)
    if isinstance(checked, KeyProblem):
        raise JudgeKeyError(f"the key is {checked.value}")
    return JudgeKey(tsk, cert.fingerprint.lower(), str(cert))
