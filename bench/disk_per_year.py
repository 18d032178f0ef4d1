"""The disk a host needs per 100 games per year: games played by mail on the real game server at a stated pace, with
typical traffic, the daemon's pruning at the default retention, and the steady state measured and extrapolated.

    python bench/disk_per_year.py [--games 10] [--phases 120] [--warmup 60] [--phase-days 2]

Each phase of each game (seven players, classic, one phase every ``--phase-days`` days on the clock), every player
mails about three messages, each handled on the daemon's path (``handle_one``: sign-on, de-duplication record,
reply): a full set of orders (none in a retreat or adjustment phase that asks nothing of the power), a press message
to two other powers (about 300 characters, mailed on to both), and ``ORDERS`` (the orders given, answered by mail).
Then the deadline passes and ``tick`` adjudicates: the results mail to the seven players with the map drawn for real
(a palette PNG, kept once per language; every player reads English here, so one a phase); a game that ends is
followed by a new one, so that ``--games`` are always running. Every queued mail is then
marked sent, as the daemon would send it, and ``prune`` runs with the default retention (mail bodies 30 days,
pictures 7 or ``--picture-days``, handled-mail records 90) once a day of the clock, as the daemon's hourly upkeep
keeps it.

Measured: bytes in use per table (dbstat) after ``--warmup`` phases (by then every retention window is full:
``--warmup`` × ``--phase-days`` must pass 90 days) and at the end. What grows between the two, per game-phase, is
what a phase costs for ever (phases, orders, events, the mail log); what the retention-bounded tables hold at the end
is the steady state of these games (outbox, pictures, handled mail), per game. The year for 100 games: 100 × 365 /
``--phase-days`` game-phases a year at the first figure, plus 100 games' worth of the second. The database file (its
size after a checkpoint, free pages included) and ``judge db stats``' own estimate at the end are printed beside.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
BOUNDED = ("outbox", "pictures", "messages", "signon_failures", "quarantine")
PRESS = (
    "Greetings from {sender}. I propose we keep the peace along our border this year: I will not move against you "
    "if you leave my centres alone, and I would welcome your support in the {year} campaign against our common "
    "rival. Tell me what you think before the deadline, and let us speak again after the results."
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--phases", type=int, default=120, help="phases each game plays in all")
    parser.add_argument("--warmup", type=int, default=60, help="phases before the measured window")
    parser.add_argument("--phase-days", type=float, default=2.0, help="days of the clock a phase lasts")
    parser.add_argument("--picture-days", type=float, default=7, help="[judge] picture_retention_days (default 7)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the database (its path is printed)")
    args = parser.parse_args()
    if args.warmup * args.phase_days <= 90:
        parser.error("--warmup × --phase-days must pass 90 days, the longest retention, for a steady state")
    from judge import wiring  # noqa: F401  (the game server's mail side and variant loader)

    folder = Path(tempfile.mkdtemp(prefix="judge-disk-"))
    host = Host(folder / "judge.db", args.phase_days, random.Random(args.seed), args.picture_days)
    names = [f"g{i}" for i in range(args.games)]
    for i, name in enumerate(names):
        host.new_game(name, i)
    samples: dict[str, dict[str, Any]] = {}
    started, cpu0 = time.perf_counter(), time.process_time()
    for phase_no in range(args.phases):
        for i in range(len(names)):
            names[i] = host.play_mail(names[i], i)
        host.upkeep(host.now + timedelta(days=args.phase_days / 2))
        host.deadline()
        if phase_no + 1 in (args.warmup, args.phases):
            samples["warmup" if phase_no + 1 == args.warmup else "end"] = host.sample()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
    report = _report(args, host, samples, wall, cpu)
    print(json.dumps(report, indent=2))
    if args.keep:
        print(f"database: {host.path}", file=sys.stderr)
    else:
        for leftover in folder.iterdir():
            leftover.unlink()
        folder.rmdir()
    return 0


class Host:
    """One judge's database and clock, its players' mail and the daemon's upkeep."""

    def __init__(self, path: Path, phase_days: float, rng: random.Random, picture_days: float) -> None:
        from judge.game.settings import GameSettings
        from judge.store import open_db

        self.path, self.rng, self.now, self.last_prune = path, rng, START, START
        self.db = open_db(path)
        self.seconds = round(phase_days * 86400)
        self.settings = GameSettings(
            movement_deadline=self.seconds, retreat_deadline=self.seconds, adjustment_deadline=self.seconds
        )
        self.mails_in = self.game_phases = self.games = 0
        self.picture_days = picture_days

    def new_game(self, name: str, i: int) -> None:
        from judge.game import service
        from judge.store import write

        self.games += 1
        with write(self.db):
            service.create_game(self.db, name, "classic", self.settings, self.now)
            for power in POWERS:
                service.join_game(self.db, name, _address(power, i), f"pw-{power}", self.now, power=power)
            service.start_game(self.db, name, self.now, self.rng)

    def play_mail(self, name: str, i: int) -> str:
        """The players' mail of one phase of the game ``name`` (a new game in its place when it has ended); the
        name of the game played."""
        from judge.cli.demo import choose_orders
        from judge.game import records

        game = records.load_game(self.db, name)
        assert game is not None
        if game.status != "active":  # a game that ended is followed by a new one: the host keeps N running
            name = f"g{i}-{self.games}"
            self.new_game(name, i)
            game = records.load_game(self.db, name)
            assert game is not None
        assert game.position is not None
        at = self.now + timedelta(hours=1)
        for n, power in enumerate(POWERS):
            sender, signon = _address(power, i), f"SIGNON {power} {name} pw-{power}"
            lines = choose_orders(game.variant, game.position, power, self.rng)
            if lines:
                self.mail(sender, "\n".join([signon, *lines]), at)
            to = self.rng.sample([p for p in POWERS if p != power], 2)
            press = PRESS.format(sender=power, year=game.position.phase.year)
            self.mail(sender, "\n".join([signon, f"PRESS TO {', '.join(to)}", press, "ENDPRESS"]), at)
            self.mail(sender, "\n".join([signon, "ORDERS"]), at + timedelta(hours=n + 2))
        return name

    def mail(self, sender: str, body: str, at: datetime) -> None:
        from judge.transport.imap import handle_one

        self.mails_in += 1
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = "judge@judge.test"
        msg["Subject"] = "orders"
        msg["Message-ID"] = f"<d{self.mails_in}@players.test>"
        msg.set_content(body)
        handle_one(self.db, bytes(msg), at, "judge@judge.test", 1000)

    def deadline(self) -> None:
        from judge.game import service

        self.now += timedelta(seconds=self.seconds + 1)
        self.game_phases += len(service.tick(self.db, self.now))
        self.upkeep(self.now)

    def upkeep(self, at: datetime) -> None:
        """Every queued mail sent, and the daemon's pruning for each day of the clock up to ``at``."""
        from judge.store import write
        from judge.store.upkeep import prune

        with write(self.db):
            self.db.execute(
                "update outbox set status = 'sent', sent_at = ? where status = 'queued'",
                [at.strftime("%Y-%m-%dT%H:%M:%SZ")],
            )
        while self.last_prune + timedelta(days=1) <= at:
            self.last_prune += timedelta(days=1)
            prune(self.db, self.last_prune, picture_days=self.picture_days)

    def sample(self) -> dict[str, Any]:
        from judge.store.upkeep import table_sizes

        self.db.execute("pragma wal_checkpoint(truncate)")
        return {
            "game_phases": self.game_phases,
            "tables": {t: size for t, _, size in table_sizes(self.db)},
            "file": self.path.stat().st_size,
        }


def _report(
    args: argparse.Namespace, host: Host, samples: dict[str, dict[str, Any]], wall: float, cpu: float
) -> dict[str, Any]:
    from judge.store.upkeep import expected_sizes

    a, b = samples["warmup"], samples["end"]
    measured = b["game_phases"] - a["game_phases"]
    grown = {t: b["tables"].get(t, 0) - a["tables"].get(t, 0) for t in b["tables"]}
    for_ever = sum(v for t, v in grown.items() if t not in BOUNDED)
    held = sum(b["tables"].get(t, 0) for t in BOUNDED)
    per_year = 100 * 365 / args.phase_days  # game-phases of 100 games in a year
    year_bytes = per_year * for_ever / measured + 100 * held / args.games
    stats = expected_sizes(host.db, host.now, days=30, picture_days=args.picture_days).as_dict()
    png = host.db.execute("select avg(length(png)) from pictures").fetchone()[0]
    report = {
        "games": args.games,
        "phases_per_game": args.phases,
        "phase_days": args.phase_days,
        "picture_days": args.picture_days,
        "games_played": host.games,
        "mails_in": host.mails_in,
        "mails_out": int(host.db.execute("select count(*) from mail_log").fetchone()[0])
        + int(host.db.execute("select count(*) from outbox").fetchone()[0]),
        "game_phases_measured": measured,
        "seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "kept_for_ever_per_game_phase_bytes": round(for_ever / measured),
        "kept_for_ever_per_table_per_game_phase": {
            t: round(v / measured) for t, v in sorted(grown.items()) if v and t not in BOUNDED
        },
        "held_per_game_at_steady_state_bytes": round(held / args.games),
        "held_per_table_per_game": {t: round(b["tables"].get(t, 0) / args.games) for t in BOUNDED},
        "picture_png_mean_bytes": round(png) if png else None,
        "file_bytes_at_end": b["file"],
        "file_grew_per_game_phase_bytes": round((b["file"] - a["file"]) / measured),
        "hundred_games_one_year": {
            "game_phases": round(per_year),
            "kept_for_ever_mb": round(per_year * for_ever / measured / 1e6, 1),
            "held_by_retention_mb": round(100 * held / args.games / 1e6, 1),
            "total_mb": round(year_bytes / 1e6, 1),
        },
        "db_stats_estimate_at_end": {
            "phases_per_day": stats["phases_per_day"],
            "mails_per_day": stats["mails_per_day"],
            "per_phase_bytes": stats["per_phase_bytes"],
            "steady_state_bytes": stats["steady_state_bytes"],
        },
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    return report


def _address(power: str, game: int) -> str:
    return f"{power.lower()}.{game}@players.test"


if __name__ == "__main__":
    sys.exit(main())
