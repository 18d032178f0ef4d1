"""OpenPGP keys as the store keeps them: one public key per seat (a player's, or a game master's), found by any of
its key IDs; and the signatures already used, kept until they are too old to be accepted anyway."""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from sqlite_utils import Database


class Holder(StrEnum):
    """Whose key a row is: a player's seat (``holder_id``: the player's id) or a game's master (the game's id)."""

    PLAYER = "player"
    MASTER = "master"


def key_of(db: Database, holder: Holder, holder_id: int) -> dict[str, Any] | None:
    """fingerprint, armoured, user_ids (a list) and added_at of the seat's key, or None."""
    rows = list(
        db.query(
            "select fingerprint, armoured, user_ids, added_at from openpgp_keys where holder = ? and holder_id = ?",
            [holder.value, holder_id],
        )
    )
    if not rows:
        return None
    row = dict(rows[0])
    row["user_ids"] = json.loads(row["user_ids"] or "[]")
    return row


def set_key(
    db: Database,
    holder: Holder,
    holder_id: int,
    fingerprint: str,
    armoured: str,
    user_ids: Sequence[str],
    key_ids: Sequence[str],
    at: str,
) -> None:
    """Register (or replace) the seat's key."""
    remove_key(db, holder, holder_id)
    db.execute(
        "insert into openpgp_keys (holder, holder_id, fingerprint, armoured, user_ids, added_at) "
        "values (?, ?, ?, ?, ?, ?)",
        [holder.value, holder_id, fingerprint, armoured, json.dumps(list(user_ids)), at],
    )
    for key_id in dict.fromkeys(key_ids):
        db.execute(
            "insert or ignore into openpgp_key_ids (key_id, holder, holder_id) values (?, ?, ?)",
            [key_id, holder.value, holder_id],
        )


def remove_key(db: Database, holder: Holder, holder_id: int) -> bool:
    """Remove the seat's key; whether it had one."""
    db.execute("delete from openpgp_key_ids where holder = ? and holder_id = ?", [holder.value, holder_id])
    return bool(
        db.execute("delete from openpgp_keys where holder = ? and holder_id = ?", [holder.value, holder_id]).rowcount
    )


def keys_with_ids(db: Database, key_ids: Sequence[str]) -> list[str]:
    """The armoured keys (each once) that hold one of ``key_ids`` (fingerprints or 16-hex key IDs, lower-case)."""
    if not key_ids:
        return []
    marks = ", ".join("?" for _ in key_ids)
    rows = db.query(
        "select distinct k.fingerprint, k.armoured from openpgp_key_ids i join openpgp_keys k "
        f"on k.holder = i.holder and k.holder_id = i.holder_id where i.key_id in ({marks})",
        list(key_ids),
    )
    seen: dict[str, str] = {}
    for row in rows:
        seen.setdefault(row["fingerprint"], row["armoured"])
    return list(seen.values())


def signature_used(db: Database, digest: str) -> bool:
    return db.execute("select 1 from used_signatures where digest = ?", [digest]).fetchone() is not None


def last_signed_at(db: Database, holder: Holder, holder_id: int) -> str | None:
    """When the newest signature that acted for the seat was made (ISO 8601 UTC), or None."""
    row = db.execute(
        "select max(signed_at) from used_signatures where holder = ? and holder_id = ?", [holder.value, holder_id]
    ).fetchone()
    return row[0] if row and row[0] else None


def record_signature(
    db: Database, digest: str, at: str, signed_at: str | None, holder: Holder | None, holder_id: int | None
) -> None:
    """A signature used by a mail handled at ``at`` (acting for a seat, or for none)."""
    db.execute(
        "insert or ignore into used_signatures (digest, at, signed_at, holder, holder_id) values (?, ?, ?, ?, ?)",
        [digest, at, signed_at, holder.value if holder else None, holder_id],
    )
