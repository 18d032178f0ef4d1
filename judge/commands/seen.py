"""De-duplication: a message is handled once, known by the sha256 of its bytes and by its Message-ID and sender.

The record is written in the same transaction as the message's effect, so a message handled twice (the daemon
killed after handling it and before moving it, a copy in two folders) has no second effect.
"""

from __future__ import annotations

from datetime import datetime

from sqlite_utils import Database

from judge.mail.message import Incoming
from judge.store import inbox
from judge.timeutil import iso_utc


def seen(db: Database, msg: Incoming) -> bool:
    """Whether this message (the same bytes, or the same Message-ID from the same sender) was handled before."""
    if inbox.handled_digest(db, msg.digest):
        return True
    return bool(msg.message_id) and inbox.handled_message_id(db, msg.message_id, msg.sender)


def record(db: Database, msg: Incoming, now: datetime, outcome: str) -> None:
    """Remember that the message was handled, and how."""
    inbox.record_handled(db, msg.message_id, msg.digest, msg.sender, iso_utc(now), outcome)
