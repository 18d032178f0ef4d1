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
"""

from __future__ import annotations

import codecs
import email.utils
import hashlib
import html
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import Message
from email.parser import BytesParser
from enum import StrEnum
from html.parser import HTMLParser


class Problem(StrEnum):
    """Why a message cannot be handled (a closed set; each value is also the words the sender is told)."""

    TOO_LARGE = "too large"
    NO_SENDER = "no sender"
    NOT_TEXT = "not a text message"
    UNREADABLE = "unreadable message"
    HEADER_TOO_LARGE = "header block too large"
    TOO_COMPLEX = "too complex"
    BAD_MESSAGE_ID = "malformed Message-ID"


PROBLEM_TOO_LARGE = Problem.TOO_LARGE
PROBLEM_NO_SENDER = Problem.NO_SENDER
PROBLEM_NOT_TEXT = Problem.NOT_TEXT
PROBLEM_UNREADABLE = Problem.UNREADABLE
PROBLEM_HEADER_TOO_LARGE = Problem.HEADER_TOO_LARGE
PROBLEM_TOO_COMPLEX = Problem.TOO_COMPLEX
PROBLEM_BAD_MESSAGE_ID = Problem.BAD_MESSAGE_ID

MAX_MESSAGE_BYTES = 1_000_000  # a larger message is not read (the sender is told)
MAX_HEADER_BYTES = 64 * 1024  # the header block of a message
MAX_ENCODED_WORDS = 100  # RFC 2047 encoded-words in the whole message (real mail has a handful)
MAX_PARTS = 100  # Content-Type fields in the whole message: MIME parts at any depth
MAX_BODY_CHARS = 200_000  # characters of body text kept (the command reader reads far fewer)
MAX_ATTACHMENT_CHARS = 64 * 1024  # a text attachment longer than this is not read
MAX_MESSAGE_ID = 250  # characters

_HEADER_LIMIT = MAX_HEADER_BYTES + 2  # bytes searched for the end of the header block
_MAX_DEPTH = 10  # nesting of multiparts followed when looking for the body
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
# Subjects of out-of-office and other automatic replies, as the common clients and servers write them.
_AUTO_SUBJECT = re.compile(
    r"^\s*(?:automatic reply|auto(?:matic)?[- ]?reply|autoreply|auto[- ]?response|out of (?:the )?office|"
    r"abwesenheitsnotiz|abwesenheit|automatische antwort|r[ée]ponse automatique|absence du bureau|автоответ|"
    r"нет на месте|ausente|"
    r"автоматический ответ|вне офиса|respuesta autom[áa]tica|fuera de la oficina|risposta automatica|"
    r"fuori sede|fuori ufficio|automatisch antwoord|afwezig|autosvar|frånvaro)\b",
    re.IGNORECASE,
)
# Subjects of bounces (delivery reports) as common mail servers write them when they send no multipart/report.
_BOUNCE_SUBJECT = re.compile(
    r"^\s*(?:undeliver(?:ed|able)\b|undelivered mail returned|delivery status notification|delivery failure|"
    r"delivery has failed|mail delivery (?:failed|failure|system)|returned mail\b|failure notice\b|"
    r"non[- ]?deliver(?:y|able)|unzustellbar|nicht zustellbar|non remis|échec de (?:la )?remise|"
    r"не доставлено|недоставленное|no se puede entregar|non recapitabile)",
    re.IGNORECASE,
)

# Local parts of addresses that belong to machines, not players (compared before any "+tag").
_ROBOT_LOCAL_PARTS = frozenset(
    {
        "mailer-daemon",
        "postmaster",
        "noreply",
        "no-reply",
        "no_reply",
        "donotreply",
        "do-not-reply",
        "do_not_reply",
    }
)
_BULK_PRECEDENCE = frozenset({"bulk", "junk", "list", "auto_reply"})

_ADDR_SPEC = re.compile(r"[^\s@<>()\[\]\\,;:\"\x00-\x1f\x7f-\x9f]{1,64}@[\w-]+(?:\.[\w-]+)+")
_CONTROL_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


@dataclass(frozen=True)
class Attachment:
    """A part the sender attached: a text file (``text`` is what it says) or anything else (``text`` is None)."""

    name: str  # the file name, or "" (a forwarded message has none)
    content_type: str  # e.g. "text/plain", "message/rfc822"
    text: str | None  # the text of a readable text/plain attachment, else None (not read)


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
        problem=PROBLEM_UNREADABLE,
    )


def _normalise_bytes(data: bytes) -> bytes:
    """Drop a UTF-8 byte-order mark and make every line end in a bare LF."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _header_block(data: bytes) -> tuple[bytes, bool]:
    """The header block at the start of ``data`` (normalised), read from at most the first 64 KB or so, and
    whether it is over ``MAX_HEADER_BYTES`` (it does not end within reach in a longer message)."""
    head = _normalise_bytes(data[:_HEADER_LIMIT])
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


def _too_complex(data: bytes, head: bytes) -> bool:
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


def _essential_headers(head: bytes) -> bytes:
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


def _neutralise_charsets(data: bytes) -> bytes:
    """Encoded-words declaring a codec that is not a text charset are read as unknown 8-bit text instead."""

    def swap(m: re.Match[bytes]) -> bytes:
        name = m.group(1).decode("latin-1")
        return m.group(0) if _text_charset(name) else b"=?unknown-8bit" + m.group(2)

    return _ENCODED_WORD_CHARSET.sub(swap, data)


def _text_charset(name: str) -> str | None:
    """The Python codec for a mail charset name if it is a real text charset, else None."""
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_MAIL_CHARSETS:
        return None
    return info.name


def _parse(data: bytes, max_size: int, loop_token: str) -> Incoming:
    too_large = len(data) > max_size
    parser = BytesParser(policy=policy.default)
    head, head_too_large = _header_block(data)
    problem: Problem | None = None
    if head_too_large:
        problem = PROBLEM_HEADER_TOO_LARGE
    elif _too_complex(head if too_large else _normalise_bytes(data), head):
        problem = PROBLEM_TOO_COMPLEX
    elif too_large:
        problem = PROBLEM_TOO_LARGE
    if problem is not None:
        reduced = _essential_headers(head) if problem != PROBLEM_TOO_LARGE else head
        msg = parser.parsebytes(_neutralise_charsets(reduced) + b"\n", headersonly=True)
    else:
        msg = parser.parsebytes(_neutralise_charsets(_normalise_bytes(data)))

    from_candidates = _addresses(msg, "from")
    sender, sender_name = _first_valid(from_candidates)
    reply_to, _ = _first_valid(_addresses(msg, "reply-to"))
    if reply_to and reply_to == loop_token.strip().lower():  # an answer to the judge itself would never be seen
        reply_to = ""
    raw_id = _header(msg, "message-id")
    body = ""
    attachments: list[Attachment] = []
    if problem is None:
        try:
            found = _text_of(msg, 0, attachments)
        except Exception:  # noqa: BLE001 - a body the mail library cannot decode; the headers are still worth keeping
            found = None
            problem = PROBLEM_UNREADABLE
        if found is not None:
            body = _cut(found[1], MAX_BODY_CHARS)
        elif problem is None and not any(a.text for a in attachments):
            problem = PROBLEM_NOT_TEXT
        if problem is None and (_CONTROL_CHARS.search(raw_id) or len(raw_id) > MAX_MESSAGE_ID):
            problem = PROBLEM_BAD_MESSAGE_ID
        if not sender:
            problem = PROBLEM_NO_SENDER
    return Incoming(
        sender=sender,
        sender_name=sender_name,
        reply_to=reply_to or sender,
        message_id="" if _CONTROL_CHARS.search(raw_id) or len(raw_id) > MAX_MESSAGE_ID else _message_id(raw_id),
        subject=_one_line(_header(msg, "subject"))[:1000],
        body=body,
        digest=hashlib.sha256(data).hexdigest(),
        size=len(data),
        auto=_is_auto(msg, from_candidates, loop_token),
        problem=problem,
        date=_date(_header(msg, "date")),
        arrived=_date(_header(msg, "received").rpartition(";")[2]),
        attachments=tuple(attachments),
        references=_references(_header(msg, "references") or _header(msg, "in-reply-to")),
    )


def _cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at the end of a line where there is one."""
    if len(text) <= limit:
        return text
    text = text[:limit]
    end = text.rfind("\n")
    return text[: end + 1] if end > 0 else text


def _date(text: str) -> datetime | None:
    """A date-time of a header (RFC 5322), in UTC; one without a zone is taken as UTC; None if unreadable."""
    text = text.strip()
    if not text or len(text) > 200:
        return None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:
        return when.astimezone(UTC)
    except (OverflowError, ValueError):
        return None


# ---- headers ----------------------------------------------------------------------------------------------------


def _clean(text: str) -> str:
    """Undo the surrogate escapes the parser leaves for raw 8-bit header bytes, reading them as UTF-8."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def _one_line(text: str) -> str:
    """``text`` with control characters and line breaks turned into spaces, runs of spaces collapsed."""
    spaced = "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)
    return " ".join(spaced.split())


def _header_values(msg: Message, name: str) -> list[str]:
    try:
        values = msg.get_all(name) or []
        return [_clean(str(v)) for v in values]
    except Exception:  # noqa: BLE001 - a header the registry cannot parse counts as absent
        return []


def _header(msg: Message, name: str) -> str:
    values = _header_values(msg, name)
    return values[0] if values else ""


def _addresses(msg: Message, name: str) -> list[tuple[str, str]]:
    """(display name, addr-spec) pairs of the first ``name`` header, in order, valid or not."""
    pairs: list[tuple[str, str]] = []
    try:
        header = msg.get(name)
        if header is None:
            return []
        addresses = getattr(header, "addresses", ())  # an AddressHeader under email.policy.default
        pairs = [(_clean(a.display_name), _clean(a.addr_spec)) for a in addresses]
    except Exception:  # noqa: BLE001 - fall back to the lenient parser in email.utils below
        pairs = []
    if not any(_valid_address(addr) for _, addr in pairs):
        text = _header(msg, name)
        pairs += [(n, a) for n, a in email.utils.getaddresses([text]) if a]
    return pairs


def _valid_address(addr: str) -> bool:
    return len(addr) <= 254 and _ADDR_SPEC.fullmatch(addr) is not None


def _first_valid(pairs: list[tuple[str, str]]) -> tuple[str, str]:
    """The first valid address, lower-cased, and its display name; ("", "") if there is none."""
    for name, addr in pairs:
        addr = addr.strip()
        if _valid_address(addr):
            return addr.lower(), _one_line(name)
    return "", ""


def _message_id(text: str) -> str:
    found = re.search(r"<([^<>\s]+)>", text)
    if found:
        return found.group(1)
    words = text.split()
    return words[0].strip("<>") if words else ""


_MAX_REFERENCES = 20  # the most recent ids of a thread kept for the reply's References


def _references(text: str) -> tuple[str, ...]:
    """The message ids of a References field, valid ones only, the most recent ``_MAX_REFERENCES``."""
    ids = [i for i in re.findall(r"<([^<>\s]{1,250})>", text[:32_000]) if not _CONTROL_CHARS.search(i)]
    return tuple(ids[-_MAX_REFERENCES:])


def _is_auto(msg: Message, from_candidates: list[tuple[str, str]], loop_token: str) -> bool:
    """True for auto-replies, bounces, list traffic and our own mail coming back (RFC 3834 and common practice)."""
    submitted = _header(msg, "auto-submitted").split(";")[0].strip().lower()
    if submitted and submitted != "no":
        return True
    if _header(msg, "precedence").strip().lower() in _BULK_PRECEDENCE:
        return True
    if any(_header_values(msg, h) for h in ("list-id", "x-autoreply", "x-autorespond")):
        return True
    if _header(msg, "return-path").strip() == "<>":  # a bounce has an empty envelope sender
        return True
    if _has_report(msg):
        return True
    for _, addr in from_candidates:
        local = addr.strip().lower().rpartition("@")[0] or addr.strip().lower()
        if local.split("+")[0] in _ROBOT_LOCAL_PARTS:
            return True
    subject = _one_line(_header(msg, "subject"))[:200]
    if _AUTO_SUBJECT.match(subject) or _BOUNCE_SUBJECT.match(subject):
        return True
    if any(_header_values(msg, h) for h in ("x-auto-response", "x-autogenerated", "x-autoresponder")):
        return True
    token = loop_token.strip().lower()
    return bool(token) and any(token in v.lower() for v in _header_values(msg, "x-loop"))


def _has_report(msg: Message) -> bool:
    """A delivery or disposition report anywhere in the message (some servers wrap it in multipart/mixed)."""
    try:
        for count, part in enumerate(msg.walk()):
            if count > MAX_PARTS:
                return False
            if _content_type(part) in (
                "multipart/report",
                "message/delivery-status",
                "message/disposition-notification",
                "message/global-delivery-status",
            ):
                return True
    except Exception:  # noqa: BLE001 - a structure the library cannot walk has no report it can find
        return False
    return False


def _content_type(part: Message) -> str:
    try:
        return part.get_content_type()
    except Exception:  # noqa: BLE001 - an unparseable Content-Type reads as plain text, as RFC 2045 says
        return "text/plain"


# ---- body -------------------------------------------------------------------------------------------------------

# Attached parts that are never worth a word in the reply: signatures, keys, vCards and the pictures of a signature.
_SILENT_ATTACHMENTS = frozenset(
    {
        "application/pgp-signature",
        "application/pkcs7-signature",
        "application/x-pkcs7-signature",
        "application/pgp-keys",
        "text/vcard",
        "text/x-vcard",
    }
)


def _text_of(part: Message, depth: int, attachments: list[Attachment]) -> tuple[str, str] | None:
    """("plain" or "html", text) for what the player wrote in ``part``, or None if it holds no such text.

    An alternative gives its plain-text version if it has one; a related group gives its root; any other multipart
    gives all its inline text parts in order. Attachments and enclosed messages (forwards, bounces) are not the
    body: they go to ``attachments`` (the text of a plain-text file, nothing of a forward), pictures and signatures
    are passed over.
    """
    if depth > _MAX_DEPTH:
        return None
    ctype = _content_type(part)
    if ctype == "message/rfc822" or (
        part.get_content_disposition() == "attachment" and not ctype.startswith("multipart/")
    ):
        _attach(part, ctype, attachments)
        return None
    if ctype.startswith("multipart/"):
        children = part.get_payload()
        if not isinstance(children, list):  # a multipart without a usable boundary: read it as plain text
            return "plain", _decode(part)
        if ctype == "multipart/related":
            children = children[:1]
        found = [
            r
            for r in (_text_of(c, depth + 1, attachments) for c in children[:MAX_PARTS] if isinstance(c, Message))
            if r is not None
        ]
        if not found:
            return None
        if ctype == "multipart/alternative":
            plain = [r for r in found if r[0] == "plain"]
            return (plain or found)[0]
        kind = "plain" if any(k == "plain" for k, _ in found) else "html"
        return kind, "\n".join(text for _, text in found)
    if ctype == "text/plain":
        return "plain", _plain(part)
    if ctype == "text/html":
        return "html", html_to_text(_decode(part))
    return None


def _plain(part: Message) -> str:
    text = _decode(part)
    if str(part.get_param("format", "")).lower() == "flowed":
        text = _unflow(text, delsp=str(part.get_param("delsp", "")).lower() == "yes")
    return text


def _attach(part: Message, ctype: str, attachments: list[Attachment]) -> None:
    if ctype in _SILENT_ATTACHMENTS or ctype.startswith("image/") or len(attachments) >= MAX_PARTS:
        return
    try:
        name = _one_line(_clean(part.get_filename() or ""))[:200]
    except Exception:  # noqa: BLE001 - a broken file name parameter is as good as none
        name = ""
    text = None
    if ctype == "text/plain":
        decoded = _plain(part)
        if len(decoded) <= MAX_ATTACHMENT_CHARS:
            text = decoded
    attachments.append(Attachment(name, ctype, text))


# Charsets that mail clients declare but mean something wider by (as web browsers also assume).
_WIDER_CHARSET = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "iso-8859-8-i": "iso-8859-8",
    "ks_c_5601-1987": "cp949",
    "euc-kr": "cp949",
}


def _decode(part: Message) -> str:
    """The text of a leaf part: transfer encoding undone, charset decoded, "\n" line endings, no BOM."""
    payload = part.get_payload(decode=True)
    data = payload if isinstance(payload, bytes) else b""
    try:
        charset = (part.get_content_charset() or "").strip().lower()
    except Exception:  # noqa: BLE001 - a broken charset parameter is as good as none
        charset = ""
    text = _decode_bytes(data, _text_charset(_WIDER_CHARSET.get(charset, charset)) or "" if charset else "")
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _decode_bytes(data: bytes, charset: str) -> str:
    """Decode with the declared charset; with none, an unknown one, or ASCII, try UTF-8 and then Windows-1252."""
    if charset and charset not in ("us-ascii", "ascii") and _text_charset(charset):
        try:
            return data.decode(charset, "replace")
        except (LookupError, UnicodeError):  # unknown or not a text encoding ("base64", "zlib", …)
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def _unflow(text: str, *, delsp: bool) -> str:
    """Rejoin the soft line breaks of format=flowed text (RFC 3676), keeping quote depth."""
    lines: list[str] = []
    pending: list[str] | None = None
    pending_depth = 0

    def flush() -> None:
        joined = "".join(pending or [])
        lines.append((">" * pending_depth + (" " + joined if joined else "")) if pending_depth else joined)

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):  # space-stuffing
            content = content[1:]
        soft = content.endswith(" ") and content != "-- "
        if soft and delsp:
            content = content[:-1]
        if pending is not None and depth != pending_depth:
            flush()
            pending = None
        if pending is None:
            pending, pending_depth = [], depth
        pending.append(content)
        if not soft:
            flush()
            pending = None
    if pending is not None:
        flush()
    return "\n".join(lines)


class _HtmlText(HTMLParser):
    """Collects the visible text of an HTML body, one line per block.

    Line breaks wait in ``pending`` until the next text, so that the end of one block and the start of the next
    make one break, not two; a paragraph asks for a blank line, each ``<br>`` for one more break.
    """

    SKIP = frozenset({"script", "style", "head", "title", "template"})
    PARAGRAPH = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol"})
    BLOCK = PARAGRAPH | frozenset(
        {
            "address",
            "article",
            "aside",
            "caption",
            "dd",
            "details",
            "dialog",
            "div",
            "dl",
            "dt",
            "fieldset",
            "figcaption",
            "figure",
            "footer",
            "form",
            "header",
            "hr",
            "li",
            "main",
            "nav",
            "section",
            "summary",
            "tbody",
            "tfoot",
            "thead",
            "tr",
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.pending = 0
        self.skip = 0
        self.pre = 0
        self.quote = 0  # depth of <blockquote>: its lines are written with "> " as a plain-text client would
        self.line_start = True

    def _block(self, tag: str) -> None:
        self.pending = max(self.pending, 2 if tag in self.PARAGRAPH else 1)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skip += 1
        elif tag == "body":
            self.skip = 0  # a <head> whose end tag was left out ends here
        elif tag == "br":
            self.pending += 1
        elif tag in ("td", "th"):
            self.parts.append(" ")
        elif tag in self.BLOCK:
            self._block(tag)
            if tag == "pre":
                self.pre += 1
            elif tag == "blockquote":
                self.quote += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.SKIP:  # <script/> opens nothing
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self.BLOCK:
            self._block(tag)
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
            elif tag == "blockquote":
                self.quote = max(0, self.quote - 1)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if not self.pre:
            data = re.sub(r"[ \t\n\r\f]+", " ", data)
            if data == " ":  # whitespace between tags separates words at most, never lines
                if not self.pending:
                    self.parts.append(data)
                return
        if self.pending and self.parts:
            self.parts.append("\n" * self.pending)
            self.line_start = True
        self.pending = 0
        if self.quote:
            prefix = "> " * min(self.quote, 20)
            if self.line_start:
                data = prefix + data.lstrip(" ")
            data = data.replace("\n", "\n" + prefix)
        self.line_start = False
        self.parts.append(data)


# A "<" that does not open a complete tag, comment, declaration or processing instruction within reach. Python's
# HTMLParser rescans the rest of the document for each of these (quadratic time: 15 KB of "<a " took 4 s), so they
# are written as text (&lt;) before it sees them; the lookahead is bounded, so this pass is linear.
_STRAY_LT = re.compile(r"<(?!/?[A-Za-z][^<>]{0,2000}>|!--|![^<>]{0,2000}>|\?[^<>]{0,2000}>)")


def html_to_text(markup: str) -> str:
    """The visible text of an HTML body: scripts and styles dropped, blocks on their own lines, entities decoded."""
    markup = _STRAY_LT.sub("&lt;", markup)
    try:
        parser = _HtmlText()
        parser.feed(markup)
        parser.close()
        text = "".join(parser.parts)
    except Exception:  # noqa: BLE001 - HTMLParser is lenient, but a body must never be lost to it: strip tags by hand instead
        text = html.unescape(re.sub(r"<[^>]*>", " ", markup))
    lines = [line.replace("\xa0", " ").strip() for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)
