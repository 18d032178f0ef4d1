"""The header fields of one parsed message: addresses, ids, dates and subject made safe to use, and whether the
mail is one a judge must never answer (auto-replies, bounces, lists, loops)."""

from __future__ import annotations

import email.utils
import re
import unicodedata
from datetime import UTC, datetime
from email.message import Message

from judge.mail.bounds import MAX_PARTS

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
CONTROL_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def header_date(text: str) -> datetime | None:
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


def clean(text: str) -> str:
    """Undo the surrogate escapes the parser leaves for raw 8-bit header bytes, reading them as UTF-8."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def one_line(text: str) -> str:
    """``text`` with control characters and line breaks turned into spaces, runs of spaces collapsed."""
    spaced = "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)
    return " ".join(spaced.split())


def _header_values(msg: Message, name: str) -> list[str]:
    try:
        values = msg.get_all(name) or []
        return [clean(str(v)) for v in values]
    except Exception:  # noqa: BLE001 - a header the registry cannot parse counts as absent
        return []


def header_text(msg: Message, name: str) -> str:
    values = _header_values(msg, name)
    return values[0] if values else ""


def addresses_of(msg: Message, name: str) -> list[tuple[str, str]]:
    """(display name, addr-spec) pairs of the first ``name`` header, in order, valid or not."""
    pairs: list[tuple[str, str]] = []
    try:
        header = msg.get(name)
        if header is None:
            return []
        addresses = getattr(header, "addresses", ())  # an AddressHeader under email.policy.default
        pairs = [(clean(a.display_name), clean(a.addr_spec)) for a in addresses]
    except Exception:  # noqa: BLE001 - fall back to the lenient parser in email.utils below
        pairs = []
    if not any(_valid_address(addr) for _, addr in pairs):
        text = header_text(msg, name)
        pairs += [(n, a) for n, a in email.utils.getaddresses([text]) if a]
    return pairs


def _valid_address(addr: str) -> bool:
    return len(addr) <= 254 and _ADDR_SPEC.fullmatch(addr) is not None


def first_valid(pairs: list[tuple[str, str]]) -> tuple[str, str]:
    """The first valid address, lower-cased, and its display name; ("", "") if there is none."""
    for name, addr in pairs:
        addr = addr.strip()
        if _valid_address(addr):
            return addr.lower(), one_line(name)
    return "", ""


def message_id_in(text: str) -> str:
    found = re.search(r"<([^<>\s]+)>", text)
    if found:
        return found.group(1)
    words = text.split()
    return words[0].strip("<>") if words else ""


_MAX_REFERENCES = 20  # the most recent ids of a thread kept for the reply's References


def references_in(text: str) -> tuple[str, ...]:
    """The message ids of a References field, valid ones only, the most recent ``_MAX_REFERENCES``."""
    ids = [i for i in re.findall(r"<([^<>\s]{1,250})>", text[:32_000]) if not CONTROL_CHARS.search(i)]
    return tuple(ids[-_MAX_REFERENCES:])


def is_auto(msg: Message, from_candidates: list[tuple[str, str]], loop_token: str) -> bool:
    """True for auto-replies, bounces, list traffic and our own mail coming back (RFC 3834 and common practice)."""
    submitted = header_text(msg, "auto-submitted").split(";")[0].strip().lower()
    if submitted and submitted != "no":
        return True
    if header_text(msg, "precedence").strip().lower() in _BULK_PRECEDENCE:
        return True
    if any(_header_values(msg, h) for h in ("list-id", "x-autoreply", "x-autorespond")):
        return True
    if header_text(msg, "return-path").strip() == "<>":  # a bounce has an empty envelope sender
        return True
    if _has_report(msg):
        return True
    for _, addr in from_candidates:
        local = addr.strip().lower().rpartition("@")[0] or addr.strip().lower()
        if local.split("+")[0] in _ROBOT_LOCAL_PARTS:
            return True
    subject = one_line(header_text(msg, "subject"))[:200]
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
            if content_type_of(part) in (
                "multipart/report",
                "message/delivery-status",
                "message/disposition-notification",
                "message/global-delivery-status",
            ):
                return True
    except Exception:  # noqa: BLE001 - a structure the library cannot walk has no report it can find
        return False
    return False


def content_type_of(part: Message) -> str:
    try:
        return part.get_content_type()
    except Exception:  # noqa: BLE001 - an unparseable Content-Type reads as plain text, as RFC 2045 says
        return "text/plain"
