"""Sending the outbox over SMTP (smtplib), each mail once.

A sender first *claims* the mail that is due, inside a write transaction (status ``sending``), so two senders can
never take the same row; mail is chosen in SQL, due first and oldest first, so a backlog the server keeps deferring
never blocks a new reply. One SMTP connection carries the whole batch. A mail is marked ``sent`` right after the
server's 250 to its DATA: a crash can resend only the one mail whose DATA was under way, and the resend carries the
same Message-ID (fixed when the mail was queued), so it is recognisable as the same mail.

A temporary refusal (4xx) is retried with exponential backoff and jitter (30 s doubling, at most 6 hours apart) until
the mail is ``[smtp] max_delivery_days`` old (default 5, as common MTAs); a permanent refusal (5xx) fails it at once.
A failed mail is kept, marked ``failed`` with the reason, and reported to its game's master in a digest (at most one
per hour). A server that cannot be reached leaves the claimed mail queued as it was; the daemon retries the
connection with its own capped backoff.

The results map is carried once per mail: the HTML shows it by ``cid:`` and a text-only client lists the same part
as the attachment ``map.png``.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import random
import secrets
import smtplib
import ssl
from collections.abc import Callable
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.header import Header
from email.message import EmailMessage, MIMEPart
from email.utils import format_datetime
from typing import Any

from sqlite_utils import Database

from judge.config import SmtpConfig
from judge.store import write
from judge.timeutil import iso_utc, parse_iso_utc

log = logging.getLogger(__name__)

FIRST_RETRY = timedelta(seconds=30)
MAX_BACKOFF = timedelta(hours=6)
STALE_CLAIM = timedelta(hours=1)  # a claim older than this belongs to a sender that died
MAP_CID = "map@judge"
WIRE = policy.SMTP.clone(cte_type="7bit")  # CRLF lines; text quoted-printable or base64, never raw 8-bit


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
    return message_from_bytes(raw, policy=policy.default)


def message_bytes(
    row: dict[str, Any],
    judge_address: str,
    game_name: str | None,
    now: datetime,
    image: bytes | None = None,
    parts: dict[Any, bytes] | None = None,
) -> bytes:
    """The mail for one outbox row, as sent: the headers that keep threads together and loops away, the text (and
    HTML alternative), and the results map once, shown inline by the HTML (``cid:``) and listed as the attachment
    ``map.png`` by text-only readers (multipart/related).

    ``parts`` is a cache the caller keeps for a batch: the encoded picture part, and the encoded text of a report
    that many recipients receive alike, are made once.
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
    text_key = ("text", row["body"], row.get("html"))
    body = cache.get(text_key)
    if body is None:
        part = MIMEPart(policy=WIRE)
        part.set_content(row["body"] or "")
        if row.get("html"):
            part.add_alternative(row["html"], subtype="html")
        body = part.as_bytes()  # its own Content-Type (and boundary) headers, a blank line, the content
        if len(cache) > 64:
            cache.clear()
        cache[text_key] = body
    head = b"".join(_header(name, value) for name, value in headers)
    if not image:
        return head + body
    # multipart/related: first the text (and HTML) alternatives, then the one picture
    picture = cache.get(("picture", id(image)))
    if picture is None:
        picture = _picture_part(image)
        cache[("picture", id(image))] = picture
    boundary = f"=_judge_{secrets.token_hex(12)}"
    alternative = "multipart/alternative" if row.get("html") else "text/plain"
    sep = f"--{boundary}".encode()
    return b"".join(
        [
            head,
            f'Content-Type: multipart/related; boundary="{boundary}";\r\n type="{alternative}"\r\n\r\n'.encode(),
            sep,
            b"\r\n",
            body,
            b"\r\n",
            sep,
            b"\r\n",
            picture,
            b"\r\n",
            sep,
            b"--\r\n",
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
    context = ssl.create_default_context()
    if cfg.security == "ssl":
        client: smtplib.SMTP = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=cfg.timeout, context=context)
    else:
        client = smtplib.SMTP(cfg.host, cfg.port, timeout=cfg.timeout)
        if cfg.security == "starttls":
            client.starttls(context=context)
    if cfg.username:
        client.login(cfg.username, cfg.password)
    return client


def release_stale_claims(db: Database, now: datetime, everything: bool = False) -> int:
    """Put mail claimed by a sender that died back in the queue (all of it with ``everything``: the caller holds
    the daemon's lock, so no other sender exists). Only the one whose DATA was under way may have been delivered."""
    with write(db):
        if everything:
            cur = db.execute("update outbox set status = 'queued', claimed_at = null where status = 'sending'")
        else:
            cur = db.execute(
                "update outbox set status = 'queued', claimed_at = null where status = 'sending' and claimed_at < ?",
                [iso_utc(now - STALE_CLAIM)],
            )
        return cur.rowcount


def claim_due(db: Database, now: datetime, limit: int) -> list[dict[str, Any]]:
    """Take up to ``limit`` due mails for sending, in one write transaction: answers to a player's own message first
    (a reply never waits behind a deadline wave's reports), then due first, oldest first."""
    with write(db):
        rows = list(
            db.query(
                "select * from outbox where status = 'queued' and next_attempt <= ? "
                "order by in_reply_to is null, next_attempt, id limit ?",
                [iso_utc(now), limit],
            )
        )
        if rows:
            ids = [r["id"] for r in rows]
            db.execute(
                f"update outbox set status = 'sending', claimed_at = ? where id in ({','.join('?' * len(ids))})",
                [iso_utc(now), *ids],
            )
    return rows


def _unclaim(db: Database, ids: list[int]) -> None:
    if ids:
        with write(db):
            db.execute(
                f"update outbox set status = 'queued', claimed_at = null "
                f"where status = 'sending' and id in ({','.join('?' * len(ids))})",
                ids,
            )


def drain_outbox(
    db: Database, cfg: SmtpConfig, judge_address: str, clock: Callable[[], datetime], limit: int = 500
) -> int:
    """Send up to ``limit`` due mails over one connection; return how many the server accepted.

    Raises SmtpUnavailable when the server cannot be reached or drops the connection (the unsent mail stays queued).
    """
    now = clock()
    rows = claim_due(db, now, limit)
    if not rows:
        return 0
    games = {r["id"]: r["name"] for r in db.query("select id, name from games")}
    pictures: dict[int, bytes] = {}
    parts: dict[Any, bytes] = {}
    pending = [r["id"] for r in rows]
    try:
        client = connect(cfg)
    except (OSError, smtplib.SMTPException) as exc:
        _unclaim(db, pending)
        raise SmtpUnavailable(f"cannot connect to {cfg.host}:{cfg.port}: {type(exc).__name__}") from None
    sent = 0
    try:
        for row in rows:
            if row["to_addr"].strip().lower() == judge_address.strip().lower():
                # the judge as a game's master (as in the demo): its own mail would only come back to its inbox
                with write(db):
                    db.execute(
                        "update outbox set status = 'failed', claimed_at = null, reported = 1, "
                        "last_error = ? where id = ?",
                        ["not sent: the judge's own address", row["id"]],
                    )
                pending.remove(row["id"])
                continue
            image = None
            if row.get("picture_id"):
                pid = row["picture_id"]
                if pid not in pictures:
                    found = list(db.query("select png from pictures where id = ?", [pid]))
                    pictures = {pid: found[0]["png"]} if found else {}
                image = pictures.get(pid)
            try:
                raw = message_bytes(row, judge_address, games.get(row["game_id"]), clock(), image, parts)
            except Exception as exc:  # a row that cannot become a mail must not hold up the others
                log.exception("smtp: message %s cannot be built", row["id"])
                _fail(db, row["id"], f"cannot be built: {type(exc).__name__}")
                pending.remove(row["id"])
                continue
            options = []
            if not row["to_addr"].isascii():  # RFC 6531: only a server that offers SMTPUTF8 can take it
                if not _offers_smtputf8(client):
                    _fail(db, row["id"], "the address is not ASCII and the server does not offer SMTPUTF8")
                    pending.remove(row["id"])
                    continue
                options = ["SMTPUTF8"]
            try:
                client.sendmail(judge_address, [row["to_addr"]], raw, mail_options=options)
            except UnicodeError as exc:  # an address smtplib cannot write: this mail can never go
                _fail(db, row["id"], f"cannot be sent: {type(exc).__name__}")
                pending.remove(row["id"])
                _reset(client)
                continue
            except smtplib.SMTPRecipientsRefused as exc:
                code, text = next(iter(exc.recipients.values()))
                _refused(db, row, code, text, cfg, clock())
                pending.remove(row["id"])
                continue
            except (smtplib.SMTPDataError, smtplib.SMTPSenderRefused) as exc:
                _refused(db, row, exc.smtp_code, exc.smtp_error, cfg, clock())
                pending.remove(row["id"])
                _reset(client)
                continue
            except (OSError, smtplib.SMTPException) as exc:
                # the connection is gone: whether this one arrived is unknown; it is sent again, same Message-ID
                _unclaim(db, pending)
                raise SmtpUnavailable(f"sending to {cfg.host}:{cfg.port}: {type(exc).__name__}") from None
            with write(db):
                db.execute(
                    "update outbox set status = 'sent', sent_at = ?, message_id = ?, last_error = null, "
                    "claimed_at = null where id = ?",
                    [iso_utc(clock()), message_id_of(row, judge_address), row["id"]],
                )
            pending.remove(row["id"])
            sent += 1
            log.info("smtp: sent message %s", row["id"])
    finally:
        _unclaim(db, pending)
        with contextlib.suppress(OSError, smtplib.SMTPException):
            client.quit()
    return sent


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
    """A refusal of this one mail: permanent (5xx) fails it; temporary (4xx) retries it later, or fails it once it
    is older than the delivery limit."""
    reason = f"{code} {_text(error)}"
    created = parse_iso_utc(row["created_at"])
    if 500 <= code < 600:
        _fail(db, row["id"], f"refused: {reason}")
        log.warning("smtp: message %s refused permanently (%s)", row["id"], code)
        return
    if now - created >= timedelta(days=cfg.max_delivery_days):
        _fail(db, row["id"], f"gave up after {cfg.max_delivery_days:g} days: {reason}")
        log.warning("smtp: message %s given up after %g days (%s)", row["id"], cfg.max_delivery_days, code)
        return
    attempts = (row["attempts"] or 0) + 1
    with write(db):
        db.execute(
            "update outbox set status = 'queued', claimed_at = null, attempts = ?, next_attempt = ?, "
            "last_error = ? where id = ?",
            [attempts, iso_utc(now + retry_pause(attempts)), reason, row["id"]],
        )
    log.info("smtp: message %s deferred (%s), attempt %d", row["id"], code, attempts)


def retry_pause(attempts: int, rng: random.Random | None = None) -> timedelta:
    """Exponential backoff with jitter: 30 s doubling per attempt, at most 6 hours, each pause ±25 %."""
    base: timedelta = min(FIRST_RETRY * 2 ** min(attempts - 1, 20), MAX_BACKOFF)
    jitter: float = (rng or random).uniform(0.75, 1.25)
    return base * jitter


def _fail(db: Database, outbox_id: int, reason: str) -> None:
    with write(db):
        db.execute(
            "update outbox set status = 'failed', claimed_at = null, last_error = ? where id = ?", [reason, outbox_id]
        )


def next_send_time(db: Database) -> datetime | None:
    rows = list(db.query("select min(next_attempt) as t from outbox where status = 'queued'"))
    return parse_iso_utc(rows[0]["t"]) if rows and rows[0]["t"] else None
