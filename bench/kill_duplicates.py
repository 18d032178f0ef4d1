"""Duplicates across kill -9: a 20-phase classic game by mail while `judge serve` is killed (SIGKILL) again and again.

    python bench/kill_duplicates.py [--phases 20] [--kills 50] [--seed 1]

pymap (IMAP) and an aiosmtpd sink that keeps every mail run on loopback in this process; the daemon runs as a child
process and is killed at a random moment 0.5-4 s after each start. Seven scripted players append their orders and
READY to the judge's inbox each phase. At the end a last daemon drains the outbox. Reported: kills, phases played,
mails received, mails received more than once (same Message-ID), orders messages handled more than once (must be
0), and `PRAGMA integrity_check`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

ROOT = Path(__file__).resolve().parent.parent
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


class Keep:
    def __init__(self) -> None:
        self.ids: list[str] = []
        self.subjects: list[tuple[str, str]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = message_from_bytes(envelope.original_content, policy=policy.default)
        self.ids.append(str(msg["Message-ID"]))
        self.subjects.append((str(msg["To"]), str(msg["Subject"])))
        return "250 OK"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phases", type=int, default=20)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from judge.cli.demo import choose_orders
    from judge.game import records, service
    from judge.game.settings import GameSettings
    from judge.store import open_db, write
    from judge.transport.embedded import EmbeddedImap, free_port

    rng = random.Random(args.seed)
    base = Path(tempfile.mkdtemp(prefix="judge-kills-"))
    imap = EmbeddedImap(base / "mail", ["judge"], "pw").start()
    keep = Keep()
    smtp_port = free_port()
    controller = Controller(keep, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    db_path = base / "judge.db"
    config = base / "judge.toml"
    config.write_text(f"""[judge]
address = "judge@judge.test"
db = "{db_path}"
max_replies_per_hour = 100000
[imap]
host = "127.0.0.1"
port = {imap.port}
security = "none"
username = "judge"
password = "pw"
poll_seconds = 1
[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "none"
""")
    from datetime import datetime

    now = datetime.now(UTC).replace(microsecond=0)
    db = open_db(db_path)
    with write(db):
        service.create_game(
            db,
            "k",
            "classic",
            GameSettings(movement_deadline=7 * 86400, retreat_deadline=86400, adjustment_deadline=86400),
            now,
        )
        for power in POWERS:
            service.join_game(db, "k", f"{power.lower()}@players.test", f"pw-{power}", now, power=power)
        service.start_game(db, "k", now, rng)
    kills = 0
    played = 0
    sent_for: str | None = None
    mail_no = 0
    started = time.monotonic()
    try:
        while played < args.phases or kills < args.kills:
            game = records.load_game(db, "k")
            assert game is not None and game.position is not None
            if game.status != "active":
                break
            if game.phase != sent_for:  # a new phase: every player mails orders and READY
                if sent_for is not None:
                    played += 1
                    if played >= args.phases and kills >= args.kills:
                        break
                sent_for = game.phase
                for power in POWERS:
                    mail_no += 1
                    msg = EmailMessage()
                    msg["From"] = f"{power.lower()}@players.test"
                    msg["To"] = "judge@judge.test"
                    msg["Subject"] = f"{game.phase} orders"
                    msg["Message-ID"] = f"<m{mail_no}@players.test>"
                    lines = choose_orders(game.variant, game.position, power, rng)
                    msg.set_content("\n".join([f"SIGNON {power} k pw-{power}", *lines, "READY"]))
                    imap.append("judge", bytes(msg))
            proc = subprocess.Popen(
                [sys.executable, "-m", "judge.cli", "serve", "--config", str(config)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=ROOT,
            )
            time.sleep(rng.uniform(0.5, 4.0))
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            kills += 1
        done = subprocess.run(
            [sys.executable, "-m", "judge.cli", "serve", "--config", str(config), "--once"],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr
    finally:
        controller.stop()
        imap.stop()
    handled = Counter(r["message_id"] for r in db.query("select message_id from messages"))
    ids = Counter(keep.ids)
    report = {
        "kills": kills,
        "phases_played": played,
        "seconds": round(time.monotonic() - started, 1),
        "orders_mails": mail_no,
        "orders_handled": len(handled),
        "orders_handled_twice": sum(1 for n in handled.values() if n > 1),
        "mails_received": len(keep.ids),
        "distinct_message_ids": len(ids),
        "received_more_than_once": sum(n - 1 for n in ids.values() if n > 1),
        "queued_in_outbox": db.execute("select count(*) from outbox").fetchone()[0],
        "integrity_check": db.execute("pragma integrity_check").fetchone()[0],
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
