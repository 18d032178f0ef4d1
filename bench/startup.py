"""Start-up time of the ``judge`` command: each command run as its own process, timed from outside.

    python3 bench/startup.py                 # the commands below, 15 runs each, in a scratch folder
    python3 bench/startup.py --runs 30 --python .venv/bin/python

Every run is a fresh interpreter (``python -m judge.cli ...``), so the figure is what a host or a script waits for:
the interpreter's own start, the imports, the configuration and the database opened, the work, the exit. The wall
time is ``time.perf_counter`` around ``subprocess.run``; the CPU time (user + system) is the children's from
``resource.getrusage`` and tells a slow import from a busy machine. The report gives the median and the best of
the runs per command, and the bare interpreter (``python -c pass``) for the floor. The database is made once,
outside the timing: a game created, seven players joined and started, so ``game show`` reads a real game.

Bytecode is cached as an installed judge has it (pip compiles it at install): the children run without
``PYTHONDONTWRITEBYTECODE``, and one untimed run per command writes the ``.pyc`` files. ``--checkout PATH`` measures
another checkout of the judge with the same interpreter and libraries (put first on ``PYTHONPATH``), e.g. main's
for the figures before a change.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "judge --version": ["-m", "judge.cli", "--version"],
    "judge game show": ["-m", "judge.cli", "game", "show", "bench"],
    "judge outbox list": ["-m", "judge.cli", "outbox", "list", "--status", "queued"],
}


def _run(python: str, argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([python, *argv], env=env, cwd=cwd, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr.decode(errors='replace').strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _setup(python: str, env: dict[str, str], cwd: Path) -> None:
    def judge(*argv: str, stdin: bytes = b"") -> None:
        cmd = [python, "-m", "judge.cli", *argv, "--now", "2026-12-01T00:00:00Z"]
        subprocess.run(cmd, env=env, cwd=cwd, check=True, capture_output=True, input=stdin)

    judge("game", "create", "bench", "--assign", "random")
    for n in range(7):
        judge("game", "join", "bench", "--email", f"p{n}@example.org", "--password-file", "-", stdin=b"secret-pw\n")
    judge("game", "start", "bench", "--seed", "1")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--python", default=sys.executable, help="the interpreter whose judge is measured")
    ap.add_argument("--checkout", default=None, help="measure the judge of this checkout (default: the installed one)")
    args = ap.parse_args()
    args.python = os.path.abspath(args.python) if os.sep in args.python else args.python
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        env = {**os.environ, "JUDGE_DB": str(cwd / "judge.db")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if args.checkout:
            env["PYTHONPATH"] = os.path.abspath(args.checkout)
        _setup(args.python, env, cwd)
        load = os.getloadavg()[0]
        print(f"{'command':<20} {'median ms':>10} {'best ms':>8} {'cpu ms':>7}   ({args.runs} runs, load {load:.2f})")
        for label, argv in COMMANDS.items():
            _run(args.python, argv, env, cwd)  # warm the file cache and the .pyc files once
            samples = [_run(args.python, argv, env, cwd) for _ in range(args.runs)]
            walls = [w * 1000 for w, _ in samples]
            cpus = [c * 1000 for _, c in samples]
            print(f"{label:<20} {statistics.median(walls):>10.0f} {min(walls):>8.0f} {statistics.median(cpus):>7.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
