"""A player's record across games (``player_records``, m021): per address and game, counters kept at each
adjudication, resignation, abandonment and ejection, read by address."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database

COUNTERS = ("owed", "missed", "late", "excused", "resigned", "abandoned", "ejected")


def count(db: Database, email: str, game_id: int, at: str, **added: int) -> None:
    """Add to an address's counters in a game (the row made on first use)."""
    unknown = set(added) - set(COUNTERS)
    if unknown:
        raise ValueError(f"no such counter: {sorted(unknown)}")
    db.execute(
        "insert into player_records (email, game_id, updated_at) values (?, ?, ?) "
        "on conflict (email, game_id) do nothing",
        [email.lower(), game_id, at],
    )
    sets = ", ".join(f"{name} = {name} + ?" for name in added)
    db.execute(
        f"update player_records set {sets}, updated_at = ? where email = ? and game_id = ?",
        [*added.values(), at, email.lower(), game_id],
    )


def records_of(db: Database, email: str) -> list[dict[str, Any]]:
    """An address's rows, newest game first, each with its game's name (empty when the game was deleted)."""
    return list(
        db.query(
            "select r.*, coalesce(g.name, '') as game from player_records r left join games g on g.id = r.game_id "
            "where r.email = ? order by r.game_id desc",
            [email.lower()],
        )
    )


def excused_in(db: Database, email: str, game_id: int) -> int:
    """The misses excused to an address in a game so far."""
    rows = list(
        db.query("select excused from player_records where email = ? and game_id = ?", [email.lower(), game_id])
    )
    return int(rows[0]["excused"]) if rows else 0
