"""The daemon over hours: `judge serve` (IDLE) against a real IMAP server and an SMTP sink on loopback, fed player mail
and game-master commands at a steady rate, sampled as it runs.

    python bench/soak.py [--minutes 180] [--rate 3] [--games 20] [--deadline 180] [--imap dovecot|pymap]
                         [--out DIR] [--sample 10] [--warmup 20]

What it does: creates ``--games`` classic games (seven players each, ``--deadline`` seconds a phase), writes a
configuration, starts `judge serve --verbose` as a process of its own, and appends player mail to its INBOX at
``--rate`` mails a second: orders (legal, for the phase the game is in), orders with READY, press, lines that are no
order, wrong passwords, LIST and HELP. Beside it, a game master runs `judge game extend` and `judge game show` once a
minute, and a game that ends is replaced by a new one. Every ``--sample`` seconds it records the daemon's RSS, file
descriptors and threads (from /proc), the database and WAL sizes, the mail waiting in the INBOX, and the time from
each player mail's APPEND to the judge's reply reaching the sink (matched by In-Reply-To).

It writes to ``--out`` (default: a new folder under /tmp): ``samples.csv``, ``summary.json`` (the RSS slope after the
warm-up, latency percentiles for the whole run and per part, warnings and tracebacks in the daemon's log, mail sent
and answered) and ``soak.png`` (RSS and reply latency over time), and prints the summary. Dovecot is the one CI
installs (Debian's dovecot-imapd); pymap comes with the demo extra. Ctrl-C or SIGTERM ends a run early and still writes
all three for the minutes run (`minutes_run` in the summary).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the test fixtures' Dovecot
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
JUDGE = "judge@judge.test"
KINDS = {  # what players send, and how often
    "orders": 45,
    "orders+ready": 15,
    "press": 10,
    "mistakes": 12,
    "wrong password": 8,
    "list": 5,
    "help": 5,
}


@dataclass
class Books:
    """What the feeder sent and the sink received, shared by the threads (under ``lock``)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    appended: dict[str, float] = field(default_factory=dict)  # Message-ID -> when it was appended
    answered: dict[str, float] = field(default_factory=dict)  # Message-ID -> latency (s)
    window: list[float] = field(default_factory=list)  # latencies since the last sample
    sent_by_judge: int = 0
    master_commands: int = 0
    games_replaced: int = 0
    kinds: dict[str, int] = field(default_factory=dict)


class Recorder:
    """The SMTP sink: every mail the judge sends, its reply matched to the player mail it answers."""

    def __init__(self, books: Books) -> None:
        self.books = books

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        now = time.monotonic()
        head = envelope.original_content.split(b"\r\n\r\n", 1)[0].decode("ascii", "replace")
        replied = ""
        for line in head.replace("\r\n ", " ").split("\r\n"):
            if line.lower().startswith("in-reply-to:"):
                replied = line.split(":", 1)[1].strip()
        with self.books.lock:
            self.books.sent_by_judge += 1
            sent = self.books.appended.get(replied)
            if sent is not None and replied not in self.books.answered:
                self.books.answered[replied] = now - sent
                self.books.window.append(now - sent)
        return "250 OK"


def _address(power: str, game: str) -> str:
    return f"{power.lower()}.{game}@players.test"


def create_game(db_path: Path, name: str, deadline: int, rng: random.Random) -> None:
    from judge.game import service
    from judge.game.settings import GameSettings
    from judge.store import open_db, write

    db = open_db(db_path)
    try:
        settings = GameSettings(
            movement_deadline=deadline,
            retreat_deadline=deadline,
            adjustment_deadline=deadline,
            master="gm@players.test",
        )
        with write(db):
            service.create_game(db, name, "classic", settings, datetime.now(UTC))
            for power in POWERS:
                service.join_game(db, name, _address(power, name), f"pw-{power}-{name}", datetime.now(UTC), power=power)
            service.start_game(db, name, datetime.now(UTC), rng)
    finally:
        db.conn.close()


class Feeder:
    """Player mail at a steady rate, appended to the judge's INBOX."""

    def __init__(self, imap: Any, db_path: Path, books: Books, rate: float, games: list[str], seed: int) -> None:
        self.imap, self.db_path, self.books, self.rate = imap, db_path, books, rate
        self.games = games
        self.rng = random.Random(seed)
        self.stop = threading.Event()

    def _position(self, db: Any, name: str) -> Any:
        from judge.game.records import load_game

        game = load_game(db, name)
        return game if game is not None and game.position is not None and game.status.value == "active" else None

    def body(self, db: Any, kind: str) -> tuple[str, str]:
        """(sender, body) of one mail of ``kind``."""
        from judge.cli.demo import choose_orders

        name = self.rng.choice(self.games)
        power = self.rng.choice(POWERS)
        sender = _address(power, name)
        signon = f"SIGNON {power} {name} pw-{power}-{name}"
        if kind == "wrong password":
            return sender, f"SIGNON {power} {name} not-my-password\nA vie H"
        if kind == "list":
            return sender, f"LIST {name}"
        if kind == "help":
            return sender, "HELP"
        if kind == "press":
            to = self.rng.choice([p for p in POWERS if p != power])
            return (
                sender,
                f"{signon}\nPRESS TO {to}\nShall we talk about the Balkans? ({self.rng.random():.6f})\nENDPRESS",
            )
        if kind == "mistakes":
            return sender, f"{signon}\nA xyz - abc\nplease move my fleet somewhere\nF lon - par"
        game = self._position(db, name)
        lines = choose_orders(game.variant, game.position, power, self.rng) if game else []
        if kind == "orders+ready":
            lines.append("READY")
        return sender, "\n".join([signon, *lines])

    def run(self) -> None:
        import sqlite3

        from imapclient import IMAPClient
        from sqlite_utils import Database

        client: IMAPClient | None = None
        db = Database(sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=30))
        kinds, weights = list(KINDS), list(KINDS.values())
        start = time.monotonic()
        sent = 0
        while not self.stop.is_set():
            due = start + sent / self.rate
            pause = due - time.monotonic()
            if pause > 0 and self.stop.wait(pause):
                break
            kind = self.rng.choices(kinds, weights)[0]
            sender, text = self.body(db, kind)
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = sender, JUDGE, "orders"
            msg["Message-ID"] = make_msgid(domain="players.test")
            msg["Date"] = datetime.now(UTC).strftime("%a, %d %b %Y %H:%M:%S +0000")
            msg.set_content(text)
            try:
                if client is None:
                    client = self.imap.client("judge")
                client.append("INBOX", bytes(msg))
            except Exception as exc:  # noqa: BLE001 - the server restarted or hiccuped: reconnect, keep the rate
                print(f"feeder: {type(exc).__name__}: {exc}", file=sys.stderr)
                client = None
                continue
            with self.books.lock:
                self.books.appended[msg["Message-ID"]] = time.monotonic()
                self.books.kinds[kind] = self.books.kinds.get(kind, 0) + 1
            sent += 1
        if client is not None:
            client.logout()


class Master:
    """The game master beside the daemon: extends and shows games, and replaces games that ended."""

    def __init__(self, cfg: Path, db_path: Path, books: Books, games: list[str], deadline: int) -> None:
        self.cfg, self.db_path, self.books, self.games, self.deadline = cfg, db_path, books, games, deadline
        self.stop = threading.Event()
        self.rng = random.Random(7)
        self.made = len(games)

    def judge(self, *argv: str) -> None:
        subprocess.run(
            [sys.executable, "-m", "judge.cli", *argv, "--config", str(self.cfg)],
            capture_output=True,
            check=False,
            timeout=120,
        )
        with self.books.lock:
            self.books.master_commands += 1

    def run(self) -> None:
        import sqlite3

        while not self.stop.wait(60):
            name = self.rng.choice(self.games)
            self.judge("game", "extend", name, "30s")
            self.judge("game", "show", name)
            conn = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=30)
            try:
                ended = [r[0] for r in conn.execute("select name from games where status = 'finished'")]
            finally:
                conn.close()
            for gone in [g for g in self.games if g in ended]:
                new = f"s{self.made:03d}"
                self.made += 1
                create_game(self.db_path, new, self.deadline, self.rng)
                self.games[self.games.index(gone)] = new  # the feeder's list: one name swapped at a time
                with self.books.lock:
                    self.books.games_replaced += 1


def proc_figures(pid: int) -> tuple[float, int, int]:
    """RSS (MB), open file descriptors and threads of process ``pid``."""
    status = Path(f"/proc/{pid}/status").read_text()
    values = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss = int(values["VmRSS"].split()[0]) / 1024
    threads = int(values["Threads"])
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return rss, fds, threads


def inbox_backlog(imap: Any) -> int:
    client = imap.client("judge")
    try:
        return int(client.folder_status("INBOX", ["MESSAGES"])[b"MESSAGES"])
    finally:
        client.logout()


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def slope_per_hour(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of (seconds, value) points, per hour."""
    if len(points) < 3:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return None if den == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den * 3600


def plot(rows: list[dict[str, Any]], target: Path, title: str) -> None:
    """Two panels over time: RSS (MB), and the reply latency's median and 95th percentile (s)."""
    from PIL import Image, ImageDraw

    width, height, pad = 1000, 620, 60
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((pad, 10), title, fill="black")
    minutes = [r["t"] / 60 for r in rows] or [0.0]
    span = max(minutes[-1], 1.0)
    panels = [
        ("RSS (MB)", [("rss_mb", "navy")], 40),
        ("reply latency (s): p50 blue, p95 red", [("lat_p50", "blue"), ("lat_p95", "red")], 340),
    ]
    for label, series, top in panels:
        box = (pad, top, width - 20, top + 240)
        values = [r[k] for k, _ in series for r in rows if r.get(k) is not None]
        low = 0.0
        high = max(values) * 1.1 if values else 1.0
        draw.rectangle(box, outline="black")
        draw.text((pad, top - 14), label, fill="black")
        for i in range(5):
            v = low + (high - low) * i / 4
            y = box[3] - (box[3] - box[1]) * i / 4
            draw.line((box[0] - 4, y, box[0], y), fill="black")
            draw.text((4, y - 6), f"{v:.1f}", fill="black")
        for i in range(7):
            m = span * i / 6
            x = box[0] + (box[2] - box[0]) * i / 6
            draw.line((x, box[3], x, box[3] + 4), fill="black")
            draw.text((x - 10, box[3] + 6), f"{m:.0f} min" if span >= 12 else f"{m:.1f} min", fill="black")
        for key, colour in series:
            points = [
                (
                    box[0] + (box[2] - box[0]) * r["t"] / 60 / span,
                    box[3] - (box[3] - box[1]) * (r[key] - low) / (high - low),
                )
                for r in rows
                if r.get(key) is not None
            ]
            if len(points) > 1:
                draw.line(points, fill=colour, width=2)
    image.save(target)


def _stop_early(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=180)
    parser.add_argument("--rate", type=float, default=3.0, help="player mails a second")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--deadline", type=int, default=180, help="seconds a phase")
    parser.add_argument("--imap", choices=("dovecot", "pymap"), default="dovecot")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between samples")
    parser.add_argument("--warmup", type=float, default=20.0, help="minutes left out of the RSS slope")
    args = parser.parse_args()

    from aiosmtpd.controller import Controller
    from mailservers import PASSWORD, Dovecot

    import judge.wiring  # noqa: F401  (the game server given its variant loader and mail side)
    from judge.transport.embedded import EmbeddedImap, free_port

    out = args.out or Path(tempfile.mkdtemp(prefix="judge-soak-"))
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="judge-soak-work-"))
    imap = (
        Dovecot(work, ["judge"], PASSWORD)
        if args.imap == "dovecot"
        else EmbeddedImap(work / "mail", ["judge"], PASSWORD)
    ).start()
    books = Books()
    smtp_port = free_port()
    controller = Controller(Recorder(books), hostname="127.0.0.1", port=smtp_port)
    controller.start()
    db_path = work / "judge.db"
    rng = random.Random(1)
    games = [f"s{i:03d}" for i in range(args.games)]
    for name in games:
        create_game(db_path, name, args.deadline, rng)
    cfg = work / "judge.toml"
    cfg.write_text(
        f'[judge]\naddress = "{JUDGE}"\ndb = "{db_path}"\nmax_replies_per_hour = 10000\n'
        f'[imap]\nhost = "127.0.0.1"\nport = {imap.port}\nsecurity = "none"\nusername = "judge"\n'
        f'password = "{PASSWORD}"\nidle = true\npoll_seconds = 60\n'
        f'[smtp]\nhost = "127.0.0.1"\nport = {smtp_port}\nsecurity = "none"\n'
    )
    cfg.chmod(0o600)
    log_path = out / "daemon.log"
    log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - open for the daemon's whole life
    daemon = subprocess.Popen(
        [sys.executable, "-m", "judge.cli", "serve", "--verbose", "--config", str(cfg)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    feeder = Feeder(imap, db_path, books, args.rate, games, seed=2)
    master = Master(cfg, db_path, books, games, args.deadline)
    threads = [threading.Thread(target=feeder.run, daemon=True), threading.Thread(target=master.run, daemon=True)]
    for thread in threads:
        thread.start()
    rows: list[dict[str, Any]] = []
    started = time.monotonic()
    end = started + args.minutes * 60
    for stop_signal in (signal.SIGINT, signal.SIGTERM):  # a run in the background ignores SIGINT unless told
        signal.signal(stop_signal, _stop_early)
    print(f"soak: {args.minutes:g} min, {args.rate:g} mails/s, {args.games} games, {args.imap}; out {out}", flush=True)
    try:
        while time.monotonic() < end and daemon.poll() is None:
            time.sleep(args.sample)
            rss, fds, nthreads = proc_figures(daemon.pid)
            with books.lock:
                window, books.window = books.window, []
                answered, appended = len(books.answered), len(books.appended)
            wal = Path(f"{db_path}-wal")
            row = {
                "t": round(time.monotonic() - started, 1),
                "rss_mb": round(rss, 2),
                "fds": fds,
                "threads": nthreads,
                "db_mb": round(db_path.stat().st_size / 1e6, 2),
                "wal_mb": round(wal.stat().st_size / 1e6, 2) if wal.exists() else 0.0,
                "inbox": inbox_backlog(imap),
                "appended": appended,
                "answered": answered,
                "replies": len(window),
                "lat_p50": round(percentile(window, 0.5), 3) if window else None,
                "lat_p95": round(percentile(window, 0.95), 3) if window else None,
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    except KeyboardInterrupt:
        print("soak: stopped early; the summary covers the minutes run", flush=True)
    finally:
        feeder.stop.set()
        master.stop.set()
        drain_end = time.monotonic() + 120
        while time.monotonic() < drain_end and daemon.poll() is None:
            with books.lock:
                if len(books.answered) >= len(books.appended) - 5:
                    break
            time.sleep(1)
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(60)
        except subprocess.TimeoutExpired:
            daemon.kill()
        log.close()
        controller.stop()
        imap.stop()

    with (out / "samples.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["t"])
        writer.writeheader()
        writer.writerows(rows)
    text = log_path.read_text(encoding="utf-8", errors="replace")
    latencies = list(books.answered.values())
    warm = [(r["t"], r["rss_mb"]) for r in rows if r["t"] >= args.warmup * 60]
    thirds = [rows[i * len(rows) // 3 : (i + 1) * len(rows) // 3] for i in range(3)] if rows else []
    summary = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "minutes": args.minutes,
        "minutes_run": round(rows[-1]["t"] / 60, 1) if rows else 0.0,
        "rate": args.rate,
        "games": args.games,
        "imap": args.imap,
        "mails_appended": len(books.appended),
        "mails_answered": len(books.answered),
        "mails_sent_by_judge": books.sent_by_judge,
        "kinds": books.kinds,
        "master_commands": books.master_commands,
        "games_replaced": books.games_replaced,
        "rss_mb_first_last": [rows[0]["rss_mb"], rows[-1]["rss_mb"]] if rows else None,
        "rss_slope_mb_per_hour_after_warmup": round(s, 3) if (s := slope_per_hour(warm)) is not None else None,
        "latency_s": {
            "p50": percentile(latencies, 0.5),
            "p95": percentile(latencies, 0.95),
            "p99": percentile(latencies, 0.99),
            "max": max(latencies) if latencies else None,
        },
        "latency_p95_by_third_s": [
            percentile([v for r in part for v in ([r["lat_p95"]] if r["lat_p95"] is not None else [])], 0.5)
            for part in thirds
        ],
        "fds_min_max": [min(r["fds"] for r in rows), max(r["fds"] for r in rows)] if rows else None,
        "threads_min_max": [min(r["threads"] for r in rows), max(r["threads"] for r in rows)] if rows else None,
        "wal_mb_max": max(r["wal_mb"] for r in rows) if rows else None,
        "db_mb_first_last": [rows[0]["db_mb"], rows[-1]["db_mb"]] if rows else None,
        "warnings": text.count(" WARNING "),
        "idle_aborts": text.count("abort while waiting"),
        "tracebacks": text.count("Traceback"),
        "daemon_exit": daemon.returncode,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    if rows:
        plot(rows, out / "soak.png", f"judge serve soak: {args.games} games, {args.rate:g} mails/s, {args.imap}")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
