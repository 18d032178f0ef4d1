"""The OpenPGP material of one message, found in its raw bytes: a PGP/MIME signature (RFC 3156 ``multipart/signed``,
also inside other multiparts) with the exact bytes of the part it signs, a cleartext-signed text (inline PGP), an
encrypted part (``multipart/encrypted`` or an inline ``PGP MESSAGE``), and the public keys a player offers (an armoured
block in the text, an attached ``application/pgp-keys`` or ``.asc`` file) for SET KEY. Nothing here verifies or
decrypts: judge.signatures does, given these bytes.

The signed part of a PGP/MIME message is cut from the message's own bytes, never re-serialised by the mail library
(which would change them): the bytes between the boundary line that opens it and the line break before the next
boundary, every line ending made CRLF (RFC 3156 signs the canonical form; mail arrives with LF or CRLF).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from email.message import Message
from email.parser import BytesParser
from email.policy import compat32
from enum import StrEnum

from judge.mail.bounds import MAX_PARTS, header_block, normalise_bytes
from judge.mail.header_fields import content_type_of
from judge.mail.part_text import html_to_text

MAX_KEY_BLOCK = 256 * 1024  # bytes of one offered public key
MAX_KEYS = 3  # public keys offered in one message that are read
_MAX_DEPTH = 10
# a secret key pasted by mistake is found too, so that SET KEY refuses it by name (it is never kept)
_KEY_BLOCK = re.compile(
    rb"-----BEGIN PGP (PUBLIC|PRIVATE) KEY BLOCK-----\r?\n.*?\n-----END PGP \1 KEY BLOCK-----", re.DOTALL
)
_CLEARTEXT = re.compile(
    rb"^-----BEGIN PGP SIGNED MESSAGE-----[ \t]*\r?\n.*?^-----END PGP SIGNATURE-----[ \t]*$", re.DOTALL | re.MULTILINE
)
_MESSAGE = re.compile(rb"-----BEGIN PGP MESSAGE-----\r?\n.*?\n-----END PGP MESSAGE-----", re.DOTALL)
_KEY_NAMES = re.compile(r"\.(?:asc|pub|key|gpg|pgp)\Z", re.IGNORECASE)


class PgpForm(StrEnum):
    """How a message carries its signature or encryption."""

    MIME = "PGP/MIME"  # multipart/signed or multipart/encrypted (RFC 3156)
    INLINE = "inline"  # armour in the text itself (cleartext-signed, or an inline PGP MESSAGE)


@dataclass(frozen=True)
class Signed:
    """A signature and what it signs.

    PGP/MIME: ``signed`` is the first part of the multipart/signed, headers and all, in canonical CRLF form, and
    ``signature`` the armoured signature of the second part; ``entity`` is the signed part as the mail carried it
    (LF lines), to read its text from. Inline: ``signed`` is the cleartext-signed block (from ``-----BEGIN PGP SIGNED
    MESSAGE-----`` to ``-----END PGP SIGNATURE-----``) as the text part carried it after its transfer encoding, in
    its charset (``charset``), and ``signature`` is empty."""

    form: PgpForm
    signed: bytes
    signature: bytes = b""
    entity: bytes = b""
    charset: str = ""
    whole: bool = False  # PGP/MIME: the multipart/signed is the message itself (its text is all the signed text)


@dataclass(frozen=True)
class Encrypted:
    """An encrypted OpenPGP message: the armoured (or binary) message to decrypt. PGP/MIME: its content is a MIME
    entity; inline: text (in ``charset``)."""

    form: PgpForm
    data: bytes
    charset: str = ""


@dataclass(frozen=True)
class PgpParts:
    signed: Signed | None = None
    encrypted: Encrypted | None = None
    keys: tuple[bytes, ...] = ()  # offered public keys (armoured or binary), message order, at most MAX_KEYS
    autocrypt: bool = False  # the message carries an Autocrypt header (never trusted by itself: a hint at most)


_MAYBE_PGP = re.compile(rb"-----BEGIN PGP |application/pgp|\.(?:asc|pub|key|gpg|pgp)\b", re.IGNORECASE)


def pgp_parts(data: bytes) -> PgpParts:
    """The OpenPGP material of a message (or of one MIME entity), from its raw bytes. Never raises: what cannot be
    read is left out.

    The bytes are read again with the mail library's compat32 policy, which leaves header fields as text: the
    structure is the same as the caller's reading, and the parameters needed here cost a fraction of what the
    default policy's header objects do. A message with no trace of OpenPGP in it is not read at all."""
    if _MAYBE_PGP.search(data) is None:
        return PgpParts(autocrypt=_AUTOCRYPT.search(header_block(data)[0]) is not None)
    try:
        raw = normalise_bytes(data)
        msg = BytesParser(policy=compat32).parsebytes(raw)
        found = _Found()
        _walk(msg, raw, 0, found)
        keys = tuple(found.keys[:MAX_KEYS])
        return PgpParts(found.signed, found.encrypted, keys, msg.get("autocrypt") is not None)
    except Exception:  # noqa: BLE001 - a message whose structure cannot be followed carries no usable OpenPGP part
        return PgpParts()


_AUTOCRYPT = re.compile(rb"(?im)^autocrypt[ \t]*:")


@dataclass
class _Found:
    signed: Signed | None = None
    encrypted: Encrypted | None = None
    keys: list[bytes] = field(default_factory=list)


def _split(entity: bytes) -> tuple[bytes, bytes]:
    """The header block and the body of one entity (LF lines)."""
    if entity.startswith(b"\n"):
        return b"", entity[1:]
    end = entity.find(b"\n\n")
    if end < 0:
        return entity, b""
    return entity[: end + 1], entity[end + 2 :]


def _children(body: bytes, boundary: str) -> list[bytes]:
    """The raw entities of a multipart body: what lies between its boundary lines (the line break before a boundary
    belongs to the boundary, RFC 2046 5.1.1)."""
    delimiter = re.compile(rb"(?:\A|\n)--" + re.escape(boundary.encode("latin-1")) + rb"(--)?[ \t]*(?:\n|\Z)")
    parts: list[bytes] = []
    start: int | None = None
    for m in delimiter.finditer(body):
        if start is not None:
            parts.append(body[start : m.start()])
        if m.group(1):  # the close delimiter
            return parts
        start = m.end()
        if len(parts) > MAX_PARTS:
            break
    return parts


def _walk(part: Message, raw: bytes, depth: int, found: _Found) -> None:
    if depth > _MAX_DEPTH:
        return
    ctype = content_type_of(part)
    if ctype.startswith("multipart/"):
        payload = part.get_payload()
        boundary = part.get_boundary()
        if not isinstance(payload, list) or not boundary:
            return
        children = [c for c in payload if isinstance(c, Message)]
        _, body = _split(raw)
        raws = _children(body, boundary)
        if len(raws) != len(children):
            return  # the mail library read the structure otherwise: no exact bytes to speak of
        if ctype == "multipart/signed" and found.signed is None and _pgp_signed(part, children):
            signature = children[1].get_payload(decode=True)
            canonical = raws[0].replace(b"\n", b"\r\n")
            found.signed = Signed(PgpForm.MIME, canonical, _bytes(signature), raws[0], whole=depth == 0)
        if ctype == "multipart/encrypted" and found.encrypted is None and len(children) == 2:
            encrypted = _bytes(children[1].get_payload(decode=True))
            if encrypted:
                found.encrypted = Encrypted(PgpForm.MIME, encrypted)
        for child, child_raw in zip(children[:MAX_PARTS], raws, strict=False):
            _walk(child, child_raw, depth + 1, found)
        return
    _leaf(part, ctype, found)


def _pgp_signed(part: Message, children: list[Message]) -> bool:
    protocol = str(part.get_param("protocol", "")).lower()
    return (
        len(children) == 2
        and protocol == "application/pgp-signature"
        and content_type_of(children[1]) == "application/pgp-signature"
    )


def _leaf(part: Message, ctype: str, found: _Found) -> None:
    payload = _bytes(part.get_payload(decode=True))
    if not payload:
        return
    name = part.get_filename() or ""
    if ctype == "application/pgp-keys" or (_KEY_NAMES.search(name) and ctype != "application/pgp-signature"):
        if len(payload) <= MAX_KEY_BLOCK and b"PGP SIGNATURE" not in payload[:100]:
            found.keys.append(payload)
        return
    if ctype in ("text/plain", "text/html") and part.get_content_disposition() != "attachment":
        _text_leaf(part, ctype, payload, found)


def _text_leaf(part: Message, ctype: str, payload: bytes, found: _Found) -> None:
    """A text part: the public key blocks and the inline armour in it (of HTML, in its visible text)."""
    charset = _charset(part)
    text = payload
    if ctype == "text/html":
        text = html_to_text(payload.decode(charset or "utf-8", "replace")).encode("utf-8")
        charset = "utf-8"
    found.keys.extend(m.group(0) for m in _KEY_BLOCK.finditer(text) if len(m.group(0)) <= MAX_KEY_BLOCK)
    if found.signed is None:
        clear = _CLEARTEXT.search(text)
        if clear is not None:
            found.signed = Signed(PgpForm.INLINE, clear.group(0), charset=charset)
    if found.encrypted is None:
        enc = _MESSAGE.search(text)
        if enc is not None:
            found.encrypted = Encrypted(PgpForm.INLINE, enc.group(0), charset)


def _bytes(payload: object) -> bytes:
    return payload if isinstance(payload, bytes) else b""


def _charset(part: Message) -> str:
    try:
        return (part.get_content_charset() or "").strip().lower()
    except Exception:  # noqa: BLE001 - a broken charset parameter is as good as none
        return ""
