"""Sending the outbox over SMTP (smtplib), each mail once.

A sender first *claims* the mail that is due, inside a write transaction (status ``sending``), so two senders can
never take the same row; mail is chosen in SQL, due first and oldest first, so a backlog the server keeps deferring
never blocks a new reply. One SMTP connection carries the whole batch. A mail is marked ``sent`` right after the
server's 250 to its DATA: a crash can resend only the one mail whose DATA was under way, and the resend carries the
same Message-ID (fixed when the mail was queued), so it is recognisable as the same mail. Each mail is built while
the server still reads the one before it, and its data goes out made transparent in one pass (bench/README.md,
"Sending the wave").

A temporary refusal (4xx) is retried with exponential backoff and jitter (30 s doubling, at most 6 hours apart) until
the mail is ``[smtp] max_delivery_days`` old (default 5, as common MTAs); a permanent refusal (5xx) fails it at once.
A failed mail is kept, marked ``failed`` with the reason, and reported to its game's master in a digest (at most one
per hour). A server that cannot be reached leaves the claimed mail queued as it was; the daemon retries the
connection with its own capped backoff.

The results map is carried once per mail: the HTML shows it by ``cid:`` and a text-only client lists the same part
as the attachment ``map.png``.

With ``[dkim] sign_key`` the judge signs each mail itself (:func:`mail_signer`, for hosts whose mail server does not
sign): the DKIM-Signature is made over the exact bytes that then go out, and nothing touches them after it.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import random
import secrets
import smtplib
import ssl
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.header import Header
from email.message import EmailMessage, MIMEPart
from email.utils import format_datetime
from typing import Any

from sqlite_utils import Database

from judge.config import Config, SmtpConfig
from judge.facts import PLACEHOLDER_ORGANIZER
from judge.signatures.keys import JudgeKey
from judge.store import game_rows, mail_queue, write
from judge.timeutil import backoff_pause, iso_utc, parse_iso_utc

log = logging.getLogger(__name__)

FIRST_RETRY = timedelta(seconds=30)
MAX_BACKOFF = timedelta(hours=6)
STALE_CLAIM = timedelta(hours=1)  # a claim older than this belongs to a sender that died
MAP_CID = "map@judge"
WIRE = policy.SMTP.clone(cte_type="7bit")  # CRLF lines; text quoted-printable or base64, never raw 8-bit


Signer = Callable[[bytes], bytes]  # a mail's bytes with a DKIM-Signature on top


def mail_signer(cfg: Config) -> Signer | None:
    """The judge's own DKIM signature for every mail it sends, with ``[dkim] sign_key``; None without a key.
    Raises judge.signatures.dkim.KeyProblem for a key that cannot be used (``judge check-config`` says so first)."""
    if not cfg.dkim.signs:
        return None
    from judge.signatures.dkim import sign, signing_key

    key = signing_key(cfg.dkim.key, cfg.dkim.selector, cfg.dkim.domain)
    return lambda raw: sign(raw, key)


class SmtpUnavailable(Exception):
    """The server could not be reached or dropped the connection; the daemon retries later."""


def message_id_of(row: dict[str, Any], judge_address: str) -> str:
    domain = judge_address.rpartition("@")[2] or "judge.invalid"
    mid = row.get("message_id") or f"judge.{row['id']}"
    return mid if mid.startswith("<") else f"<{mid}@{domain}>"


def build_message(
    row: dict[str, Any], judge_address: str, game_name: str | None, now: datetime, image: bytes | None = None
) -> EmailMessage:
    """The mail for one outbox row as a message object (what :func:`message_bytes` sends, parsed back)."""
    raw = message_bytes(row, judge_address, game_name, now, image)
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)  # what policy.default makes
    return message


def message_bytes(
    row: dict[str, Any],
    judge_address: str,
    game_name: str | None,
    now: datetime,
    image: bytes | None = None,
    parts: dict[Any, bytes] | None = None,
    judge_key: JudgeKey | None = None,
) -> bytes:
    """The mail for one outbox row, as sent: the headers that keep threads together and loops away, the text (and
    HTML alternative), and the results map once, shown inline by the HTML (``cid:``) and listed as the attachment
    ``map.png`` by text-only readers (multipart/related).

    ``parts`` is a cache the caller keeps for a batch: the encoded picture part, and the encoded text of a report
    that many recipients receive alike, are made once. With ``judge_key`` the content is PGP/MIME-signed (RFC 3156):
    a multipart/signed of the content as built, and its detached signature.
    """
    domain = judge_address.rpartition("@")[2] or "judge.invalid"
    cache = parts if parts is not None else {}
    headers = [
        ("From", judge_address),
        ("To", row["to_addr"]),
        ("Reply-To", judge_address),
        ("Subject", row["subject"]),
        ("Date", format_datetime(now)),
        ("Message-ID", message_id_of(row, judge_address)),
    ]
    refs = []
    if game_name:
        headers.append(("List-Id", f"Diplomacy game {game_name} <{game_name}.{domain}>"))
        refs.append(f"<game.{game_name}@{domain}>")  # one thread per game
    if row.get("in_reply_to"):
        headers.append(("In-Reply-To", f"<{row['in_reply_to']}>"))
        # the sender's chain, then the message answered (RFC 5322 3.6.4), so the reply stays in its thread
        for ref in [*(row.get("thread_refs") or "").split(), row["in_reply_to"]]:
            if f"<{ref}>" not in refs:
                refs.append(f"<{ref}>")
    if refs:
        headers.append(("References", " ".join(refs)))
    headers += [
        ("Auto-Submitted", "auto-replied"),  # RFC 3834: never answer this automatically
        ("X-Auto-Response-Suppress", "All"),
        ("X-Loop", judge_address),
        ("MIME-Version", "1.0"),
    ]
    image = image if image is not None else row.get("image")
    calendar = with_organizer(row["calendar"], judge_address) if row.get("calendar") else None
    if calendar is None:
        body = _cached(
            cache, ("text", row["body"], row.get("html")), lambda: _alternatives(row["body"], row.get("html"))
        )
    else:  # the text, the HTML and the invitation as alternatives (RFC 6047), the text parts made once per batch
        pieces = [_cached(cache, ("plain", row["body"]), lambda: _alternatives(row["body"], None))]
        if row.get("html"):
            pieces.append(_cached(cache, ("html", row["html"]), lambda: _html_part(row["html"])))
        body = _multipart("alternative", [*pieces, _calendar_part(calendar, "text/calendar", inline=True)])
    head = b"".join(_header(name, value) for name, value in headers)
    if image:
        # multipart/related: first the text (and HTML) alternatives, then the one picture
        picture = _cached(cache, ("picture", id(image)), lambda: _picture_part(image))
        alternative = "multipart/alternative" if row.get("html") or calendar else "text/plain"
        body = _multipart("related", [body, picture], f';\r\n type="{alternative}"')
    if calendar is not None:  # and the invitation again as the attachment invite.ics, for readers that look there
        body = _multipart("mixed", [body, _calendar_part(calendar, "application/ics", inline=False)])
    return head + _signed(body, judge_key)


def _cached(cache: dict[Any, bytes], key: Any, make: Callable[[], bytes]) -> bytes:
    found = cache.get(key)
    if found is None:
        found = make()
        if len(cache) > 64:
            cache.clear()
        cache[key] = found
    return found


def _alternatives(text: str | None, html: str | None) -> bytes:
    """The text (and its HTML alternative) as an entity: its own Content-Type (and boundary) headers, a blank line,
    the content."""
    part = MIMEPart(policy=WIRE)
    part.set_content(text or "")
    if html:
        part.add_alternative(html, subtype="html")
    return part.as_bytes()


def _html_part(html: str) -> bytes:
    part = MIMEPart(policy=WIRE)
    part.set_content(html, subtype="html")
    return part.as_bytes()


def _multipart(subtype: str, entities: list[bytes], params: str = "") -> bytes:
    """A multipart entity of ``entities`` (each with its headers), made by hand as the picture's related part is."""
    boundary = f"=_judge_{secrets.token_hex(12)}"
    out = [f'Content-Type: multipart/{subtype}; boundary="{boundary}"{params}\r\n\r\n'.encode()]
    for entity in entities:  # the line break before a boundary belongs to the boundary (RFC 2046 5.1.1)
        out += [f"--{boundary}\r\n".encode(), entity, b"\r\n"]
    out.append(f"--{boundary}--\r\n".encode())
    return b"".join(out)


def _calendar_part(calendar: str, kind: str, *, inline: bool) -> bytes:
    """The invitation as a part: ``text/calendar`` with its method among the alternatives (what Outlook, Gmail and
    Thunderbird read), or the attachment ``invite.ics`` (what Apple Mail and some others read); base64 unless ASCII."""
    method = _method_of(calendar)
    data = calendar.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")
    if inline:
        head = f"Content-Type: text/calendar; charset=UTF-8; method={method}\r\n"
    else:
        head = f'Content-Type: {kind}; name="invite.ics"\r\nContent-Disposition: attachment; filename="invite.ics"\r\n'
    if inline and data.isascii():
        return f"{head}Content-Transfer-Encoding: 7bit\r\n\r\n".encode() + data
    encoded = base64.encodebytes(data).replace(b"\n", b"\r\n")
    return f"{head}Content-Transfer-Encoding: base64\r\n\r\n".encode() + encoded


def _method_of(calendar: str) -> str:
    for line in calendar.splitlines():
        if line.startswith("METHOD:"):
            return line[len("METHOD:") :].strip()
    return "REQUEST"


def with_organizer(calendar: str, judge_address: str) -> str:
    """The invitation with the judge's sending address where it was queued with the placeholder (before ``judge
    serve`` recorded the address): the lines unfolded, the address put in, folded again as RFC 5545 3.1 says."""
    if PLACEHOLDER_ORGANIZER not in calendar.replace("\r\n ", "") or judge_address == PLACEHOLDER_ORGANIZER:
        return calendar
    lines = calendar.replace("\r\n ", "").split("\r\n")
    return "\r\n".join(_folded(line.replace(PLACEHOLDER_ORGANIZER, judge_address)) for line in lines)


def _folded(line: str) -> str:
    """An iCalendar content line folded into lines of at most 75 octets, never inside a character (RFC 5545 3.1)."""
    pieces, current, room = [], "", 75
    for char in line:
        if len(current.encode()) + len(char.encode()) > room:
            pieces.append(current)
            current, room = "", 74  # a continuation line starts with its space
        current += char
    return "\r\n ".join([*pieces, current])


def _signed(entity: bytes, judge_key: JudgeKey | None) -> bytes:
    """The content of a mail (its Content-Type headers, a blank line, its CRLF lines), PGP/MIME-signed with the judge's
    key when it has one: the signature covers exactly these bytes, as they stand between the boundaries."""
    if judge_key is None:
        return entity
    if not entity.endswith(b"\r\n"):
        entity += b"\r\n"
    signature, micalg = judge_key.sign_detached(entity)
    boundary = f"=_judge_signed_{secrets.token_hex(12)}"
    return b"".join(
        [
            f'Content-Type: multipart/signed; micalg={micalg};\r\n protocol="application/pgp-signature";\r\n'
            f' boundary="{boundary}"\r\n\r\n'.encode(),
            b"This is an OpenPGP/MIME signed message (RFC 4880 and 3156)\r\n",
            f"--{boundary}\r\n".encode(),
            entity,
            f"\r\n--{boundary}\r\n".encode(),
            b'Content-Type: application/pgp-signature; name="signature.asc"\r\n',
            b"Content-Description: OpenPGP digital signature\r\n",
            b'Content-Disposition: attachment; filename="signature.asc"\r\n\r\n',
            signature.replace("\r\n", "\n").replace("\n", "\r\n").encode("ascii"),
            f"\r\n--{boundary}--\r\n".encode(),
        ]
    )


FOLD_AT = 78  # RFC 5322 2.1.1: lines SHOULD be at most 78 characters and MUST be at most 998


def _header(name: str, value: str) -> bytes:
    """One header field, folded at spaces within 78 characters a line: as is when ASCII, else as RFC 2047 encoded
    words; a recipient address that is not ASCII is written in UTF-8 (RFC 6532, sent only with SMTPUTF8); a word
    too long for any line (a player's subject) is written as encoded words, which may be split."""
    value = " ".join(value.split())  # no line breaks from a stored value can start a new header
    if name == "To" and not value.isascii():
        return f"{name}: {value}\r\n".encode()
    if value.isascii() and all(len(word) <= FOLD_AT - len(name) - 2 for word in value.split()):
        lines = [f"{name}:"]
        for word in value.split():
            if len(lines[-1]) + 1 + len(word) > FOLD_AT and lines[-1] != f"{name}:":
                lines.append("")
            lines[-1] += " " + word
        return ("\r\n".join(lines) + "\r\n").encode("ascii")
    return f"{name}: {Header(value, 'utf-8', header_name=name).encode(linesep=chr(13) + chr(10))}\r\n".encode()


def _picture_part(image: bytes) -> bytes:
    encoded = base64.encodebytes(image).replace(b"\n", b"\r\n")  # lines of 76 characters
    return (
        b"Content-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n"
        b'Content-Disposition: inline; filename="map.png"\r\n'
        + f"Content-ID: <{MAP_CID}>\r\n\r\n".encode()
        + encoded.rstrip(b"\r\n")
    )


def connect(cfg: SmtpConfig) -> smtplib.SMTP:
    if cfg.security == "ssl":
        context = ssl.create_default_context()
        client: smtplib.SMTP = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=cfg.timeout, context=context)
    else:
        client = smtplib.SMTP(cfg.host, cfg.port, timeout=cfg.timeout)
        if cfg.security == "starttls":
            client.starttls(context=ssl.create_default_context())
    if cfg.username:
        client.login(cfg.username, cfg.password)
    return client


def release_stale_claims(db: Database, now: datetime, everything: bool = False) -> int:
    """Put mail claimed by a sender that died back in the queue (all of it with ``everything``: the caller holds
    the daemon's lock, so no other sender exists). Only the one whose DATA was under way may have been delivered."""
    with write(db):
        return mail_queue.requeue_claims(db, None if everything else iso_utc(now - STALE_CLAIM))


def claim_due(db: Database, now: datetime, limit: int) -> list[dict[str, Any]]:
    """Take up to ``limit`` due mails for sending, in one write transaction: answers to a player's own message first
    (a reply never waits behind a deadline wave's reports), then due first, oldest first."""
    with write(db):
        rows = mail_queue.due_mail(db, iso_utc(now), limit)
        if rows:
            mail_queue.mark_claimed(db, [r["id"] for r in rows], iso_utc(now))
    return rows


def _unclaim(db: Database, ids: list[int]) -> None:
    if ids:
        with write(db):
            mail_queue.unclaim(db, ids)


def drain_outbox(
    db: Database,
    cfg: SmtpConfig,
    judge_address: str,
    clock: Callable[[], datetime],
    limit: int = 500,
    *,
    sign: Signer | None = None,
    judge_key: JudgeKey | None = None,
) -> int:
    """Send up to ``limit`` due mails over one connection; return how many the server accepted. ``sign`` puts the
    judge's DKIM signature on each (:func:`mail_signer`).

    Raises SmtpUnavailable when the server cannot be reached or drops the connection (the unsent mail stays queued).
    """
    rows = claim_due(db, clock(), limit)
    if not rows:
        return 0
    try:
        client = connect(cfg)
    except (OSError, smtplib.SMTPException) as exc:
        _unclaim(db, [r["id"] for r in rows])
        raise SmtpUnavailable(f"cannot connect to {cfg.host}:{cfg.port}: {type(exc).__name__}") from None
    batch = _Batch(db, cfg, judge_address, clock, rows, client, sign)
    batch.judge_key = judge_key
    try:
        for index in range(len(rows)):
            batch.send(index)
    finally:
        _unclaim(db, batch.pending)
        with contextlib.suppress(OSError, smtplib.SMTPException):
            client.quit()
    return batch.sent


class _Batch:
    """The claimed mails of one connection: each built once (the next one while the server reads the current
    one), sent, and its outcome written at once."""

    def __init__(
        self,
        db: Database,
        cfg: SmtpConfig,
        judge_address: str,
        clock: Callable[[], datetime],
        rows: list[dict[str, Any]],
        client: smtplib.SMTP,
        sign: Signer | None = None,
    ) -> None:
        self.db, self.cfg, self.judge_address, self.clock, self.rows, self.client = (
            db,
            cfg,
            judge_address,
            clock,
            rows,
            client,
        )
        self.games = game_rows.names_by_id(db, (r["game_id"] for r in rows))
        self.pending = [r["id"] for r in rows]  # claimed and not yet settled: back to the queue if the batch stops
        self.sent = 0
        self.pictures: dict[int, bytes] = {}  # one at a time: the mails of a phase come together
        self.parts: dict[Any, bytes] = {}  # message_bytes' cache of encoded parts
        self.prebuilt: dict[int, bytes] = {}
        self.sign = sign
        self.judge_key: JudgeKey | None = None  # signs every mail (OpenPGP) when the judge has a key

    def build(self, row: dict[str, Any]) -> bytes:
        raw = self.prebuilt.pop(row["id"], None)
        if raw is not None:
            return raw
        image = None
        pid = row.get("picture_id")
        if pid:
            if pid not in self.pictures:
                png = mail_queue.picture_png(self.db, pid)
                self.pictures = {pid: png} if png is not None else {}
            image = self.pictures.get(pid)
        raw = message_bytes(
            row, self.judge_address, self.games.get(row["game_id"]), self.clock(), image, self.parts, self.judge_key
        )
        return self.sign(raw) if self.sign is not None else raw  # DKIM last: these bytes go out as they are

    def build_ahead(self, index: int) -> None:
        """Build mail ``index`` now, while the server reads the one before it."""
        if index < len(self.rows) and self.rows[index]["id"] not in self.prebuilt:
            row = self.rows[index]
            # a failure is left for its turn, where it is recorded
            with contextlib.suppress(Exception):
                self.prebuilt[row["id"]] = self.build(row)

    def settled(self, row: dict[str, Any]) -> None:
        self.pending.remove(row["id"])

    def send(self, index: int) -> None:
        row, db = self.rows[index], self.db
        if row["to_addr"].strip().lower() == self.judge_address.strip().lower():
            # the judge as a game's master (as in the demo): its own mail would only come back to its inbox
            with write(db):
                mail_queue.mark_failed(db, row["id"], "not sent: the judge's own address", reported=True)
            return self.settled(row)
        try:
            raw = self.build(row)
        except Exception as exc:  # a row that cannot become a mail must not hold up the others
            log.exception("smtp: message %s cannot be built", row["id"])
            _fail(db, row["id"], f"cannot be built: {type(exc).__name__}")
            return self.settled(row)
        options = []
        if not row["to_addr"].isascii():  # RFC 6531: only a server that offers SMTPUTF8 can take it
            if not _offers_smtputf8(self.client):
                _fail(db, row["id"], "the address is not ASCII and the server does not offer SMTPUTF8")
                return self.settled(row)
            options = ["SMTPUTF8"]
        if not self.deliver(row, raw, options, index):
            return self.settled(row)
        with write(db):
            mail_queue.mark_sent(db, row["id"], iso_utc(self.clock()), message_id_of(row, self.judge_address))
        self.settled(row)
        self.sent += 1
        log.info("smtp: sent message %s", row["id"])
        return None

    def deliver(self, row: dict[str, Any], raw: bytes, options: list[str], index: int) -> bool:
        """Hand one mail to the server: True when accepted; False when refused or unsendable (recorded)."""
        cfg, db = self.cfg, self.db
        try:
            send_mail(
                self.client, self.judge_address, row["to_addr"], raw, options, lambda: self.build_ahead(index + 1)
            )
        except UnicodeError as exc:  # an address smtplib cannot write: this mail can never go
            _fail(db, row["id"], f"cannot be sent: {type(exc).__name__}")
            _reset(self.client)
            return False
        except smtplib.SMTPRecipientsRefused as exc:
            code, text = next(iter(exc.recipients.values()))
            _refused(db, row, code, text, cfg, self.clock())
            return False
        except (smtplib.SMTPDataError, smtplib.SMTPSenderRefused) as exc:
            _refused(db, row, exc.smtp_code, exc.smtp_error, cfg, self.clock())
            _reset(self.client)
            return False
        except (OSError, smtplib.SMTPException) as exc:
            # the connection is gone: whether this one arrived is unknown; it is sent again, same Message-ID
            raise SmtpUnavailable(f"sending to {cfg.host}:{cfg.port}: {type(exc).__name__}") from None
        return True


def send_mail(
    client: smtplib.SMTP,
    sender: str,
    recipient: str,
    raw: bytes,
    options: Sequence[str] = (),
    meanwhile: Callable[[], None] | None = None,
) -> None:
    """One mail to one recipient over an open connection, as ``smtplib.SMTP.sendmail`` sends it (the same commands,
    the same exceptions, the same reset after a refusal), with two differences that matter for a batch of large
    mails: the message (CRLF lines, as :func:`message_bytes` makes it) is made transparent (RFC 5321 4.5.2) by
    one bytes replace instead of smtplib's line-by-line regular expression, and ``meanwhile`` runs after the data
    is written and before the server's answer is read, so the next mail is built while the server reads this one.
    """
    client.ehlo_or_helo_if_needed()
    esmtp = []
    if client.does_esmtp:
        if client.has_extn("size"):
            esmtp.append(f"size={len(raw)}")
        esmtp += options
    code, answer = client.mail(sender, esmtp)
    if code != 250:
        _close_or_reset(client, code)
        raise smtplib.SMTPSenderRefused(code, answer, sender)
    code, answer = client.rcpt(recipient)
    if code not in (250, 251):
        _close_or_reset(client, code)
        raise smtplib.SMTPRecipientsRefused({recipient: (code, answer)})
    client.putcmd("data")
    code, answer = client.getreply()
    if code != 354:
        raise smtplib.SMTPDataError(code, answer)
    client.send(transparent(raw))
    if meanwhile is not None:
        meanwhile()
    code, answer = client.getreply()
    if code != 250:
        _close_or_reset(client, code)
        raise smtplib.SMTPDataError(code, answer)


def transparent(raw: bytes) -> bytes:
    """The DATA of a message: every line that starts with a dot gets one more (RFC 5321 4.5.2), the last line
    ends with CRLF, then the lone dot that ends the data. Same bytes as smtplib's, in one pass of ``replace``."""
    stuffed = raw.replace(b"\n.", b"\n..")
    if stuffed.startswith(b"."):
        stuffed = b"." + stuffed
    if not stuffed.endswith(b"\r\n"):
        stuffed += b"\r\n"
    return stuffed + b".\r\n"


def _close_or_reset(client: smtplib.SMTP, code: int) -> None:
    if code == 421:  # the server is closing the connection
        client.close()
    else:
        _reset(client)


def _offers_smtputf8(client: smtplib.SMTP) -> bool:
    try:
        client.ehlo_or_helo_if_needed()
    except (OSError, smtplib.SMTPException):
        return False
    return bool(client.has_extn("smtputf8"))


def _reset(client: smtplib.SMTP) -> None:
    with contextlib.suppress(OSError, smtplib.SMTPException):
        client.rset()


def _text(error: Any) -> str:
    text = error.decode("utf-8", "replace") if isinstance(error, bytes) else str(error)
    return " ".join(text.split())[:200]


def _refused(db: Database, row: dict[str, Any], code: int, error: Any, cfg: SmtpConfig, now: datetime) -> None:
    """A refusal of this one mail: permanent (5xx) fails it; temporary (4xx) retries it later, or fails it once the
    first attempt to send it is older than the delivery limit (mail that waited while no sender ran gets its days)."""
    reason = f"{code} {_text(error)}"
    first = parse_iso_utc(row["first_attempt_at"]) if row.get("first_attempt_at") else now
    if 500 <= code < 600:
        _fail(db, row["id"], f"refused: {reason}", tried=True)
        log.warning("smtp: message %s refused permanently (%s)", row["id"], code)
        return
    if now - first >= timedelta(days=cfg.max_delivery_days):
        _fail(db, row["id"], f"gave up after {cfg.max_delivery_days:g} days: {reason}", tried=True)
        log.warning("smtp: message %s given up after %g days (%s)", row["id"], cfg.max_delivery_days, code)
        return
    attempts = (row["attempts"] or 0) + 1
    with write(db):
        mail_queue.defer(db, row["id"], attempts, iso_utc(now + retry_pause(attempts)), reason)
    log.info("smtp: message %s deferred (%s), attempt %d", row["id"], code, attempts)


def retry_pause(attempts: int, rng: random.Random | None = None) -> timedelta:
    """Exponential backoff with jitter: 30 s doubling per attempt, at most 6 hours, each pause ±25 %."""
    return backoff_pause(attempts, FIRST_RETRY, MAX_BACKOFF, 0.25, rng)


def _fail(db: Database, outbox_id: int, reason: str, *, tried: bool = False) -> None:
    with write(db):
        mail_queue.mark_failed(db, outbox_id, reason, tried=tried)


def next_send_time(db: Database) -> datetime | None:
    at = mail_queue.next_attempt_at(db)
    return parse_iso_utc(at) if at else None
