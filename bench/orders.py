"""Order-mail throughput: mails handled per second in process (``handle_one``, the daemon's path for one message)
and through IMAP against Dovecot (``handle_new_mail``: fetch and move in batches, one transaction per message).

    python bench/orders.py [--games 20] [--mails 1000] [--imap-mails 500]

Every mail signs on with the player's real password (scrypt-hashed at join) and gives a full set of orders; each
player writes several times, as players do, so the verified-sign-on cache of judge.game.passwords is exercised (the
first mail of each player pays the full hash). The IMAP part needs Dovecot (/usr/sbin/dovecot) and uses the test fixture
in tests/mailservers.py.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def make_games(db: Any, games: int) -> list[tuple[str, str, str, list[str]]]:
    """(sender, power, game, order lines) for every seat."""
    from judge.cli.demo import choose_orders
    from judge.game import service
    from judge.game.settings import GameSettings
    from judge.store import write

    rng = random.Random(1)
    seats = []
    for i in range(games):
        name = f"o{i:03d}"
        with write(db):
            service.create_game(db, name, "classic", GameSettings(movement_deadline=7 * 86400), START)
            for power in POWERS:
                service.join_game(db, name, f"{power.lower()}.{i}@players.test", f"pw-{power}-{i}", START, power=power)
            game = service.start_game(db, name, START, rng)
        assert game.position is not None
        for power in POWERS:
            seats.append(
                (
                    f"{power.lower()}.{i}@players.test",
                    power,
                    name,
                    choose_orders(game.variant, game.position, power, rng),
                )
            )
    return seats


def mails(seats: list[tuple[str, str, str, list[str]]], count: int, tag: str) -> list[bytes]:
    out = []
    for n in range(count):
        sender, power, game, lines = seats[n % len(seats)]
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = "judge@bench.test"
        msg["Subject"] = f"orders {n}"
        msg["Message-ID"] = f"<{tag}.{n}@players.test>"
        msg["Date"] = "Tue, 01 Dec 2026 12:30:00 +0000"
        i = game[1:].lstrip("0") or "0"
        msg.set_content("\n".join([f"SIGNON {power} {game} pw-{power}-{int(i)}", *lines]))
        out.append(bytes(msg))
    return out


def _scrypt_timer() -> list[float]:
    """Time spent in scrypt (judge.game.passwords._derive), measured, not changed."""
    from judge.game import passwords

    spent = [0.0, 0]
    real = passwords._derive

    def timed(*a: Any) -> bytes:
        t = time.perf_counter()
        try:
            return real(*a)
        finally:
            spent[0] += time.perf_counter() - t
            spent[1] += 1

    passwords._derive = timed
    return spent


def _first_sign_ons(db: Any, seats: list[tuple[str, str, str, list[str]]]) -> dict[str, Any]:
    """Each player's first mail: every one pays the full scrypt."""
    from judge.transport.imap import handle_one

    now = START + timedelta(minutes=10)
    started = time.perf_counter()
    for raw in mails(seats, len(seats), "first"):
        handle_one(db, raw, now, "judge@bench.test", 10_000)
    elapsed = time.perf_counter() - started
    return {"mails": len(seats), "seconds": round(elapsed, 2), "mails_per_s": round(len(seats) / elapsed, 1)}


def in_process(base: Path, games: int, count: int) -> dict[str, Any]:
    from judge.game.passwords import forget_verified
    from judge.store import open_db
    from judge.transport.imap import handle_one

    db = open_db(base / "inproc.db")
    seats = make_games(db, games)
    forget_verified()
    spent = _scrypt_timer()
    first = _first_sign_ons(db, seats)
    batch = mails(seats, count, "p")
    now = START + timedelta(minutes=30)
    spent[:] = [0.0, 0]
    started = time.perf_counter()
    outcomes: dict[str, int] = {}
    for raw in batch:
        handled = handle_one(db, raw, now, "judge@bench.test", 10_000)
        outcomes[handled.outcome] = outcomes.get(handled.outcome, 0) + 1
    elapsed = time.perf_counter() - started
    return {
        "first_sign_on_of_each_player": first,
        "repeat": {
            "mails": count,
            "players": len(seats),
            "seconds": round(elapsed, 2),
            "mails_per_s": round(count / elapsed, 1),
            "scrypt_calls": spent[1],
            "outcomes": outcomes,
        },
        "overall_mails_per_s": round((count + len(seats)) / (elapsed + first["seconds"]), 1),
    }


def through_imap(base: Path, games: int, count: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    from mailservers import PASSWORD, Dovecot  # type: ignore[import-not-found]

    from judge.config import ImapConfig
    from judge.game.passwords import forget_verified
    from judge.store import open_db
    from judge.transport.imap import Inbox, handle_new_mail

    if shutil.which("dovecot") is None and not Path("/usr/sbin/dovecot").exists():
        return {"skipped": "dovecot is not installed"}
    server = Dovecot(base / "dovecot", ["judge"], PASSWORD).start()
    try:
        db = open_db(base / "imap.db")
        seats = make_games(db, games)
        forget_verified()
        first = _first_sign_ons(db, seats)  # in process: the players have signed on once before
        client = server.client("judge")
        for raw in mails(seats, count, "i"):
            client.append("INBOX", raw)
        client.logout()
        inbox = Inbox(
            ImapConfig(
                host="127.0.0.1", port=server.port, security="none", username="judge", password=PASSWORD, timeout=60
            )
        )
        now = START + timedelta(minutes=30)
        started = time.perf_counter()
        inbox.open()
        handled = 0
        while handled < count:
            n = handle_new_mail(db, inbox, lambda: now, "judge@bench.test", 10_000, limit=200)
            if not n:
                break
            handled += n
        inbox.drop()
        elapsed = time.perf_counter() - started
    finally:
        server.stop()
    return {
        "first_sign_on_of_each_player (in process)": first,
        "repeat": {
            "mails": count,
            "handled": handled,
            "seconds": round(elapsed, 2),
            "mails_per_s": round(handled / elapsed, 1),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--mails", type=int, default=1000)
    parser.add_argument("--imap-mails", type=int, default=500)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="judge-orders-"))
    report = {
        "in_process": in_process(base, args.games, args.mails),
        "imap_dovecot": through_imap(base, args.games, args.imap_mails),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(json.dumps(report, indent=2))
    shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
