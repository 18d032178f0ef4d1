"""The inbox as the store keeps it: how far each IMAP account has been read (its UIDVALIDITY and last UID), the
mail quarantined (known by the sha256 of its bytes), and the messages handled, each with how (the record that keeps
a message from being handled twice)."""

from __future__ import annotations

from sqlite_utils import Database


def mailbox_position(db: Database, account: str) -> tuple[int, int]:
    """(UIDVALIDITY, last UID handled) of ``account``; (0, 0) when it was never read."""
    rows = list(db.query("select uidvalidity, last_uid from mailbox_state where account = ?", [account]))
    return (rows[0]["uidvalidity"], rows[0]["last_uid"]) if rows else (0, 0)


def advance(db: Database, account: str, uidvalidity: int, uid: int, at: str) -> None:
    """``account`` has been read up to ``uid`` (of ``uidvalidity``)."""
    db.table("mailbox_state").upsert(
        {"account": account, "uidvalidity": uidvalidity, "last_uid": uid, "updated_at": at}, pk="account"
    )


def quarantine(db: Database, account: str, uid: int, digest: str, reason: str, at: str) -> None:
    """Record a message set aside unhandled (its ``reason`` kept to 500 characters)."""
    db.table("quarantine").insert({"account": account, "uid": uid, "digest": digest, "reason": reason[:500], "at": at})


def quarantined(db: Database, digest: str) -> bool:
    """Whether the message with these bytes was quarantined."""
    return bool(list(db.query("select 1 from quarantine where digest = ?", [digest])))


def handled_outcome(db: Database, digest: str) -> str | None:
    """How the message with these bytes was handled (None: it was not)."""
    rows = list(db.query("select outcome from messages where digest = ?", [digest]))
    return rows[0]["outcome"] if rows else None


def handled_digest(db: Database, digest: str) -> bool:
    """Whether a message with these bytes was handled."""
    return bool(list(db.query("select 1 from messages where digest = ?", [digest])))


def handled_message_id(db: Database, message_id: str, sender: str) -> bool:
    """Whether a message with this Message-ID from this sender was handled."""
    return bool(list(db.query("select 1 from messages where message_id = ? and sender = ?", [message_id, sender])))


def record_handled(db: Database, message_id: str, digest: str, sender: str, at: str, outcome: str) -> None:
    """Remember that a message was handled, and how."""
    db.table("messages").insert(
        {"message_id": message_id, "digest": digest, "sender": sender, "received_at": at, "outcome": outcome}
    )
