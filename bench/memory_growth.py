"""Memory of one long-running judge process: the daemon's own rounds over many games, phases and senders.

    python bench/memory_growth.py [--games 20] [--phases 40] [--every 5] [--top 15] [--no-tracemalloc] [--server S]

One process runs what ``judge serve`` runs, through its own code: ``Daemon.round`` (deadlines in the round, as with
``--once``; mail read by IMAP from Dovecot with the judge's ``Inbox``, handled, moved to Processed; the outbox sent by
SMTP to a sink that keeps nothing; the hourly upkeep), with a clock the script moves. The IMAP server (``--server
pymap``: pymap, which slows as its Processed folder fills) and the SMTP sink run as child processes, so only the
judge's memory is measured. ``--games`` classic games (game masters by mail included) are played phase after phase;
each game-phase brings the seven powers' orders, press to another power, READY, a wrong password, a game master's
command, and mail from senders never seen before (``HELP``, ``LIST``, ``WHOGAME``, garbage) — so everything keyed
by game, phase, sender, text or message grows if it can. A game that ends is replaced by a new one with a new name.

After a warm-up (the first ``--every`` phases), every ``--every`` phases: ``gc.collect()``, the RSS (VmRSS) and a
tracemalloc snapshot (10 frames); at the end the allocation sites whose memory grew most since the warm-up snapshot,
by line and by the traceback of the biggest; the judge's caches whose size changed after the warm-up (every
functools cache and module-level container, found by tests/cachekit.py); how many untagged responses imaplib keeps on
the judge's IMAP connection; and the RSS slope in MB per 1000 mails and per hour at the soak's rate (3 mails a
second). ``--no-tracemalloc`` measures the RSS alone (tracemalloc's own bookkeeping adds to it). The RSS counts what
tracemalloc does not see: Pillow's pictures and SQLite's page cache.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import shutil
import signal
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
    parser.add_argument(
        "--server",
        choices=["pymap", "dovecot"],
        default="dovecot",
        help="the IMAP server (pymap slows as Processed fills)",
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the servers are stopped on the way out

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from mailservers import PASSWORD, start_imap

    from judge.transport.embedded import free_port, wait_port

    folder = Path(tempfile.mkdtemp(prefix="judge-memory-"))
    imap = start_imap(args.server, folder / "imap")
    smtp_port = free_port()
    smtp = sink(smtp_port)
    try:
        wait_port(smtp_port, smtp)
        return run(args, folder, imap.port, smtp_port, PASSWORD)
    finally:
        imap.stop()
        smtp.terminate()
        smtp.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


CONFIG = """
[judge]
address = "judge@judge.test"
db = "{db}"
max_replies_per_hour = 10000
[imap]
host = "127.0.0.1"
port = {imap_port}
security = "none"
username = "judge"
password = "{password}"
poll_seconds = 1
[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "none"
"""


class Soak:
    """The daemon, its clock, the games it runs and the mail posted to it."""

    def __init__(self, folder: Path, imap_port: int, smtp_port: int, password: str) -> None:
        import judge.wiring  # noqa: F401
        from judge.config import load_config
        from judge.game.settings import GameSettings
        from judge.transport.daemon import Daemon, Pace
        from judge.transport.embedded import ImapAccounts

        cfg_path = folder / "judge.toml"
        cfg_path.touch(mode=0o600)  # it holds a password: the judge refuses it readable by every user
        cfg_path.write_text(
            CONFIG.format(db=folder / "judge.db", imap_port=imap_port, smtp_port=smtp_port, password=password)
        )
        self.clock = Clock()
        self.daemon = Daemon(load_config(cfg_path), self.clock, threading.Event(), Pace(0.1, 0.1))
        self.daemon._step("start", self.daemon._start)
        self.db = self.daemon.db
        self.rng = random.Random(1)
        accounts = ImapAccounts()
        accounts.port, accounts.password = imap_port, password
        self.poster = accounts.client("judge")
        self.settings = GameSettings(
            movement_deadline=3600, retreat_deadline=3600, adjustment_deadline=3600, master="gm@masters.test"
        )
        self.serial = iter(range(10**9))
        self.strangers = iter(range(10**9))
        self.games: dict[str, int] = {}  # name -> its number (the players' addresses differ per game)
        self.mails = 0

    def new_game(self) -> None:
        from judge.game import service
        from judge.game.master_mail import set_master_password
        from judge.store import write

        n = next(self.serial)
        name, db, now = f"g{n}", self.db, self.clock()
        with write(db):
            service.create_game(db, name, "classic", self.settings, now)
            for power in POWERS:
                service.join_game(db, name, f"{power.lower()}.{n}@players.test", f"pw-{power}", now, power=power)
            service.start_game(db, name, now, self.rng)
            set_master_password(db, name, "gm-secret", now)
        self.games[name] = n
        for i, power in enumerate(POWERS):  # each player in a language of their own
            self.post(
                f"{power.lower()}.{n}@players.test",
                f"SIGNON {power} {name} pw-{power}\nSET LANGUAGE {LANGUAGES[i % 3]}",
            )

    def post(self, sender: str, body: str, subject: str = "orders") -> None:
        self.mails += 1
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = "judge@judge.test"
        msg["Subject"] = subject
        msg["Message-ID"] = f"<m{self.mails}.{self.rng.randrange(10**9)}@players.test>"
        msg["Date"] = self.clock().strftime("%a, %d %b %Y %H:%M:%S +0000")
        msg.set_content(body)
        self.poster.append("INBOX", bytes(msg))
        self.poster._imap.untagged_responses.clear()  # the script's own connection: its APPENDUIDs are not the judge's

    def drain(self) -> None:
        """Rounds until the deadlines, the inbox and the outbox are done."""
        for _ in range(1000):
            deadlines_left, outbox_left = self.daemon.round()
            client = self.daemon.inbox.client
            if not (deadlines_left or outbox_left) and client is not None and not client.search(["ALL"]):
                return
        raise RuntimeError("the daemon never caught up")

    def phase(self) -> None:
        """A phase's mail for every game (a finished game is replaced by a new one), then its deadline."""
        from judge.game import records

        for name in list(self.games):
            game = records.load_game(self.db, name)
            assert game is not None
            if game.status != "active" or game.position is None:
                del self.games[name]
                self.new_game()
                continue
            self.game_mail(name, self.games[name], game)
        self.drain()
        self.clock.now += timedelta(hours=1, seconds=1)
        self.drain()

    def game_mail(self, name: str, n: int, game: Any) -> None:
        from judge.cli.demo import choose_orders

        rng = self.rng
        for power in POWERS:
            lines = choose_orders(game.variant, game.position, power, rng)
            signon = f"SIGNON {power} {name} pw-{power}"
            sender = f"{power.lower()}.{n}@players.test"
            if lines:
                self.post(sender, "\n".join([signon, *lines]))
            if rng.random() < 0.3:
                to = rng.choice([p for p in POWERS if p != power])
                words = " ".join(rng.choice(["attack", "ally", "trust", "bounce", "support"]) for _ in range(8))
                self.post(sender, f"{signon}\nPRESS TO {to}\n{words} {rng.random()}\nENDPRESS", "press")
        self.post(f"france.{n}@players.test", f"SIGNON France {name} wrong-{rng.random()}\nA par H")
        self.post("gm@masters.test", f"MASTER {name} gm-secret\nWHOGAME {name}", "gm")
        k = next(self.strangers)
        text = rng.choice(["HELP", "LIST", f"WHOGAME {name}", f"SUMMARY {name}", f"garbage {k} words"])
        self.post(f"stranger{k}@elsewhere{k % 97}.test", text, f"hello {k}")
        ready = rng.choice(POWERS)
        self.post(f"{ready.lower()}.{n}@players.test", f"SIGNON {ready} {name} pw-{ready}\nREADY")

    def untagged(self) -> int:
        """How many untagged responses imaplib keeps on the judge's connection."""
        client = self.daemon.inbox.client
        return sum(len(v) for v in client._imap.untagged_responses.values()) if client is not None else 0


def snapshot() -> Any:
    return tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen *>")]
    )


def print_growth(base: Any, last: Any, top: int, since: int) -> None:
    print(f"\ntop {top} growing sites (by line) since phase {since}:")
    for stat in last.compare_to(base, "lineno")[:top]:
        print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks  {stat.traceback[0]}")
    print("\ntracebacks of the 5 biggest:")
    for stat in last.compare_to(base, "traceback")[:5]:
        print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks")
        for line in stat.traceback.format()[-12:]:
            print(f"      {line}")


def run(args: argparse.Namespace, folder: Path, imap_port: int, smtp_port: int, password: str) -> int:
    import cachekit

    cachekit.sizes()  # every module of the judge imported now, as the daemon would have them in time
    soak = Soak(folder, imap_port, smtp_port, password)
    for _ in range(args.games):
        soak.new_game()
    soak.drain()
    if not args.no_tracemalloc:
        tracemalloc.start(10)
    started = time.perf_counter()
    samples: list[dict[str, Any]] = []
    base: Any = None
    caches: list[dict[str, int]] = []
    for phase_no in range(1, args.phases + 1):
        soak.phase()
        if phase_no % args.every:
            continue
        gc.collect()
        sample: dict[str, Any] = {
            "phase": phase_no,
            "mails": soak.mails,
            "rss_mb": round(rss_kb() / 1024, 1),
            "seconds": round(time.perf_counter() - started, 1),
            "imap_untagged_kept": soak.untagged(),
        }
        caches.append(cachekit.sizes())
        if not args.no_tracemalloc:
            snap = snapshot()
            sample["traced_mb"] = round(sum(s.size for s in snap.statistics("filename")) / 2**20, 2)
            base = base or snap
        samples.append(sample)
        print(json.dumps(sample), flush=True)
    if not args.no_tracemalloc and base is not None:
        gc.collect()
        print_growth(base, snapshot(), args.top, args.every)
    grew = {k: [c.get(k, 0) for c in caches] for k in caches[-1] if caches[-1][k] != caches[0].get(k, 0)}
    first, final = samples[0], samples[-1]
    slope = (final["rss_mb"] - first["rss_mb"]) / max(1, final["mails"] - first["mails"]) * 1000
    report = {
        "games_at_once": args.games,
        "phases": args.phases,
        "mails": soak.mails,
        "rss_mb": [s["rss_mb"] for s in samples],
        "traced_mb": [s.get("traced_mb") for s in samples],
        "caches_that_changed_after_warmup": grew,
        "rss_growth_mb_per_1000_mails_after_warmup": round(slope, 3),
        "rss_growth_mb_per_hour_at_3_mails_per_s": round(slope * SOAK_MAILS_PER_SECOND * 3.6, 2),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(report, indent=2 if args.json else None))
    soak.poster.logout()
    soak.daemon.inbox.drop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
