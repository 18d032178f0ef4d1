#!/usr/bin/env python3
"""The public archive after a deadline wave: every game adjudicated at once, its pages written as `judge serve`
writes them, five games a round (judge.transport.daemon.WEB_GAMES) until none is left behind.

    python bench/wave.py --games 1000 --dir /tmp/wave      # the wave itself: its database is kept
    python bench/archive_wave.py /tmp/wave/wave.db /tmp/wave/web

It times each round (`judge.web.archive.refresh` with the daemon's memory of the marks written), the whole archive,
and a round once nothing is new (the one query a round costs a daemon with `[web] dir`), and prints one JSON object:
games, rounds, total_s, round_median_s, round_p95_s, round_max_s, idle_round_ms, peak_rss_mb, archive_mb.
The database is changed only by what the archive records (nothing: it reads); run it on a copy to run it again.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import judge.wiring  # noqa: F401 - the game server's variant loader
from judge.store import open_db
from judge.transport.daemon import WEB_GAMES
from judge.web.archive import Written, refresh


def main() -> int:
    db, web = open_db(sys.argv[1]), Path(sys.argv[2])
    memo = Written()
    rounds: list[float] = []
    games = 0
    started = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        done = refresh(db, web, limit=WEB_GAMES, written=memo)
        if not done:
            break
        rounds.append(time.perf_counter() - t0)
        games += len(done)
    total = time.perf_counter() - started
    t0 = time.perf_counter()
    refresh(db, web, limit=WEB_GAMES, written=memo)
    idle = time.perf_counter() - t0
    rounds.sort()
    size = sum(f.stat().st_size for f in web.rglob("*") if f.is_file())
    print(
        json.dumps(
            {
                "games": games,
                "rounds": len(rounds),
                "total_s": round(total, 1),
                "round_median_s": round(rounds[len(rounds) // 2], 3) if rounds else None,
                "round_p95_s": round(rounds[int(len(rounds) * 0.95)], 3) if rounds else None,
                "round_max_s": round(rounds[-1], 3) if rounds else None,
                "idle_round_ms": round(idle * 1000, 2),
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
                "archive_mb": round(size / 1e6, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
