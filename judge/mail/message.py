"""One incoming mail, read into what the judge needs: who sent it, what they wrote, and whether to answer at all.

``parse_incoming`` never raises. Whatever arrives — a bounce, a mailing-list post, half a message, binary garbage, a
five-megabyte photo — it returns an ``Incoming``; one the judge cannot act on carries a ``problem`` saying why:

- ``"too large"``: over the size limit; only the header block is read, so the sender can still be told.
- ``"no sender"``: no usable From address, so there is nobody to answer.
- ``"not a text message"``: nothing a player could have written orders in (only attachments, images, …).
- ``"unreadable message"``: the mail library gave up on it.
- ``"header block too large"``: the header block is over 64 KB; only a few essential fields are read.
- ``"too complex"``: more MIME parts or RFC 2047 encoded-words than any real client writes; only a few essential
  header fields are read, so the sender can be told.
- ``"malformed Message-ID"``: the Message-ID has control characters in it or is absurdly long.

Hostile input is bounded *before* the mail library sees it: the header block and each of its fields, the number of
encoded-words and of MIME parts (Content-Type fields), the size and parameters of Content-Type and Content-Disposition
fields, the nesting depth followed, and the length of the body text kept. Only real text
charsets are decoded (never ``punycode``, ``idna``, ``utf-7`` or a codec that is not text); others fall back to UTF-8
and then Windows-1252. Addresses with control characters are not valid senders.

``auto`` marks mail a judge must never answer (auto-replies, bounces, lists, loops), whatever its problem.

The bounds are kept by judge.mail.bounds, the header fields read by judge.mail.header_fields, and the text and
attachments found among the parts by judge.mail.part_text.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from email.parser import BytesParser
from email.policy import EmailPolicy
from enum import StrEnum
from typing import Any

from judge.mail.bounds import (
    MAX_MESSAGE_BYTES,
    essential_headers,
    header_block,
    neutralise_charsets,
    normalise_bytes,
    too_complex,
)
from judge.mail.header_fields import (
    CONTROL_CHARS,
    addresses_of,
    first_valid,
    header_date,
    header_text,
    is_auto,
    message_id_in,
    one_line,
    references_in,
)
from judge.mail.part_text import Attachment, text_of
from judge.mail.pgp_parts import PgpParts, pgp_parts


class Problem(StrEnum):
    """Why a message cannot be handled (a closed set; each value is also the words the sender is told)."""

    TOO_LARGE = "too large"
    NO_SENDER = "no sender"
    NOT_TEXT = "not a text message"
    UNREADABLE = "unreadable message"
    HEADER_TOO_LARGE = "header block too large"
    TOO_COMPLEX = "too complex"
    BAD_MESSAGE_ID = "malformed Message-ID"


MAX_BODY_CHARS = 200_000  # characters of body text kept (the command reader reads far fewer)
MAX_MESSAGE_ID = 250  # characters


@dataclass(frozen=True)
class Incoming:
    sender: str  # the From address, lower-cased addr-spec (e.g. "alice@example.org"); "" if none or invalid
    sender_name: str  # the From display name, decoded; "" if none
    reply_to: str  # the Reply-To address if present, valid and not the judge's own (``loop_token``), else sender
    message_id: str  # the Message-ID without <>; "" if missing
    subject: str  # decoded (RFC 2047), on one line
    body: str  # the text the player wrote, "\n" line endings; "" if none
    digest: str  # sha256 hex of the raw bytes
    size: int  # len(raw)
    auto: bool  # True for mail a judge must never answer
    problem: Problem | None  # why the message cannot be handled, else None
    date: datetime | None = None  # the Date header (UTC), if present and readable
    arrived: datetime | None = None  # when the topmost Received header says our server took the message (UTC)
    attachments: tuple[Attachment, ...] = ()  # attached text files and forwarded messages, in message order
    references: tuple[str, ...] = ()  # the thread: References (or In-Reply-To) ids without <>, oldest first
    pgp: PgpParts = field(default_factory=PgpParts)  # its signature, encrypted part, offered keys (pgp_parts)


_REPLY_PREFIX = re.compile(
    r"^(?:\s*(?:re|aw|sv|vs|antw|antwort|odp|ref|rif|réf|rép|отв|ответ|fw|fwd|wg|tr|enc|rv|"
    r"doorst)\s*(?:\[\d{1,4}\]|\(\d{1,4}\))?\s*:\s*)+",
    re.IGNORECASE,
)


_FORWARD_PREFIX = re.compile(r"\s*(?:fwd?|fw|wg|tr|enc|rv|doorst|пересл)\s*:", re.IGNORECASE)


def thread_subject(subject: str) -> str:
    """The subject without its Re:/RE:/AW:/SV:/Antw:/Отв:/Fwd: prefixes, so that a reply says "Re:" once."""
    return _REPLY_PREFIX.sub("", subject).strip()


def forwarded_subject(subject: str) -> bool:
    """Whether the subject says the message forwards another (Fwd:, WG:, TR:, …)."""
    return _FORWARD_PREFIX.match(subject) is not None


def parse_incoming(raw: bytes, *, max_size: int = MAX_MESSAGE_BYTES, loop_token: str = "judge") -> Incoming:
    """Read one raw RFC 5322 message. Never raises; see the module docstring for the problems it reports.

    ``loop_token`` is what this judge writes in the X-Loop header of its own mail; a message carrying it is ``auto``.
    """
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        return _unreadable(b"")
    data = bytes(raw)
    try:
        return _parse(data, max_size, loop_token)
    except Exception:  # noqa: BLE001 - a mail must never stop the judge; anything unforeseen is reported, not raised
        return _unreadable(data)


def _unreadable(data: bytes) -> Incoming:
    return Incoming(
        sender="",
        sender_name="",
        reply_to="",
        message_id="",
        subject="",
        body="",
        digest=hashlib.sha256(data).hexdigest(),
        size=len(data),
        auto=False,
        problem=Problem.UNREADABLE,
    )


class _Reading(EmailPolicy):
    """The mail library's default policy, with the parsed form of a short header field kept for its next reading: the
    library parses a field again every time it is asked for it, and a message's parts are asked for their
    Content-Type dozens of times while its text is found (a third of the time a signed three-part mail took)."""

    def header_fetch_parse(self, name: str, value: str) -> Any:
        if len(value) <= MAX_KEPT_FIELD and not hasattr(value, "name"):
            return _parsed_field(name, value)
        return super().header_fetch_parse(name, value)


MAX_KEPT_FIELD = 512  # longer fields (hostile ones, long subjects) are parsed each time, as before
_DEFAULT = EmailPolicy()


@functools.lru_cache(maxsize=512)  # bounded: at most 512 fields of at most 512 characters
def _parsed_field(name: str, value: str) -> Any:
    """A header field parsed as the default policy parses it (the header objects are immutable strings)."""
    return _DEFAULT.header_fetch_parse(name, value)


READING = _Reading()


def _parse(data: bytes, max_size: int, loop_token: str) -> Incoming:
    too_large = len(data) > max_size
    parser = BytesParser(policy=READING)
    head, head_too_large = header_block(data)
    problem: Problem | None = None
    if head_too_large:
        problem = Problem.HEADER_TOO_LARGE
    elif too_complex(head if too_large else normalise_bytes(data), head):
        problem = Problem.TOO_COMPLEX
    elif too_large:
        problem = Problem.TOO_LARGE
    if problem is not None:
        reduced = essential_headers(head) if problem != Problem.TOO_LARGE else head
        msg = parser.parsebytes(neutralise_charsets(reduced) + b"\n", headersonly=True)
    else:
        msg = parser.parsebytes(neutralise_charsets(normalise_bytes(data)))

    from_candidates = addresses_of(msg, "from")
    sender, sender_name = first_valid(from_candidates)
    reply_to, _ = first_valid(addresses_of(msg, "reply-to"))
    if reply_to and reply_to == loop_token.strip().lower():  # an answer to the judge itself would never be seen
        reply_to = ""
    raw_id = header_text(msg, "message-id")
    body = ""
    attachments: list[Attachment] = []
    pgp = PgpParts()
    if problem is None:
        pgp = pgp_parts(data)
        try:
            found = text_of(msg, 0, attachments)
        except Exception:  # noqa: BLE001 - a body the mail library cannot decode; the headers are still worth keeping
            found = None
            problem = Problem.UNREADABLE
        if found is not None:
            body = _cut(found[1], MAX_BODY_CHARS)
        elif problem is None and not any(a.text for a in attachments):
            problem = Problem.NOT_TEXT
        if problem is None and (CONTROL_CHARS.search(raw_id) or len(raw_id) > MAX_MESSAGE_ID):
            problem = Problem.BAD_MESSAGE_ID
        if not sender:
            problem = Problem.NO_SENDER
    return Incoming(
        sender=sender,
        sender_name=sender_name,
        reply_to=reply_to or sender,
        message_id="" if CONTROL_CHARS.search(raw_id) or len(raw_id) > MAX_MESSAGE_ID else message_id_in(raw_id),
        subject=one_line(header_text(msg, "subject"))[:1000],
        body=body,
        digest=hashlib.sha256(data).hexdigest(),
        size=len(data),
        auto=is_auto(msg, from_candidates, loop_token),
        problem=problem,
        date=header_date(header_text(msg, "date")),
        arrived=header_date(header_text(msg, "received").rpartition(";")[2]),
        attachments=tuple(attachments),
        references=references_in(header_text(msg, "references") or header_text(msg, "in-reply-to")),
        pgp=pgp,
    )


@dataclass(frozen=True)
class Entity:
    """One MIME entity read on its own (the part a PGP/MIME signature signs, a decrypted PGP/MIME message)."""

    body: str
    attachments: tuple[Attachment, ...]
    pgp: PgpParts


def read_entity(data: bytes) -> Entity:
    """The text, attachments and OpenPGP material of one MIME entity (its headers, a blank line, its content), read
    as a whole message's are. Never raises: what cannot be read is empty."""
    try:
        normal = normalise_bytes(data)
        if too_complex(normal, header_block(normal)[0]):
            return Entity("", (), PgpParts())
        msg = BytesParser(policy=READING).parsebytes(neutralise_charsets(normal))
        attachments: list[Attachment] = []
        found = text_of(msg, 0, attachments)
        body = _cut(found[1], MAX_BODY_CHARS) if found is not None else ""
        return Entity(body, tuple(attachments), pgp_parts(data))
    except Exception:  # noqa: BLE001 - an entity the mail library cannot read holds nothing to act on
        return Entity("", (), PgpParts())


def _cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at the end of a line where there is one."""
    if len(text) <= limit:
        return text
    text = text[:limit]
    end = text.rfind("\n")
    return text[: end + 1] if end > 0 else text
