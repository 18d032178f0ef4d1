"""A Fog of War deadline wave against the classic one: N games of each (7 players, random legal orders, deadlines
passed), adjudicated by the daemon's ``deadline_chunk`` with every report queued and every picture drawn, in
separate processes (bench/wave.py's stages ``setup`` and ``wave``), the two variants alternated ``--rounds`` times.

    python bench/fog_wave.py                 # 200 games of each, 3 rounds
    python bench/fog_wave.py --games 50 --rounds 1

A classic phase draws one picture per language (here one: every player reads English); a Fog of War phase draws
each power's own picture (7) and the game master's (none here: the games have no master). The target (issue 21):
the fog wave's time per game within 3x the classic wave's. Wall time is what the players wait for; the wave
process's own CPU time (``cpu_ms_per_game``) is reported too, as it is less moved by other work on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WAVE = str(Path(__file__).with_name("wave.py"))


def _stage(name: str, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, WAVE, "--stage", name, *args], capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def one(variant: str, games: int, folder: Path) -> dict[str, Any]:
    db = str(folder / f"{variant}.db")
    if os.path.exists(db):
        os.remove(db)
    _stage("setup", "--db", db, "--games", str(games), "--variant", variant)
    wave = _stage("wave", "--db", db)
    os.remove(db)
    return {
        "wave_s": wave["wave_s"],
        "ms_per_game": round(1000 * wave["wave_s"] / games, 1),
        "cpu_ms_per_game": round(1000 * wave["cpu_s"] / games, 1),
        "map_s": wave["map_s"],
        "pictures": wave["pictures"],
        "queued": wave["queued"],
        "peak_rss_mb": wave["peak_rss_mb"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="judge-fog-wave-"))
    runs: dict[str, list[dict[str, Any]]] = {"classic": [], "fog_of_war": []}
    load = [round(os.getloadavg()[0], 2)]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for _ in range(args.rounds):
        for variant in runs:
            runs[variant].append(one(variant, args.games, folder))
            load.append(round(os.getloadavg()[0], 2))
    median = {v: statistics.median(r["ms_per_game"] for r in rs) for v, rs in runs.items()}
    cpu = {v: statistics.median(r["cpu_ms_per_game"] for r in rs) for v, rs in runs.items()}
    pairs = [
        round(f["ms_per_game"] / c["ms_per_game"], 2) for c, f in zip(runs["classic"], runs["fog_of_war"], strict=True)
    ]
    report = {
        "started": started,
        "games": args.games,
        "runs": runs,
        "median_ms_per_game": median,
        "ratio": round(median["fog_of_war"] / median["classic"], 2),
        "ratio_per_round": pairs,  # each round's fog run against the classic run just before it
        "median_cpu_ms_per_game": cpu,
        "cpu_ratio": round(cpu["fog_of_war"] / cpu["classic"], 2),
        "target_ratio": 3.0,
        "load_average": load,
        "cores": os.cpu_count(),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
