"""Database growth per game-phase at steady state: games played by mail phase after phase, mail sent, and the
daemon's hourly pruning run, with two days per phase on the clock.

    python bench/growth.py [--games 10] [--phases 40]

Each phase every player mails a full set of orders (handled on the daemon's path, so the handled-mail records and
the replies are real), the deadline passes and ``tick`` adjudicates, every queued mail is marked sent, and
``prune`` runs with the default retention (mail bodies 30 days, handled-mail records 90 days). The map picture is
left out: it is stored only while its mails wait to be sent, so it adds nothing at steady state. Reported: bytes in
use per table (dbstat) after a warm-up of 50 phases' worth of days, and the growth per game-phase over the rest,
with and without the phase history (``phases``) itself.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
PHASE_DAYS = 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--phases", type=int, default=80)
    parser.add_argument("--warmup", type=int, default=50, help="phases before the measured window")
    args = parser.parse_args()
    from judge.cli.demo import choose_orders
    from judge.game import records, service
    from judge.game.settings import GameSettings
    from judge.reports import outbox
    from judge.store import open_db, write
    from judge.store.upkeep import prune, table_sizes
    from judge.transport.imap import handle_one

    outbox.map_picture = lambda *a, **k: None  # see the docstring
    path = Path(tempfile.mkdtemp(prefix="judge-growth-")) / "judge.db"
    db = open_db(path)
    rng = random.Random(1)
    now = START
    names = [f"g{i}" for i in range(args.games)]
    settings = GameSettings(
        movement_deadline=PHASE_DAYS * 86400,
        retreat_deadline=PHASE_DAYS * 86400,
        adjustment_deadline=PHASE_DAYS * 86400,
    )
    for i, name in enumerate(names):
        with write(db):
            service.create_game(db, name, "classic", settings, now)
            for power in POWERS:
                service.join_game(db, name, f"{power.lower()}.{i}@players.test", f"pw-{power}", now, power=power)
            service.start_game(db, name, now, rng)
    n = 0
    played = 0
    samples: dict[int, dict[str, int]] = {}
    started = time.perf_counter()

    def used() -> dict[str, int]:
        return {table: size for table, _, size in table_sizes(db)}

    for phase_no in range(args.phases):
        for name in names:
            game = records.load_game(db, name)
            assert game is not None and game.position is not None
            if game.status != "active":
                continue
            for power in POWERS:
                lines = choose_orders(game.variant, game.position, power, rng)
                if not lines:
                    continue
                n += 1
                msg = EmailMessage()
                msg["From"] = f"{power.lower()}.{name[1:]}@players.test"
                msg["To"] = "judge@judge.test"
                msg["Subject"] = "orders"
                msg["Message-ID"] = f"<g{n}@players.test>"
                msg.set_content("\n".join([f"SIGNON {power} {name} pw-{power}", *lines]))
                handle_one(db, bytes(msg), now + timedelta(hours=1), "judge@judge.test", 1000)
        now += timedelta(days=PHASE_DAYS, seconds=1)
        played += len(service.tick(db, now))
        with write(db):
            db.execute(
                "update outbox set status = 'sent', sent_at = ? where status = 'queued'",
                [now.strftime("%Y-%m-%dT%H:%M:%SZ")],
            )
        prune(db, now)
        if phase_no + 1 in (args.warmup, args.phases):
            samples[played] = used()
    (p0, a), (p1, b) = sorted(samples.items())
    game_phases = p1 - p0
    total = sum(b.values()) - sum(a.values())
    history = b.get("phases", 0) - a.get("phases", 0)
    report = {
        "games": args.games,
        "phases_per_game": args.phases,
        "game_phases_measured": game_phases,
        "orders_mails": n,
        "seconds": round(time.perf_counter() - started, 1),
        "growth_per_game_phase_bytes": round(total / game_phases),
        "of_which_phase_history_bytes": round(history / game_phases),
        "beyond_phase_history_bytes": round((total - history) / game_phases),
        "per_table_growth_per_game_phase": {
            t: round((b.get(t, 0) - a.get(t, 0)) / game_phases) for t in sorted(b) if b.get(t, 0) != a.get(t, 0)
        },
        "file_mb": round(path.stat().st_size / 2**20, 1),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
