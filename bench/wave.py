"""A deadline wave: N active classic games (7 players each) whose deadlines all passed; adjudicate them all and
queue every report, then send the reports to an aiosmtpd sink on loopback.

    python bench/wave.py                  # 1000 games, the map drawn as in production
    python bench/wave.py --games 200 --no-map   # without the map picture, to see the map's share

Stages run in separate processes so that each one's peak RSS is its own: ``setup`` (games, random legal orders for
every power, deadlines in the past; the start mails are marked sent), ``wave`` (the daemon's ``deadline_chunk`` until
nothing is due; time, peak RSS, time spent drawing maps), ``sizes`` (every results mail built as sent: largest and
total bytes), ``send`` (``drain_outbox`` over one connection per batch of 500 to a sink that only counts).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def setup(db_path: str, games: int, variant: str = "classic") -> dict[str, Any]:
    from judge.cli.demo import choose_orders
    from judge.game import records, service
    from judge.game.passwords import hash_password
    from judge.game.records import Player
    from judge.game.settings import GameSettings
    from judge.rules.turn import parse_submissions
    from judge.store import open_db, write

    db = open_db(db_path)
    password_hash = hash_password("bench")  # one scrypt for all seats: setting up is not what is measured
    rng = random.Random(1)
    started = time.perf_counter()
    for i in range(games):
        name = f"w{i:04d}"
        with write(db):
            game = service.create_game(db, name, variant, GameSettings(movement_deadline=86400), START)
            for power in POWERS:
                records.insert_player(
                    db, Player(0, game.id, power, f"{power.lower()}.{i}@players.test", password_hash), START
                )
            game = service.start_game(db, name, START, rng)
            assert game.position is not None
            step = game.position.phase.step
            for power in POWERS:
                lines = choose_orders(game.variant, game.position, power, rng)
                given = parse_submissions(game.variant, step, {power: lines})
                records.set_orders(db, game, game.position.phase.code, power, given, START)
    with write(db):
        db.execute("update outbox set status = 'sent', sent_at = created_at")
        db.execute("update games set deadline = ?", [(START + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")])
    return {"games": games, "setup_s": round(time.perf_counter() - started, 1)}


def wave(db_path: str, draw_map: bool) -> dict[str, Any]:
    from judge.reports import outbox
    from judge.store import open_db
    from judge.transport.daemon import deadline_chunk

    map_seconds = [0.0]
    drawn = [0]
    real_picture, real_palette = outbox.map_picture, outbox.palette_png

    def timed_picture(*a: Any, **k: Any) -> Any:
        if not draw_map:
            return None
        t = time.perf_counter()
        drawn[0] += 1
        try:
            return real_picture(*a, **k)
        finally:
            map_seconds[0] += time.perf_counter() - t

    def timed_palette(png: bytes) -> bytes:
        t = time.perf_counter()
        try:
            return real_palette(png)
        finally:
            map_seconds[0] += time.perf_counter() - t

    outbox.map_picture, outbox.palette_png = timed_picture, timed_palette  # measured, not changed
    db = open_db(db_path)
    now = START + timedelta(hours=2)
    rss_before = peak_rss_mb()
    started, cpu = time.perf_counter(), time.process_time()
    chunks = 1
    while deadline_chunk(db, now):  # the daemon's chunks (it reads and sends between them)
        chunks += 1
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    done = db.execute("select count(*) from phases").fetchone()[0]
    queued = db.execute("select count(*) from outbox where status = 'queued'").fetchone()[0]
    return {
        "adjudicated": done,
        "chunks": chunks,
        "wave_s": round(elapsed, 2),
        "cpu_s": round(cpu, 2),  # the wave process's own CPU time: less moved by other work on the machine
        "queued": queued,
        "games_per_s": round(done / elapsed, 1),
        "map_s": round(map_seconds[0], 2),
        "pictures": drawn[0],
        "map_share": round(map_seconds[0] / elapsed, 3) if elapsed else 0,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "rss_before_wave_mb": round(rss_before, 1),
    }


def sizes(db_path: str) -> dict[str, Any]:
    from judge.store import open_db
    from judge.transport.smtp import build_message

    db = open_db(db_path)
    pictures: dict[int, bytes] = {}
    largest = total = count = 0
    for row in db.query("select * from outbox where status = 'queued'"):
        pid = row["picture_id"]
        if pid and pid not in pictures:
            pictures = {pid: next(db.query("select png from pictures where id = ?", [pid]))["png"]}
        raw = bytes(build_message(row, "judge@bench.test", "w", START, pictures.get(pid) if pid else None))
        largest = max(largest, len(raw))
        total += len(raw)
        count += 1
    return {
        "mails": count,
        "largest_kb": round(largest / 1024, 1),
        "total_mb": round(total / 2**20, 1),
        "mean_kb": round(total / max(count, 1) / 1024, 1),
    }


class Counting:
    """aiosmtpd handler that only counts what it accepts."""

    def __init__(self) -> None:
        self.mails = 0
        self.bytes = 0
        self.lines = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.mails += 1
        self.bytes += len(envelope.original_content)
        self.lines += envelope.original_content.count(b"\n")
        return "250 OK"


def sink(port: int) -> dict[str, Any]:
    """An SMTP sink in its own process (as a real server would be): runs until its standard input closes."""
    from aiosmtpd.controller import Controller

    handler = Counting()
    controller = Controller(handler, hostname="127.0.0.1", port=port, data_size_limit=10_000_000)
    controller.start()
    print("ready", flush=True)
    cpu = time.process_time()
    sys.stdin.read()
    cpu = time.process_time() - cpu
    controller.stop()
    mails = max(handler.mails, 1)
    return {
        "received": handler.mails,
        "over_smtp_mb": round(handler.bytes / 2**20, 1),
        "lines_per_mail": round(handler.lines / mails),
        "sink_cpu_ms_per_mail": round(cpu * 1000 / mails, 2),
    }


def send(db_path: str) -> dict[str, Any]:
    from judge.config import SmtpConfig
    from judge.store import open_db
    from judge.transport.embedded import free_port
    from judge.transport.smtp import drain_outbox

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "--stage", "sink", "--port", str(port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    assert server.stdout.readline().strip() == "ready"
    db = open_db(db_path)
    cfg = SmtpConfig(host="127.0.0.1", port=port, security="none", timeout=30)
    clock = lambda: START + timedelta(hours=3)  # noqa: E731
    load = os.getloadavg()[0]
    started, cpu = time.perf_counter(), time.process_time()
    sent = 0
    while True:
        n = drain_outbox(db, cfg, "judge@bench.test", clock, limit=500)
        if not n:
            break
        sent += n
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    out, _ = server.communicate("", timeout=60)
    received = json.loads(out.strip().splitlines()[-1])
    return {
        "sent": sent,
        "send_s": round(elapsed, 2),
        "mails_per_s": round(sent / elapsed, 1),
        "sender_cpu_ms_per_mail": round(cpu * 1000 / max(sent, 1), 2),
        **received,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "load_average": [round(load, 2), round(os.getloadavg()[0], 2)],  # before, after
    }


def stage(name: str, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--stage", name, *args], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--no-map", action="store_true", help="leave the map picture out (to see its share)")
    parser.add_argument("--variant", default="classic", help="the games' variant (fog_of_war: bench/fog_wave.py)")
    parser.add_argument("--dir", default=None, help="keep the database here (default: a temp dir)")
    parser.add_argument("--stage", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--db", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stage:
        result = {
            "setup": lambda: setup(args.db, args.games, args.variant),
            "wave": lambda: wave(args.db, not args.no_map),
            "sizes": lambda: sizes(args.db),
            "send": lambda: send(args.db),
            "sink": lambda: sink(args.port),
        }[args.stage]()
        print(json.dumps(result))
        return 0
    base = Path(args.dir or tempfile.mkdtemp(prefix="judge-wave-"))
    base.mkdir(parents=True, exist_ok=True)
    db = str(base / "wave.db")
    if os.path.exists(db):
        os.remove(db)
    report: dict[str, Any] = {
        "setup": stage("setup", "--db", db, "--games", str(args.games), "--variant", args.variant)
    }
    report["wave"] = stage("wave", "--db", db, *(["--no-map"] if args.no_map else []))
    report["sizes"] = stage("sizes", "--db", db)
    report["send"] = stage("send", "--db", db)
    report["db_mb"] = round(os.path.getsize(db) / 2**20, 1)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
