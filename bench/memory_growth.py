"""Memory of one long-running judge process: the daemon's own rounds over many games, phases and senders.

    python bench/memory_growth.py [--games 20] [--phases 40] [--every 5] [--top 15] [--no-tracemalloc]

One process runs what ``judge serve`` runs, through its own code: ``Daemon.round`` (deadlines in the round, as with
``--once``; mail read by IMAP from pymap with the judge's ``Inbox``, handled, moved to Processed; the outbox sent by
SMTP to a sink that keeps nothing; the hourly upkeep), with a clock the script moves. pymap and the SMTP sink run as
child processes, so only the judge's memory is measured. ``--games`` classic games (game masters by mail included)
are played phase after phase; each game-phase brings the seven powers' orders (some a second time, with READY),
press to another power, a wrong password, a game master's command, and mail from senders never seen before
(``HELP``, ``LIST``, ``WHOGAME``, garbage) — so everything keyed by game, phase, sender, text or message grows if it
can. A game that ends is replaced by a new one with a new name.

After a warm-up (the first ``--every`` phases), every ``--every`` phases: ``gc.collect()``, the RSS (VmRSS) and a
tracemalloc snapshot (10 frames); at the end the allocation sites whose memory grew most since the warm-up snapshot,
by line and by the traceback of the biggest, and the RSS slope in MB per 1000 mails and per hour at the soak's rate
(3 mails a second). ``--no-tracemalloc`` measures the RSS alone (tracemalloc's own bookkeeping adds to it).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
LANGUAGES = ["en", "de", "ru"]
SOAK_MAILS_PER_SECOND = 3.0


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def sink(port: int) -> subprocess.Popen[bytes]:
    """aiosmtpd's Sink handler in a child process: accepts every mail and keeps nothing."""
    return subprocess.Popen(
        [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{port}", "-c", "aiosmtpd.handlers.Sink"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--phases", type=int, default=40, help="phases each game plays")
    parser.add_argument("--every", type=int, default=5, help="phases between two snapshots (the first: warm-up)")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--no-tracemalloc", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON at the end")
    args = parser.parse_args()

    from judge.transport.embedded import EmbeddedImap, free_port, wait_port

    folder = Path(tempfile.mkdtemp(prefix="judge-memory-"))
    imap = EmbeddedImap(folder / "imap", ["judge", "players"], "pw").start()
    smtp_port = free_port()
    smtp = sink(smtp_port)
    try:
        wait_port(smtp_port, smtp)
        return run(args, folder, imap.port, smtp_port)
    finally:
        imap.stop()
        smtp.terminate()
        smtp.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def run(args: argparse.Namespace, folder: Path, imap_port: int, smtp_port: int) -> int:
    import judge.wiring  # noqa: F401
    from judge.cli.demo import choose_orders
    from judge.config import load_config
    from judge.game import records, service
    from judge.game.master_mail import set_master_password
    from judge.game.settings import GameSettings
    from judge.store import write
    from judge.transport.daemon import Daemon, Pace
    from judge.transport.embedded import ImapAccounts

    cfg_path = folder / "judge.toml"
    cfg_path.write_text(f"""
[judge]
address = "judge@judge.test"
db = "{folder / "judge.db"}"
max_replies_per_hour = 10000
[imap]
host = "127.0.0.1"
port = {imap_port}
security = "none"
username = "judge"
password = "pw"
poll_seconds = 1
[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "none"
""")
    cfg = load_config(cfg_path)
    clock = Clock()
    daemon = Daemon(cfg, clock, threading.Event(), Pace(0.1, 0.1))
    daemon._step("start", daemon._start)  # noqa: SLF001
    db = daemon.db
    rng = random.Random(1)
    accounts = ImapAccounts()
    accounts.port, accounts.password = imap_port, "pw"
    poster = accounts.client("judge")
    settings = GameSettings(
        movement_deadline=3600, retreat_deadline=3600, adjustment_deadline=3600, master="gm@masters.test"
    )
    serial = iter(range(10**9))
    games: dict[str, int] = {}  # name -> generation (addresses differ per game)

    def new_game() -> str:
        n = next(serial)
        name = f"g{n}"
        with write(db):
            service.create_game(db, name, "classic", settings, clock())
            for power in POWERS:
                service.join_game(db, name, f"{power.lower()}.{n}@players.test", f"pw-{power}", clock(), power=power)
            service.start_game(db, name, clock(), rng)
            set_master_password(db, name, "gm-secret", clock())
        games[name] = n
        return name

    mails = 0

    def post(sender: str, body: str, subject: str = "orders") -> None:
        nonlocal mails
        mails += 1
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = "judge@judge.test"
        msg["Subject"] = subject
        msg["Message-ID"] = f"<m{mails}.{rng.randrange(10**9)}@players.test>"
        msg["Date"] = clock().strftime("%a, %d %b %Y %H:%M:%S +0000")
        msg.set_content(body)
        poster.append("INBOX", bytes(msg))

    def drain() -> None:
        for _ in range(1000):
            deadlines_left, outbox_left = daemon.round()
            if not (deadlines_left or outbox_left) and not daemon.inbox.client.search(["ALL"]):  # type: ignore[union-attr]
                return
        raise RuntimeError("the daemon never caught up")

    for _ in range(args.games):
        new_game()
    # each player once in a language of their own
    for name, n in games.items():
        for i, power in enumerate(POWERS):
            post(f"{power.lower()}.{n}@players.test", f"SIGNON {power} {name} pw-{power}\nSET LANGUAGE {LANGUAGES[i % 3]}")
    drain()

    if not args.no_tracemalloc:
        tracemalloc.start(10)
    started = time.perf_counter()
    samples: list[dict[str, Any]] = []
    base: Any = None
    strangers = iter(range(10**9))
    for phase_no in range(1, args.phases + 1):
        for name in list(games):
            n = games[name]
            game = records.load_game(db, name)
            assert game is not None
            if game.status != "active":
                del games[name]
                new_game()
                continue
            assert game.position is not None
            for power in POWERS:
                lines = choose_orders(game.variant, game.position, power, rng)
                signon = f"SIGNON {power} {name} pw-{power}"
                sender = f"{power.lower()}.{n}@players.test"
                if lines:
                    post(sender, "\n".join([signon, *lines]))
                if rng.random() < 0.3:
                    to = rng.choice([p for p in POWERS if p != power])
                    words = " ".join(rng.choice(["attack", "ally", "trust", "bounce", "support"]) for _ in range(8))
                    post(sender, f"{signon}\nPRESS TO {to}\n{words} {rng.random()}\nENDPRESS", "press")
            post(f"france.{n}@players.test", f"SIGNON France {name} wrong-{rng.random()}\nA par H")
            post("gm@masters.test", f"MASTER {name} gm-secret\nWHOGAME {name}", "gm")
            k = next(strangers)
            post(
                f"stranger{k}@elsewhere{k % 97}.test",
                rng.choice(["HELP", "LIST", f"WHOGAME {name}", f"SUMMARY {name}", f"garbage {k} words"]),
                f"hello {k}",
            )
            ready = rng.choice(POWERS)
            post(f"{ready.lower()}.{n}@players.test", f"SIGNON {ready} {name} pw-{ready}\nREADY")
        drain()
        clock.now += timedelta(hours=1, seconds=1)
        drain()
        if phase_no % args.every == 0:
            gc.collect()
            sample: dict[str, Any] = {
                "phase": phase_no,
                "mails": mails,
                "rss_mb": round(rss_kb() / 1024, 1),
                "seconds": round(time.perf_counter() - started, 1),
            }
            if not args.no_tracemalloc:
                snap = tracemalloc.take_snapshot().filter_traces(
                    [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen *>")]
                )
                sample["traced_mb"] = round(sum(s.size for s in snap.statistics("filename")) / 2**20, 2)
                if base is None:
                    base = snap
            samples.append(sample)
            print(json.dumps(sample), flush=True)
        if phase_no == args.every:
            gc.collect()
    gc.collect()
    if not args.no_tracemalloc and base is not None:
        last = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen *>")]
        )
        print(f"\ntop {args.top} growing sites (by line) since phase {args.every}:")
        for stat in last.compare_to(base, "lineno")[: args.top]:
            print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks  {stat.traceback[0]}")
        print("\ntracebacks of the 5 biggest:")
        for stat in last.compare_to(base, "traceback")[:5]:
            print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks")
            for line in stat.traceback.format()[-12:]:
                print(f"      {line}")
    first, final = samples[0], samples[-1]
    mails_between = final["mails"] - first["mails"]
    slope = (final["rss_mb"] - first["rss_mb"]) / max(1, mails_between) * 1000
    report = {
        "games_at_once": args.games,
        "phases": args.phases,
        "mails": mails,
        "rss_mb": [s["rss_mb"] for s in samples],
        "traced_mb": [s.get("traced_mb") for s in samples],
        "rss_growth_mb_per_1000_mails_after_warmup": round(slope, 3),
        "rss_growth_mb_per_hour_at_3_mails_per_s": round(slope * SOAK_MAILS_PER_SECOND * 3.6, 2),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(report, indent=None if not args.json else 2))
    poster.logout()
    daemon.inbox.drop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
