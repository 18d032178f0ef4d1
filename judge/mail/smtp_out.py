"""Sending the outbox over SMTP (smtplib): each message is marked sent only after the server accepted it.

A server that is down or refuses temporarily leaves the message queued with a growing pause before the next try
(30 s doubling up to an hour); a recipient refused permanently (5xx) marks that message failed.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from collections.abc import Callable
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

from sqlite_utils import Database

from judge.config import SmtpConfig
from judge.timeutil import iso_utc, parse_iso_utc

log = logging.getLogger(__name__)

MAX_BACKOFF = timedelta(hours=1)


def build_message(row: dict[str, Any], judge_address: str, game_name: str | None, now: datetime) -> EmailMessage:
    """The mail for one outbox row, with the headers that keep threads together and loops away."""
    domain = judge_address.rpartition("@")[2] or "judge.invalid"
    msg = EmailMessage()
    msg["From"] = judge_address
    msg["To"] = row["to_addr"]
    msg["Reply-To"] = judge_address
    msg["Subject"] = row["subject"]
    msg["Date"] = format_datetime(now)
    msg["Message-ID"] = row.get("message_id") or f"<judge.{row['id']}@{domain}>"
    refs = []
    if game_name:
        msg["List-Id"] = f"Diplomacy game {game_name} <{game_name}.{domain}>"
        refs.append(f"<game.{game_name}@{domain}>")  # one thread per game
    if row.get("in_reply_to"):
        msg["In-Reply-To"] = f"<{row['in_reply_to']}>"
        # the sender's chain, then the message answered (RFC 5322 3.6.4), so the reply stays in its thread
        for ref in [*(row.get("thread_refs") or "").split(), row["in_reply_to"]]:
            if f"<{ref}>" not in refs:
                refs.append(f"<{ref}>")
    if refs:
        msg["References"] = " ".join(refs)
    msg["Auto-Submitted"] = "auto-replied"  # RFC 3834: never answer this automatically
    msg["X-Auto-Response-Suppress"] = "All"
    msg["X-Loop"] = judge_address
    msg.set_content(row["body"])
    if row.get("html"):
        msg.add_alternative(row["html"], subtype="html")
    if row.get("image"):
        if row.get("html"):  # inline in the HTML part, which shows it as <img src="cid:map@judge">
            html_part = msg.get_payload()[1]  # type: ignore[index]
            html_part.add_related(row["image"], "image", "png", cid="<map@judge>")  # type: ignore[union-attr]
        # and attached for readers of the plain text
        msg.add_attachment(row["image"], maintype="image", subtype="png", filename="map.png")
    return msg


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


def drain_outbox(db: Database, cfg: SmtpConfig, judge_address: str, clock: Callable[[], datetime],
                 limit: int = 500) -> int:
    """Send every queued message that is due; return how many the server accepted."""
    now = clock()
    due = [r for r in db.query("select * from outbox where status = 'queued' order by id limit ?", [limit])
           if not r["next_attempt"] or parse_iso_utc(r["next_attempt"]) <= now]
    if not due:
        return 0
    games = {r["id"]: r["name"] for r in db.query("select id, name from games")}
    sent = 0
    try:
        client = connect(cfg)
    except (OSError, smtplib.SMTPException) as exc:
        log.warning("smtp: cannot connect to %s:%s: %s", cfg.host, cfg.port, type(exc).__name__)
        for row in due:
            _retry_later(db, row, now, f"connect: {type(exc).__name__}")
        return 0
    try:
        for row in due:
            msg = build_message(row, judge_address, games.get(row["game_id"]), clock())
            try:
                client.send_message(msg, from_addr=judge_address, to_addrs=[row["to_addr"]])
            except smtplib.SMTPRecipientsRefused as exc:
                code = next(iter(exc.recipients.values()))[0]
                if 500 <= code < 600:
                    with db.atomic():
                        db.table("outbox").update(row["id"], {"status": "failed", "last_error": f"refused {code}"})
                    log.warning("smtp: message %s refused permanently (%s)", row["id"], code)
                else:
                    _retry_later(db, row, now, f"refused {code}")
                continue
            except (OSError, smtplib.SMTPException) as exc:
                _retry_later(db, row, now, type(exc).__name__)
                log.warning("smtp: sending message %s failed: %s", row["id"], type(exc).__name__)
                break  # the connection is likely gone; the rest waits for the next round
            with db.atomic():
                db.table("outbox").update(row["id"], {"status": "sent", "sent_at": iso_utc(clock()),
                                                      "message_id": msg["Message-ID"], "last_error": None})
            sent += 1
            log.info("smtp: sent message %s", row["id"])
    finally:
        try:
            client.quit()
        except (OSError, smtplib.SMTPException):
            pass
    return sent


def _retry_later(db: Database, row: dict[str, Any], now: datetime, error: str) -> None:
    attempts = (row["attempts"] or 0) + 1
    pause = min(timedelta(seconds=30 * 2 ** min(attempts - 1, 12)), MAX_BACKOFF)
    with db.atomic():
        db.table("outbox").update(row["id"], {"attempts": attempts, "next_attempt": iso_utc(now + pause),
                                              "last_error": error})


def next_send_time(db: Database) -> datetime | None:
    rows = list(db.query("select min(coalesce(next_attempt, created_at)) as t from outbox where status = 'queued'"))
    return parse_iso_utc(rows[0]["t"]) if rows and rows[0]["t"] else None
