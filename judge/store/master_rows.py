"""The game master's password of a game and the requests to take over a power that wait for the game master, as the
store keeps them (judge.game.master_mail and judge.game.civil_disorder read and write them)."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database


def master_password_hash(db: Database, game_id: int) -> str:
    """The stored hash of the game's master password ("" when none is set)."""
    rows = list(db.query("select password_hash from master_passwords where game_id = ?", [game_id]))
    return str(rows[0]["password_hash"] or "") if rows else ""


def set_master_password_hash(db: Database, game_id: int, password_hash: str, at: str) -> None:
    db.table("master_passwords").upsert(
        {"game_id": game_id, "password_hash": password_hash, "set_at": at}, pk="game_id"
    )


def open_takeover(db: Database, game_id: int, power: str) -> dict[str, Any] | None:
    """The request to take over ``power`` that waits for the game master (at most one per power), or None."""
    rows = list(
        db.query(
            "select id, power, email, password_hash, asked_at from takeovers "
            "where game_id = ? and power = ? and decided_at is null order by id limit 1",
            [game_id, power],
        )
    )
    return rows[0] if rows else None


def open_takeovers(db: Database, game_id: int) -> list[dict[str, Any]]:
    """Every request of the game that waits for the game master, oldest first."""
    return list(
        db.query(
            "select id, power, email, asked_at from takeovers where game_id = ? and decided_at is null order by id",
            [game_id],
        )
    )


def ask_takeover(db: Database, game_id: int, power: str, email: str, password_hash: str, at: str) -> None:
    db.table("takeovers").insert(
        {
            "game_id": game_id,
            "power": power,
            "email": email,
            "password_hash": password_hash,
            "asked_at": at,
            "decided_at": None,
            "decision": None,
        }
    )


def decide_takeover(db: Database, request_id: int, decision: str, at: str) -> None:
    """Close a request (its password hash is not kept once decided)."""
    db.execute(
        "update takeovers set decided_at = ?, decision = ?, password_hash = '' where id = ?",
        [at, decision, request_id],
    )


def lapse_takeovers(db: Database, game_id: int, power: str, at: str) -> None:
    """Close every open request for ``power`` (the power has a player again)."""
    db.execute(
        "update takeovers set decided_at = ?, decision = 'lapsed', password_hash = '' "
        "where game_id = ? and power = ? and decided_at is null",
        [at, game_id, power],
    )


def create_by_mail_policy(db: Database) -> str:
    """Who may CREATE a game by mail, as ``judge serve`` last recorded ``[judge] create_by_mail`` ("anyone" when the
    host never said)."""
    rows = list(db.query("select value from meta where key = 'create_by_mail'"))
    return str(rows[0]["value"]) if rows and rows[0]["value"] else "anyone"


def set_create_by_mail_policy(db: Database, policy: str) -> None:
    db.table("meta").upsert({"key": "create_by_mail", "value": policy}, pk="key")
