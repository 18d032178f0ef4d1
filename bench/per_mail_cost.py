"""What one mail costs the judge, with small and with big tables and folders (issue 27: answers must stay steady).

    python bench/per_mail_cost.py store [--mails 400] [--rows 1000000]
    python bench/per_mail_cost.py imap [--server pymap|dovecot] [--mails 300] [--processed 100000]
    python bench/per_mail_cost.py plans

``store``: the database side of a mail on the daemon's path, on a database with 20 classic games started: each mail
handled as ``judge serve`` handles it (``handle_one``, with the inbox position, after the quarantine check by the
message's digest), and every 50 mails the round's queries (due games, next deadline, next send time) and the
outbox's bookkeeping (claim the due mail, mark each sent). Timed on the database as it is, then on a copy whose
outbox holds ``--rows`` sent mails, and whose handled-mail records, event log and mail log hold as many rows, with a
tenth as many sign-on failures and quarantined mails (filled with ``executemany``, to the players' addresses, dated
before the run). The same mails (texts, senders, orders) in both, after every seat signed on once (scrypt paid).

``imap``: the IMAP side of a mail against pymap (``judge.transport.embedded``) or Dovecot (tests/mailservers.py):
``--mails`` messages appended to INBOX, then read by the judge's own ``handle_new_mail`` in rounds of 50 (a real
``Inbox``, whose SEARCH, FETCH and MOVE are timed apart, the rest being the handling), with an empty Processed folder
and with one holding ``--processed`` messages (written straight into its maildir, with the server's UID list for
pymap; Dovecot reads a maildir's new files itself).

``plans``: EXPLAIN QUERY PLAN of every statement the daemon's path runs (captured with ``set_trace_callback`` over
mail, deadlines, sending and upkeep); a SCAN of a table that grows with mail or time is listed.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
GROWING = {"outbox", "messages", "events", "mail_log", "signon_failures", "quarantine", "pictures", "phases", "orders"}


def mail_bytes(sender: str, body: str, n: int, subject: str = "orders") -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "judge@judge.test"
    msg["Subject"] = subject
    msg["Message-ID"] = f"<bench{n}.{random.randrange(10**12)}@players.test>"
    msg["Date"] = START.strftime("%a, %d %b %Y %H:%M:%S +0000")
    msg.set_content(body)
    return bytes(msg)


def setup_games(path: Path, games: int = 20) -> list[tuple[str, str, str]]:
    """A database with ``games`` classic games started; the players as (game, power, address)."""
    from judge.game import service
    from judge.game.settings import GameSettings
    from judge.store import open_db, write

    db = open_db(path)
    rng = random.Random(1)
    settings = GameSettings(movement_deadline=3 * 86400, retreat_deadline=86400, adjustment_deadline=86400)
    seats = []
    for i in range(games):
        name = f"g{i}"
        with write(db):
            service.create_game(db, name, "classic", settings, START)
            for power in POWERS:
                address = f"{power.lower()}.{i}@players.test"
                service.join_game(db, name, address, f"pw-{power}", START, power=power)
                seats.append((name, power, address))
            service.start_game(db, name, START, rng)
    db.conn.close()
    return seats


def fill(path: Path, rows: int, addresses: list[str]) -> float:
    """``rows`` old rows in the outbox, the handled-mail records, the event log and the mail log; a tenth as many
    sign-on failures and quarantined mails. Returns the seconds it took."""
    from judge.store import open_db, write

    started = time.perf_counter()
    db = open_db(path)
    conn = db.conn
    old = (START - timedelta(days=20)).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = "Your orders for S1901M were received:\n" + "A par - bur\n" * 8
    n_addr = len(addresses)

    def outbox() -> Any:
        for i in range(rows):
            to = addresses[i % n_addr]
            yield (to, "Re: orders", body, "sent", old, old, f"m{i}@players.test", 1 + i % 20, 1, old, f"<o{i}@judge>")

    with write(db):
        _fill_rows(conn, rows, outbox(), addresses, old)
    conn.execute("analyze")
    conn.close()
    return time.perf_counter() - started


def _fill_rows(conn: sqlite3.Connection, rows: int, outbox: Any, addresses: list[str], old: str) -> None:
    n_addr = len(addresses)
    conn.executemany(
        "insert into outbox (to_addr, subject, body, status, created_at, sent_at, in_reply_to, game_id, attempts, "
        "next_attempt, message_id) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        outbox,
    )
    conn.executemany(
        "insert into messages (message_id, digest, sender, received_at, outcome) values (?, ?, ?, ?, ?)",
        ((f"m{i}@players.test", f"{i:064x}", addresses[i % n_addr], old, "handled") for i in range(rows)),
    )
    conn.executemany(
        "insert into events (game_id, at, sender, kind, detail) values (?, ?, ?, ?, ?)",
        ((1 + i % 20, old, addresses[i % n_addr], "orders", '{"n": 1}') for i in range(rows)),
    )
    conn.executemany(
        "insert into mail_log (outbox_id, to_addr, subject, message_id, status, created_at, sent_at, attempts) "
        "values (?, ?, ?, ?, ?, ?, ?, ?)",
        ((-i, addresses[i % n_addr], "Re: orders", f"<l{i}@judge>", "sent", old, old, 1) for i in range(rows)),
    )
    conn.executemany(
        "insert into signon_failures (address, at, game, power) values (?, ?, ?, ?)",
        ((addresses[i % n_addr], old, f"g{i % 20}", POWERS[i % 7]) for i in range(rows // 10)),
    )
    conn.executemany(
        "insert into quarantine (account, uid, digest, reason, at) values (?, ?, ?, ?, ?)",
        (("bench", i, f"q{i:063x}", "bench", old) for i in range(rows // 10)),
    )


def store_run(path: Path, seats: list[tuple[str, str, str]], mails: int) -> dict[str, Any]:
    """Per-mail seconds of the store side of ``mails`` mails on the database at ``path``."""
    import hashlib

    from judge.cli.demo import choose_orders
    from judge.game import passwords, records
    from judge.store import game_rows, inbox, mail_queue, open_db, write
    from judge.transport.daemon import next_deadline
    from judge.transport.imap import handle_one
    from judge.transport.smtp import claim_due, next_send_time

    db = open_db(path)
    rng = random.Random(2)
    random.seed(3)
    now = START + timedelta(hours=1)
    texts = []
    for n in range(mails):
        game, power, address = seats[n % len(seats)]
        if n % 10 == 9:
            texts.append(mail_bytes(f"stranger{n}@elsewhere.test", "HELP", n, "help"))
            continue
        g = records.load_game(db, game)
        assert g is not None and g.position is not None
        lines = choose_orders(g.variant, g.position, power, rng)
        texts.append(mail_bytes(address, "\n".join([f"SIGNON {power} {game} pw-{power}", *lines]), n))
    passwords.forget_verified()  # each run pays scrypt once per seat, before the timed mails, as a warm daemon has
    for i, (game, power, address) in enumerate(seats):
        signon = mail_bytes(address, f"SIGNON {power} {game} pw-{power}", 10**6 + i)
        handle_one(db, signon, now, "judge@judge.test", 10000)
    handle_s, round_s, send_s = [], [], []
    for n, raw in enumerate(texts):
        t0 = time.perf_counter()
        inbox.quarantined(db, hashlib.sha256(raw).hexdigest())
        handle_one(db, raw, now, "judge@judge.test", 10000, position=("bench@host", 1, n + 1))
        handle_s.append(time.perf_counter() - t0)
        if n % 50 == 49:
            t0 = time.perf_counter()
            inbox.mailbox_position(db, "bench@host")
            game_rows.due_games(db, now.strftime("%Y-%m-%dT%H:%M:%SZ"), 25)
            next_deadline(db)
            next_send_time(db)
            round_s.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            rows = claim_due(db, now, 200)
            names_by_id: Any = game_rows.names_by_id  # one argument before issue 27's change
            names_by_id(db, [r["game_id"] for r in rows]) if _takes_ids() else names_by_id(db)
            for row in rows:
                with write(db):
                    mail_queue.mark_sent(db, row["id"], now.strftime("%Y-%m-%dT%H:%M:%SZ"), row["message_id"])
            send_s.append((time.perf_counter() - t0) / 50)
    db.conn.close()
    return {
        "handle_ms_median": round(statistics.median(handle_s) * 1000, 2),
        "handle_ms_mean": round(statistics.fmean(handle_s) * 1000, 2),
        "round_queries_ms_median": round(statistics.median(round_s) * 1000, 3),
        "outbox_bookkeeping_ms_per_mail_median": round(statistics.median(send_s) * 1000, 3),
    }


def _takes_ids() -> bool:
    import inspect

    from judge.store import game_rows

    return len(inspect.signature(game_rows.names_by_id).parameters) > 1


def cmd_store(args: argparse.Namespace) -> int:
    import judge.wiring  # noqa: F401
    from judge import __file__ as judge_file

    folder = Path(tempfile.mkdtemp(prefix="judge-cost-"))
    try:
        base = folder / "base.db"
        seats = setup_games(base)
        small, big = folder / "small.db", folder / "big.db"
        shutil.copy(base, small)
        shutil.copy(base, big)
        filled = fill(big, args.rows, [a for _, _, a in seats])
        report = {
            "judge": str(Path(judge_file).parent),
            "mails": args.mails,
            "rows": args.rows,
            "fill_seconds": round(filled, 1),
            "empty": store_run(small, seats, args.mails),
            "big": store_run(big, seats, args.mails),
            "big_file_mb": round(big.stat().st_size / 2**20),
        }
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


# --- IMAP -----------------------------------------------------------------------------------------------------------


def processed_dir(server: Any, kind: str) -> Path:
    base = Path(server.root)
    found = [p for p in base.rglob(".Processed") if p.is_dir()]
    if not found:
        raise RuntimeError(f"no .Processed maildir under {base}")
    return found[0]


def fill_processed(server: Any, kind: str, count: int) -> float:
    """``count`` messages written straight into the Processed maildir (and pymap's UID list)."""
    started = time.perf_counter()
    folder = processed_dir(server, kind)
    cur = folder / "cur"
    raw = mail_bytes("old@players.test", "SIGNON France g1 pw\nA par - bur\n", 0)
    stamp = int(time.time()) - 86400
    names = []
    for i in range(count):
        name = f"{stamp}.M{i}P1.bench:2,S"
        (cur / name).write_bytes(raw)
        names.append(name)
    if kind == "pymap":
        uidlist = folder / "dovecot-uidlist"
        header = uidlist.read_text().splitlines()[0].split() if uidlist.exists() else []
        validity = next((f[1:] for f in header if f.startswith("V")), str(int(time.time())))
        guid = next((f[1:] for f in header if f.startswith("G")), f"{random.getrandbits(128):032x}")
        lines = [f"3 V{validity} N{count + 1} G{guid}\r\n"] + [f"{i + 1} :{n}\r\n" for i, n in enumerate(names)]
        uidlist.write_text("".join(lines))
    return time.perf_counter() - started


def imap_run(kind: str, mails: int, processed: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    from mailservers import PASSWORD, start_imap

    from judge.config import ImapConfig
    from judge.store import open_db
    from judge.transport.imap import Inbox, handle_new_mail

    timings: dict[str, list[float]] = {"search": [], "fetch": [], "move": []}

    class TimedInbox(Inbox):
        def _timed(self, what: str, call: Callable[[], Any]) -> Any:
            t0 = time.perf_counter()
            try:
                return call()
            finally:
                timings[what].append(time.perf_counter() - t0)

        def new_uids(self, last_uid: int) -> list[int]:
            return self._timed("search", lambda: super(TimedInbox, self).new_uids(last_uid))  # type: ignore[no-any-return]

        def fetch_many(self, uids: list[int]) -> dict[int, tuple[bytes, int | None]]:
            return self._timed("fetch", lambda: super(TimedInbox, self).fetch_many(uids))  # type: ignore[no-any-return]

        def move_many(self, uids: list[int], folder: str) -> None:
            self._timed("move", lambda: super(TimedInbox, self).move_many(uids, folder))

    folder = Path(tempfile.mkdtemp(prefix="judge-imapcost-"))
    server = start_imap(kind, folder / "imap")
    try:
        cfg = ImapConfig(host="127.0.0.1", port=server.port, security="none", username="judge", password=PASSWORD)
        db = open_db(folder / "judge.db")
        inbox = TimedInbox(cfg)
        inbox.open()  # creates the folders
        fill_seconds = fill_processed(server, kind, processed) if processed else 0.0
        poster = server.client("judge")
        # the first move into the filled folder makes the server read it: once, not per mail
        poster.append("INBOX", mail_bytes("warm@players.test", "HELP", 0, "help"))
        assert inbox.client is not None
        inbox.client.noop()  # the wake-up IDLE would give: the server tells the connection of the new mail
        t0 = time.perf_counter()
        handle_new_mail(db, inbox, lambda: START, "judge@judge.test", 10000)
        first_round = time.perf_counter() - t0
        for k in timings.values():
            k.clear()
        rounds, total = 0, 0.0
        per_round = 50
        for r in range(mails // per_round):
            for n in range(per_round):
                i = r * per_round + n
                poster.append("INBOX", mail_bytes(f"p{i % 140}@players.test", "HELP", i + 1, "help"))
            handled = 0
            for _ in range(10):
                inbox.client.noop()
                t0 = time.perf_counter()
                handled += handle_new_mail(db, inbox, lambda: START, "judge@judge.test", 10000)
                total += time.perf_counter() - t0
                if handled == per_round:
                    break
            assert handled == per_round, handled
            rounds += 1
        held = poster.folder_status("Processed", [b"MESSAGES"])[b"MESSAGES"]  # the server saw the filled folder
        poster.logout()
        inbox.drop()
        n = rounds * per_round
        io = {k: sum(v) / n * 1000 for k, v in timings.items()}
        return {
            "server": kind,
            "processed_messages": processed,
            "processed_at_the_end": held,
            "fill_seconds": round(fill_seconds, 1),
            "first_round_s": round(first_round, 2),
            "ms_per_mail": round(total / n * 1000, 2),
            "search_ms_per_mail": round(io["search"], 3),
            "fetch_ms_per_mail": round(io["fetch"], 3),
            "move_ms_per_mail": round(io["move"], 3),
            "handle_ms_per_mail": round(total / n * 1000 - sum(io.values()), 2),
        }
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def cmd_imap(args: argparse.Namespace) -> int:
    import judge.wiring  # noqa: F401

    for processed in (0, args.processed):
        print(json.dumps(imap_run(args.server, args.mails, processed)), flush=True)
    return 0


# --- query plans ----------------------------------------------------------------------------------------------------


def cmd_plans(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(ROOT / "tests"))
    import test_query_plans

    statements = test_query_plans.daemon_statements(Path(tempfile.mkdtemp(prefix="judge-plans-")))
    found = test_query_plans.scans(statements)
    for sql, plan in found.items():
        print(f"{sql}\n    {plan}")
    print(f"{len(statements)} distinct statements, {len(found)} scanning a growing table")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    store = sub.add_parser("store")
    store.add_argument("--mails", type=int, default=400)
    store.add_argument("--rows", type=int, default=1_000_000)
    imap = sub.add_parser("imap")
    imap.add_argument("--server", choices=["pymap", "dovecot"], default="pymap")
    imap.add_argument("--mails", type=int, default=300)
    imap.add_argument("--processed", type=int, default=100_000)
    sub.add_parser("plans")
    args = parser.parse_args()
    return {"store": cmd_store, "imap": cmd_imap, "plans": cmd_plans}[args.what](args)


if __name__ == "__main__":
    sys.exit(main())
