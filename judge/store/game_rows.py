"""Games and their seats as rows (the game server turns them into its ``Game`` and ``Player`` values)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlite_utils import Database

from judge.store.statuses import GameStatus


def game_names(db: Database) -> list[str]:
    return [row["name"] for row in db.query("select name from games order by name")]


def game_row(db: Database, name: str) -> dict[str, Any] | None:
    rows = list(db.query("select * from games where name = ?", [name]))
    return rows[0] if rows else None


def game_row_by_id(db: Database, game_id: int) -> dict[str, Any]:
    return dict(db.table("games").get(game_id))


def insert_game_row(db: Database, row: dict[str, Any]) -> int:
    pk = db.table("games").insert(row).last_pk
    assert isinstance(pk, int)  # the rowid of the new game (games.id is an integer primary key)
    return pk


def update_game_row(db: Database, game_id: int, values: dict[str, Any]) -> None:
    db.table("games").update(game_id, values)


def delete_game_rows(db: Database, game_id: int) -> None:
    """A game and its seats."""
    db.execute("delete from players where game_id = ?", [game_id])
    db.execute("delete from future_orders where game_id = ?", [game_id])
    db.execute("delete from absences where game_id = ?", [game_id])
    db.execute("delete from master_passwords where game_id = ?", [game_id])
    db.execute("delete from calendar_events where game_id = ?", [game_id])
    db.execute("delete from takeovers where game_id = ?", [game_id])
    db.execute("delete from player_records where game_id = ?", [game_id])
    db.execute("delete from games where id = ?", [game_id])


def player_rows(db: Database, game_id: int) -> list[dict[str, Any]]:
    return list(db.query("select * from players where game_id = ? order by id", [game_id]))


def insert_player_row(db: Database, row: dict[str, Any]) -> None:
    db.table("players").insert(row)


def update_player_row(db: Database, player_id: int, values: dict[str, Any]) -> None:
    db.table("players").update(player_id, values)


def delete_player_row(db: Database, player_id: int) -> None:
    db.execute("delete from absences where player_id = ?", [player_id])
    db.execute("delete from players where id = ?", [player_id])


def due_games(db: Database, now: str, limit: int | None = None) -> list[tuple[str, str]]:
    """(name, phase) of the active games whose deadline is at or before ``now``, earliest deadline first."""
    sql = (
        "select name, phase from games where status = ? and deadline is not null and deadline <= ? "
        "order by deadline, id"
    )
    params: list[Any] = [GameStatus.ACTIVE, now]
    if limit is not None:
        sql += " limit ?"
        params.append(limit)
    return [(r["name"], r["phase"]) for r in db.query(sql, params)]


def unreminded_games(db: Database, after: str, until: str) -> list[dict[str, Any]]:
    """name, phase, deadline and settings of the active games not yet reminded whose deadline lies in (after, until],
    earliest first."""
    return list(
        db.query(
            "select name, phase, deadline, settings from games where status = ? "
            "and deadline > ? and deadline <= ? and coalesce(reminded, 0) = 0 order by deadline",
            [GameStatus.ACTIVE, after, until],
        )
    )


def games_to_remind(db: Database, now: str) -> list[dict[str, Any]]:
    """name, phase and deadline of the active games whose reminders are to be looked at: the next moment worked out
    has come, was never worked out, or was worked out for another deadline (it moved); earliest deadline first."""
    return list(
        db.query(
            "select name, phase, deadline from games where status = ? and deadline > ? "
            "and (remind_at is null or remind_at <= ? or remind_for is not deadline) order by deadline",
            [GameStatus.ACTIVE, now, now],
        )
    )


def set_remind_at(db: Database, game_id: int, at: str | None, deadline: str | None) -> None:
    """The next moment a reminder of the game may fall due (null: look again at the next round), for ``deadline``."""
    db.execute("update games set remind_at = ?, remind_for = ? where id = ?", [at, deadline, game_id])


def forget_remind_at(db: Database, game_id: int) -> None:
    """Look at the game's reminders again at the next round (a player changed his lead times)."""
    db.execute("update games set remind_at = null where id = ?", [game_id])


def names_by_id(db: Database, ids: Iterable[int | None]) -> dict[int, str]:
    """The names of the games ``ids`` (None among them: no game), by id; not every game's (a batch of mail names
    a few, and the games are never pruned)."""
    wanted = sorted({i for i in ids if i is not None})
    if not wanted:
        return {}
    marks = ",".join("?" * len(wanted))
    return {r["id"]: r["name"] for r in db.query(f"select id, name from games where id in ({marks})", wanted)}


def earliest_deadline(db: Database) -> str | None:
    """The earliest deadline of the active games (None: no active game has one)."""
    rows = list(
        db.query("select min(deadline) as d from games where status = ? and deadline is not null", [GameStatus.ACTIVE])
    )
    return rows[0]["d"] if rows and rows[0]["d"] else None


def archive_marks(db: Database) -> dict[str, str]:
    """Each game's mark of what its archive page shows (by name): its status, result, the phases played and when
    the last was, so that the archive (judge.web) writes again only the pages whose mark changed. One query."""
    rows = db.query(
        "select g.name, g.status, coalesce(g.result, '') as result, count(p.phase) as played, "
        "coalesce(max(p.adjudicated_at), '') as last from games g left join phases p on p.game_id = g.id "
        "group by g.id order by g.name"
    )
    return {r["name"]: f"{r['status']}|{r['played']}|{r['last']}|{r['result']}" for r in rows}
