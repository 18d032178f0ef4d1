"""The board pictures kept per game, phase and language (results mail refers to them instead of carrying a copy)."""

from __future__ import annotations

from sqlite_utils import Database


def keep_picture(db: Database, game_id: int, phase: str, language: str, png: bytes, at: str) -> int:
    """Keep (or replace) the picture of ``phase`` in ``language``; returns its row id."""
    db.execute(
        "insert into pictures (game_id, phase, language, png, created_at) values (?, ?, ?, ?, ?) "
        "on conflict (game_id, phase, language) do update set png = excluded.png, "
        "created_at = excluded.created_at",
        [game_id, phase, language, png, at],
    )
    row = list(
        db.query("select id from pictures where game_id = ? and phase = ? and language = ?", [game_id, phase, language])
    )
    return int(row[0]["id"])
