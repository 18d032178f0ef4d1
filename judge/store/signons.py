"""Failed sign-ons as the store keeps them: who tried which game and power, when (counted per seat, all senders
together, to hold back password guessing)."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database


def record_failure(db: Database, address: str, at: str, game: str, power: str | None) -> None:
    db.table("signon_failures").insert({"address": address, "at": at, "game": game, "power": power})


def failures_since(db: Database, game: str, power: str, since: str) -> list[dict[str, Any]]:
    """address and at of the failed sign-ons as ``power`` in ``game`` after ``since``, first to last."""
    return list(
        db.query(
            "select address, at from signon_failures where game = ? and power = ? and at > ? order by at",
            [game, power, since],
        )
    )
