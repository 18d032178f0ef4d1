"""Hostile mail bounded before the mail library sees it: the header block and each of its fields, the number of
RFC 2047 encoded-words and of MIME parts, the size and parameters of Content-Type and Content-Disposition fields, and
the charsets an encoded-word may declare (only real text charsets are decoded)."""

from __future__ import annotations

import codecs
import re

MAX_MESSAGE_BYTES = 1_000_000  # a larger message is not read (the sender is told)
MAX_HEADER_BYTES = 64 * 1024  # the header block of a message
MAX_ENCODED_WORDS = 100  # RFC 2047 encoded-words in the whole message (real mail has a handful)
MAX_PARTS = 100  # Content-Type fields in the whole message: MIME parts at any depth
_HEADER_LIMIT = MAX_HEADER_BYTES + 2  # bytes searched for the end of the header block
_ENCODED_WORD = re.compile(rb"=\?[^?\s]{1,64}\?[bBqQ]\?")
_ENCODED_WORD_CHARSET = re.compile(rb"=\?([^?\s*]{1,64})((?:\*[^?\s]{0,32})?\?[bBqQ]\?)")
_CONTENT_TYPE = re.compile(rb"(?im)^content-type[ \t]*:")


# A Content-Type or Content-Disposition field with its continuation lines, in any part: its parameters are parsed in
# quadratic time, so a long one is refused (real ones, long file names included, stay under 1 KB).
_CONTENT_FIELD = re.compile(rb"(?im)^content-(?:type|disposition)[ \t]*:[^\n]*(?:\n[ \t][^\n]*)*")
MAX_CONTENT_FIELD = 2048  # bytes of one Content-Type or Content-Disposition field
MAX_PARAMETERS = 32  # parameters (";") of one Content-Type or Content-Disposition field
MAX_CONTENT_FIELDS_TOTAL = 64 * 1024  # bytes of all Content-Type and Content-Disposition fields together
MAX_ADDRESS_FIELD = 4096  # bytes of the From, Reply-To or Sender field (address lists are parsed in quadratic time)
MAX_FIELD = 16 * 1024  # bytes of any other field of the header block


# Header fields kept when a message is too big or too complex to parse whole: enough to answer, or not to.
_ESSENTIAL = frozenset(
    {
        "from",
        "reply-to",
        "message-id",
        "date",
        "auto-submitted",
        "precedence",
        "list-id",
        "x-autoreply",
        "x-autorespond",
        "return-path",
        "x-loop",
        "received",
    }
)


_ESSENTIAL_FIELD_BYTES = 2048


# Codecs Python has that are not a charset a mail client writes text in (and some decode in quadratic time).
_NOT_MAIL_CHARSETS = frozenset(
    {"punycode", "idna", "utf-7", "unicode-escape", "raw-unicode-escape", "undefined", "charmap"}
)


def normalise_bytes(data: bytes) -> bytes:
    """Drop a UTF-8 byte-order mark and make every line end in a bare LF."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def header_block(data: bytes) -> tuple[bytes, bool]:
    """The header block at the start of ``data`` (normalised), read from at most the first 64 KB or so, and
    whether it is over ``MAX_HEADER_BYTES`` (it does not end within reach in a longer message)."""
    head = normalise_bytes(data[:_HEADER_LIMIT])
    end = head.find(b"\n\n")
    if end < 0:
        end = head.rfind(b"\n")  # no blank line within reach: keep the whole lines found
        oversized = len(data) > MAX_HEADER_BYTES
    else:
        oversized = end > MAX_HEADER_BYTES
    return (head[: end + 1] if end >= 0 else b""), oversized


def _fields(head: bytes) -> list[bytes]:
    """The fields of a header block, each with its continuation lines."""
    fields: list[list[bytes]] = []
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t"):
            if fields:
                fields[-1].append(line)
        elif line:
            fields.append([line])
    return [b"\n".join(field) for field in fields]


def too_complex(data: bytes, head: bytes) -> bool:
    """More encoded-words, parts or parameters than any real client writes: work the mail library does in
    quadratic time."""
    if len(_ENCODED_WORD.findall(data)) > MAX_ENCODED_WORDS or len(_CONTENT_TYPE.findall(data)) > MAX_PARTS:
        return True
    content = _CONTENT_FIELD.findall(data)
    if sum(map(len, content)) > MAX_CONTENT_FIELDS_TOTAL or any(
        len(field) > MAX_CONTENT_FIELD or field.count(b";") > MAX_PARAMETERS for field in content
    ):
        return True
    for field in _fields(head):
        name = field.split(b":", 1)[0].strip().lower()
        if len(field) > (MAX_ADDRESS_FIELD if name in (b"from", b"reply-to", b"sender") else MAX_FIELD):
            return True
    return False


def essential_headers(head: bytes) -> bytes:
    """Only the short essential fields of a header block, without encoded-words in more than a few places."""
    kept = []
    for text in _fields(head):
        name = text.split(b":", 1)[0].strip().lower()
        if (
            name.decode("latin-1") in _ESSENTIAL
            and len(text) <= _ESSENTIAL_FIELD_BYTES
            and len(_ENCODED_WORD.findall(text)) <= 8
        ):
            kept.append(text)
    return b"\n".join(kept) + b"\n"


def neutralise_charsets(data: bytes) -> bytes:
    """Encoded-words declaring a codec that is not a text charset are read as unknown 8-bit text instead."""

    def swap(m: re.Match[bytes]) -> bytes:
        name = m.group(1).decode("latin-1")
        return m.group(0) if text_charset(name) else b"=?unknown-8bit" + m.group(2)

    return _ENCODED_WORD_CHARSET.sub(swap, data)


def text_charset(name: str) -> str | None:
    """The Python codec for a mail charset name if it is a real text charset, else None."""
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_MAIL_CHARSETS:
        return None
    return info.name
