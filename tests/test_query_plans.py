"""No query on the daemon's path reads a whole table that grows with mail or time (issue 27: the cost of a mail must
not grow with the outbox, the handled-mail records, the event log, the mail log, sign-on failures or quarantine).

Every statement the daemon's path runs — mail handled as ``judge serve`` handles it (orders, press, READY, ORDERS,
SUMMARY, HISTORY, a wrong password, the game master's commands, strangers' HELP and LIST, mail that cannot be
read), the inbox's checks, deadlines and reminders, the outbox sent to an SMTP sink, the hourly upkeep — is captured
with ``set_trace_callback`` and planned with EXPLAIN QUERY PLAN: a SCAN of a growing table fails, unless it is listed
in ``ALLOWED`` with the reason its cost does not grow per mail.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from gamekit import POWERS, Table, raw_mail
from mailservers import SmtpSink

from judge.cli.demo import choose_orders
from judge.config import SmtpConfig
from judge.game import records
from judge.game.master_mail import set_master_password
from judge.store import inbox, write
from judge.store.upkeep import prune
from judge.transport.daemon import deadline_chunk, next_deadline
from judge.transport.failures import report_failures
from judge.transport.imap import handle_one
from judge.transport.smtp import drain_outbox, next_send_time, release_stale_claims

# the tables a judge's use makes grow without end (or up to a retention of weeks): mail, records, history
GROWING = {
    "outbox",
    "messages",
    "events",
    "mail_log",
    "signon_failures",
    "quarantine",
    "phases",
    "orders",
    "future_orders",
    "press",
    "postal_press",
    "diaries",
    "draws",
    "absences",
    "takeovers",
    "players",
    "games",
}
# a scan that stays: (table, a piece of the statement) -> why its cost does not grow per mail
ALLOWED = {
    ("games", "select name from games order by name"): "LIST names every game: the answer itself is that long",
    ("pictures", "delete from pictures where id not in"): "hourly; the pictures are kept only for queued mail",
}


def daemon_statements(folder: Path) -> dict[str, str]:
    """Every distinct statement (literals masked -> one as run) of a game played by mail on the daemon's path."""
    t = Table(folder / "judge.db")
    t.seven("g1", "--master", "gm@masters.test", reuse=True)
    with write(t.db):
        set_master_password(t.db, "g1", "gm-secret", t.now)
    statements: list[str] = []
    sink = SmtpSink().start()
    smtp = SmtpConfig(host="127.0.0.1", port=sink.port, security="none")
    rng = random.Random(1)
    uid = 0

    def mail(sender: str, body: str) -> None:
        nonlocal uid
        uid += 1
        raw = raw_mail(sender, body)
        inbox.quarantined(t.db, "0" * 64)
        handle_one(t.db, raw, t.now, "judge@judge.test", 5, position=("judge@host", 1, uid))
        inbox.mailbox_position(t.db, "judge@host")

    t.db.conn.set_trace_callback(statements.append)
    try:
        for phase in range(3):
            game = records.load_game(t.db, "g1")
            assert game is not None and game.position is not None
            for power in POWERS:
                signon = f"SIGNON {power} g1 pw-{power}"
                sender = f"{power.lower()}@p.test"
                mail(sender, "\n".join([signon, *choose_orders(game.variant, game.position, power, rng)]))
                to = "Italy" if power == "France" else "France"
                mail(sender, f"{signon}\nPRESS TO {to}\nhello\nENDPRESS\nBROADCAST\nall\nENDPRESS\nREADY")
                mail(sender, f"{signon}\nORDERS\nSUMMARY\nHISTORY\nSET LANGUAGE de")
            mail("france@p.test", f"SIGNON France g1 wrong-{phase}\nA par H")
            mail("gm@masters.test", "MASTER g1 gm-secret\nWHOGAME g1\nSET DEADLINE +1h")
            for n in range(7):  # a stranger over the reply cap: the pause is looked up in the event log
                mail(f"stranger{phase}@elsewhere.test", "HELP\nLIST\nWHOGAME g1" if n else "SUMMARY g1")
            t.db.conn.set_trace_callback(None)
            unreadable = b"\xff\xfe not a mail" * 10
            t.db.conn.set_trace_callback(statements.append)
            handle_one(t.db, unreadable, t.now, "judge@judge.test", 5)
            next_deadline(t.db)
            next_send_time(t.db)
            drain_outbox(t.db, smtp, "judge@judge.test", lambda: t.now, limit=200)
            t.later(days=3)
            deadline_chunk(t.db, t.now)
            drain_outbox(t.db, smtp, "judge@judge.test", lambda: t.now, limit=200)
            report_failures(t.db, t.now)
            prune(t.db, t.now)
            release_stale_claims(t.db, t.now)
    finally:
        t.db.conn.set_trace_callback(None)
        sink.stop()
    out: dict[str, str] = {}
    for sql in statements:
        if re.match(r"\s*(select|update|delete|insert|with|replace)\b", sql, re.IGNORECASE):
            out.setdefault(_masked(sql), sql)
    return out


def _masked(sql: str) -> str:
    sql = re.sub(r"'(?:[^']|'')*'", "?", sql)
    sql = re.sub(r"\b\d+(\.\d+)?\b", "?", sql)
    return re.sub(r"\?(\s*,\s*\?)+", "?", " ".join(sql.split()))


def scans(statements: dict[str, str], db_path: Path | None = None) -> dict[str, str]:
    """The statements (masked) that scan a growing table, with the plan's line; ALLOWED ones left out."""
    import sqlite3

    from judge.store import open_db

    db = open_db(db_path or ":memory:")
    conn: sqlite3.Connection = db.conn
    out = {}
    for masked, sql in statements.items():
        for row in conn.execute(f"explain query plan {sql}"):
            detail = str(row[3])
            found = re.match(r"SCAN (\w+)", detail)
            if not found or found.group(1) not in GROWING:
                continue
            if any(table == found.group(1) and piece in masked for table, piece in ALLOWED):
                continue
            out[masked] = detail
    return out


def test_no_scan_of_a_growing_table(tmp_path: Path) -> None:
    statements = daemon_statements(tmp_path)
    taken = " ".join(statements)  # the path was taken: handling, deadlines, sending, upkeep
    for piece in ("from quarantine where digest", "from events where kind", "from outbox where status", "delete from"):
        assert piece in taken, piece
    found = scans(statements, tmp_path / "judge.db")
    assert not found, "statements that read a whole growing table:\n" + "\n".join(
        f"{plan}: {sql}" for sql, plan in found.items()
    )
