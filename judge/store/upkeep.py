"""Keeping the database bounded: pruning old mail bodies and records, and the size of every table.

What is pruned, and when (``[judge]`` settings): the body and HTML of mail sent (or failed) more than
``mail_retention_days`` ago (default 30), while its record moves to ``mail_log`` (recipient, subject, Message-ID,
status, times); map pictures drawn more than ``picture_retention_days`` ago (default 7) once no mail waiting to be
sent carries them, and the picture a sent mail carried in its own row (a MAP of the current phase) after as long: a
sent mail is never sent again, and a played phase's picture is drawn again from the stored boards and orders when
it is asked for (MAP, ``judge map GAME PHASE``: ``judge.reports.phase_maps``); records of handled mail, used OpenPGP
signatures, sign-on failures and quarantined mail older than ``handled_retention_days`` (default 90). Games,
phases, orders, the event log and ``mail_log`` are never pruned.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlite_utils import Database

from judge.store.db import write
from judge.store.statuses import OutboxStatus
from judge.timeutil import iso_utc, parse_iso_utc


@dataclass(frozen=True)
class Pruned:
    mail_bodies: int
    pictures: int
    handled: int
    signon_failures: int
    quarantine: int
    signatures: int = 0


def prune(
    db: Database, now: datetime, *, mail_days: float = 30, handled_days: float = 90, picture_days: float = 7
) -> Pruned:
    mail_cutoff = iso_utc(now - timedelta(days=mail_days))
    picture_cutoff = iso_utc(now - timedelta(days=picture_days))
    handled_cutoff = iso_utc(now - timedelta(days=handled_days))
    with write(db):
        # the record moves to mail_log and the row with its body leaves the outbox: deleting the oldest rows frees
        # whole pages for reuse, where emptying the bodies in place would leave every page mostly empty. The newest
        # row always stays, so that outbox ids are never given out twice.
        old = (
            "from outbox where ((status = ? and sent_at < ?) or (status = ? and created_at < ?)) "
            "and id < (select max(id) from outbox)"
        )
        old_params = [OutboxStatus.SENT, mail_cutoff, OutboxStatus.FAILED, mail_cutoff]
        db.execute(
            "insert into mail_log (outbox_id, to_addr, subject, message_id, status, created_at, sent_at, "
            "attempts, last_error, game_id, in_reply_to) select id, to_addr, subject, message_id, status, "
            f"created_at, sent_at, attempts, last_error, game_id, in_reply_to {old}",
            old_params,
        )
        bodies = db.execute(f"delete {old}", old_params).rowcount
        # a map is kept while a mail that carries it waits to be sent, and for picture_days after it was drawn; after
        # that MAP and `judge map GAME PHASE` draw it again from the stored boards and orders
        pictures = db.execute(
            "delete from pictures where created_at < ? and id not in (select picture_id from outbox "
            "where picture_id is not null and status in (?, ?))",
            [picture_cutoff, OutboxStatus.QUEUED, OutboxStatus.SENDING],
        ).rowcount
        db.execute(
            "update outbox set picture_id = null where picture_id is not null "
            "and picture_id not in (select id from pictures)"
        )
        # a picture in the mail's own row (MAP of the current phase) is only ever needed to send that mail
        db.execute(
            "update outbox set image = null where image is not null and status in (?, ?) and created_at < ?",
            [OutboxStatus.SENT, OutboxStatus.FAILED, picture_cutoff],
        )
        handled = db.execute("delete from messages where received_at < ?", [handled_cutoff]).rowcount
        failures = db.execute("delete from signon_failures where at < ?", [handled_cutoff]).rowcount
        quarantine = db.execute("delete from quarantine where at < ?", [handled_cutoff]).rowcount
        # a used signature is kept as long as handled mail is: longer than max_mail_age_days (the configuration
        # checks it), past which a signature is refused for its age before its digest is looked at
        signatures = db.execute("delete from used_signatures where at < ?", [handled_cutoff]).rowcount
    return Pruned(bodies, pictures, handled, failures, quarantine, signatures)


def table_sizes(db: Database) -> list[tuple[str, int, int]]:
    """(table, rows, bytes on disk including its indexes), largest first."""
    pages: dict[str, int] = {}
    owner = {
        r["name"]: r["tbl_name"]
        for r in db.query("select name, tbl_name from sqlite_master where type in ('table', 'index')")
    }
    try:
        for r in db.query("select name, sum(pgsize) as size from dbstat group by name"):
            table = owner.get(r["name"], r["name"])
            pages[table] = pages.get(table, 0) + int(r["size"])
    except sqlite3.OperationalError:  # an SQLite built without the dbstat table: rows only
        pass
    out = []
    for table in db.table_names():
        rows = db.execute(f'select count(*) from "{table}"').fetchone()[0]
        out.append((table, int(rows), pages.get(table, 0)))
    return sorted(out, key=lambda t: (-t[2], t[0]))


# --- what the store will hold at the present traffic ----------------------------------------------------------------

FOR_EVER = None  # a table whose rows are never pruned

# table -> the column saying when a row came, and which retention setting bounds it (None: kept for ever). The
# outbox's rows are counted with those already moved to mail_log (every mail sent is one of each in its time).
_GROWING: dict[str, tuple[str, str | None]] = {
    "outbox": ("created_at", "mail"),
    "pictures": ("created_at", "picture"),
    "messages": ("received_at", "handled"),
    "signon_failures": ("at", "handled"),
    "quarantine": ("at", "handled"),
    "phases": ("adjudicated_at", FOR_EVER),
    "orders": ("updated_at", FOR_EVER),
    "events": ("at", FOR_EVER),
    "mail_log": ("created_at", FOR_EVER),
    "postal_press": ("written_at", FOR_EVER),
    "diaries": ("written_at", FOR_EVER),
}
# the columns of a mail_log row, measured on the outbox while the log is still empty (a young judge)
_LOG_COLUMNS = ("to_addr", "subject", "message_id", "status", "created_at", "sent_at", "last_error", "in_reply_to")
_PAYLOAD_SLACK = 1.25  # bytes on disk per byte of a row's values where dbstat cannot tell: pages are not full


@dataclass(frozen=True)
class Rate:
    """One table's share of the traffic: rows a day, bytes a row on disk (its indexes included) and for how many
    days a row stays (None: for ever)."""

    table: str
    rows_per_day: float
    bytes_per_row: float
    kept_days: float | None

    @property
    def bytes_per_day(self) -> float:
        return self.rows_per_day * self.bytes_per_row

    @property
    def held(self) -> float:
        """Bytes the table holds once its retention is full (0 for a table kept for ever: it grows instead)."""
        return 0.0 if self.kept_days is None else self.bytes_per_day * self.kept_days


@dataclass(frozen=True)
class Expected:
    """The size the store is heading for at the traffic of the last ``days`` days: per day, per game-phase, and
    held at steady state by the retention settings (mail bodies, pictures, handled-mail records) beside what is
    kept for ever (phases, orders, events, the mail log, press)."""

    days: float  # the span measured (the store's age when younger than the window asked for)
    phases_per_day: float
    mails_per_day: float
    rates: list[Rate]
    current_bytes: int  # every table now
    current_bounded_bytes: int  # the tables the retention bounds, now

    @property
    def growth_per_day(self) -> float:
        """Bytes a day kept for ever."""
        return sum(r.bytes_per_day for r in self.rates if r.kept_days is None)

    @property
    def passing_per_day(self) -> float:
        """Bytes a day kept only a while (mail bodies, pictures, handled-mail records)."""
        return sum(r.bytes_per_day for r in self.rates if r.kept_days is not None)

    @property
    def held(self) -> float:
        """Bytes the retention holds at steady state."""
        return sum(r.held for r in self.rates)

    def per_phase(self, *, for_ever: bool) -> float:
        """Bytes a played phase costs: kept for ever, or while kept (its mail bodies, pictures, handled mail)."""
        if not self.phases_per_day:
            return 0.0
        return (self.growth_per_day if for_ever else self.passing_per_day) / self.phases_per_day

    def in_days(self, days: float) -> float:
        """The store's size ``days`` from now at this traffic, its retention windows full by then."""
        return self.current_bytes - self.current_bounded_bytes + self.held + self.growth_per_day * days

    def as_dict(self) -> dict[str, Any]:
        return {
            "days_measured": round(self.days, 3),
            "phases_per_day": round(self.phases_per_day, 3),
            "mails_per_day": round(self.mails_per_day, 3),
            "tables": [
                {
                    "table": r.table,
                    "rows_per_day": round(r.rows_per_day, 3),
                    "bytes_per_row": round(r.bytes_per_row),
                    "bytes_per_day": round(r.bytes_per_day),
                    "kept_days": r.kept_days,
                    "held_bytes": None if r.kept_days is None else round(r.held),
                }
                for r in self.rates
            ],
            "per_phase_bytes": {
                "kept_for_ever": round(self.per_phase(for_ever=True)),
                "while_kept": round(self.per_phase(for_ever=False)),
            },
            "per_day_bytes": {"kept_for_ever": round(self.growth_per_day), "while_kept": round(self.passing_per_day)},
            "steady_state_bytes": {
                "held_by_retention": round(self.held),
                "kept_for_ever_per_year": round(self.growth_per_day * 365),
                "in_a_year": round(self.in_days(365)),
            },
        }


def expected_sizes(
    db: Database,
    now: datetime,
    *,
    days: float = 7,
    mail_days: float = 30,
    handled_days: float = 90,
    picture_days: float = 7,
) -> Expected:
    """What the store is heading for, measured from the last ``days`` days (or its whole life, when shorter): rows a
    day per table from their times, bytes a row from what the table holds now, and the retention settings."""
    kept = {"mail": float(mail_days), "handled": float(handled_days), "picture": float(picture_days)}
    since_dt = now - timedelta(days=days)
    since = iso_utc(since_dt)
    tables = set(db.table_names())
    born = _first_time(db, tables)
    span = days if born is None or born <= since else max((now - parse_iso_utc(born)).total_seconds() / 86400, 1 / 24)
    sizes = {t: (rows, size) for t, rows, size in table_sizes(db)}
    rates = []
    phases_in = _count_since(db, "phases", "adjudicated_at", since) if "phases" in tables else 0
    mails_in = _count_since(db, "outbox", "created_at", since) + (
        _count_since(db, "mail_log", "created_at", since) if "mail_log" in tables else 0
    )
    for table, (column, setting) in _GROWING.items():
        if table not in tables:
            continue
        if table == "pictures":  # pruned as they go: one a language of the game's players a phase
            rows = phases_in * _languages_per_phase(db, since)
        elif table in ("outbox", "mail_log"):
            rows = mails_in
        else:
            rows = _count_since(db, table, column, since)
        rates.append(
            Rate(table, rows / span, _bytes_per_row(db, table, sizes), None if setting is None else kept[setting])
        )
    bounded = sum(sizes.get(t, (0, 0))[1] for t, (_, setting) in _GROWING.items() if setting is not None)
    return Expected(
        days=span,
        phases_per_day=phases_in / span,
        mails_per_day=mails_in / span,
        rates=rates,
        current_bytes=sum(size for _, size in sizes.values()),
        current_bounded_bytes=bounded,
    )


def _count_since(db: Database, table: str, column: str, since: str) -> int:
    return int(db.execute(f'select count(*) from "{table}" where "{column}" >= ?', [since]).fetchone()[0])


def _first_time(db: Database, tables: set[str]) -> str | None:
    """When the store's first game, phase or mail came (None: nothing yet)."""
    firsts = [
        db.execute(f'select min("{column}") from "{table}"').fetchone()[0]
        for table, column in (("games", "created_at"), ("phases", "adjudicated_at"), ("outbox", "created_at"))
        if table in tables
    ]
    known = [f for f in firsts if f]
    return min(known) if known else None


def _languages_per_phase(db: Database, since: str) -> float:
    """How many pictures a phase played since ``since`` took: one for each language among its game's players."""
    default = list(db.query("select value from meta where key = 'default_language'"))
    language = default[0]["value"] if default and default[0]["value"] else "en"
    row = db.execute(
        "select avg(n) from (select (select count(distinct coalesce(u.language, ?)) from players pl "
        "left join users u on u.email = lower(pl.email) where pl.game_id = p.game_id) as n "
        "from phases p where p.adjudicated_at >= ?)",
        [language, since],
    ).fetchone()
    return float(row[0] or 0)


def _bytes_per_row(db: Database, table: str, sizes: dict[str, tuple[int, int]]) -> float:
    """Bytes a row takes on disk with its indexes, from what the table holds now (dbstat: the bytes its rows use,
    and the pages' slack as it is, or ``_PAYLOAD_SLACK`` where a small table's few pages are mostly empty); without
    dbstat, or for an empty table, from its values' lengths (a mail_log row from the outbox's columns it will keep)."""
    rows, size = sizes.get(table, (0, 0))
    used = _used_bytes(db).get(table, 0)
    if rows and used:
        return min(size, used * _PAYLOAD_SLACK) / rows
    source, columns = table, [c.name for c in db.table(table).columns]
    if table == "mail_log" and not rows:
        source, columns = "outbox", list(_LOG_COLUMNS)
    payload = " + ".join(f'coalesce(length("{c}"), 0)' for c in columns) or "0"
    found = db.execute(f'select avg({payload}) from "{source}"').fetchone()[0]
    return float(found or 0) * _PAYLOAD_SLACK


def _used_bytes(db: Database) -> dict[str, int]:
    """Bytes in use (pages less their unused part) per table with its indexes; empty without dbstat."""
    owner = {
        r["name"]: r["tbl_name"]
        for r in db.query("select name, tbl_name from sqlite_master where type in ('table', 'index')")
    }
    used: dict[str, int] = {}
    try:
        for r in db.query("select name, sum(pgsize - unused) as used from dbstat group by name"):
            table = owner.get(r["name"], r["name"])
            used[table] = used.get(table, 0) + int(r["used"])
    except sqlite3.OperationalError:  # an SQLite built without the dbstat table
        pass
    return used
