"""Replay the movement-phase corpus through judge's adjudicator: speed, agreement, memory; optionally against peers.

    python3 bench/replay.py [CORPUS] [--repeat N] [--peer] [--out FILE]

CORPUS defaults to ../shared/bench/corpus_movement.jsonl (next to the checkout), else the copy in tests/data. Each
phase is built from scratch (position, parsed and checked orders) outside the timed region; only
``adjudicate_movement`` — typed orders in, resolved board out — is timed with ``time.perf_counter``, ``--repeat``
times per phase (the per-phase figure is the median of those). The whole path from order text to results (parsing,
legality, adjudication, the next position) is timed separately. With ``--peer`` the same corpus is replayed in the
same run by ``diplomacy`` 1.1.2 and ``pydip`` 0.1.8, each installed into its own throwaway virtualenv (never a
dependency of this project).

Reading the corpus: it was written by ``diplomacy`` 1.1.2, whose order language ignores a coast in a support
(``F RUM S F CON - BUL/SC`` supports any move to Bulgaria) and whose boards omit a dislodged unit that has no retreat.
The replay reads the corpus that way; the judge itself requires a support's coast to match (DATC 6.B.9).
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from peer_common import percentile  # noqa: E402  (the same percentile the peers report)

import judge.wiring  # noqa: E402, F401  (read_position loads the variant through the game server's port)
from judge.data.catalog import load_variant  # noqa: E402
from judge.game.sandbox import read_position  # noqa: E402
from judge.rules.board import Position  # noqa: E402
from judge.rules.edition import RulesEdition  # noqa: E402
from judge.rules.legality import check_movement, retreat_options, unconvoyable_moves  # noqa: E402
from judge.rules.movement import MovementResult, adjudicate_movement  # noqa: E402
from judge.rules.orders import UnitOrder  # noqa: E402
from judge.rules.turn import parse_submissions, play  # noqa: E402
from judge.rules.variant import Variant  # noqa: E402

SHARED_CORPUS = ROOT.parent / "shared" / "bench" / "corpus_movement.jsonl"
DEFAULT_CORPUS = SHARED_CORPUS if SHARED_CORPUS.is_file() else ROOT / "tests" / "data" / "corpus_movement.jsonl"
PEERS = {"diplomacy": ("diplomacy==1.1.2", "peer_diplomacy.py"), "pydip": ("pydip==0.1.8", "peer_pydip.py")}
BUCKETS = ((20, 23), (24, 27), (28, 31), (32, 35))
_SUPPORT_COAST = re.compile(r"^(.* S .*)/[NSEW]C$")


@dataclass
class Case:
    line: dict[str, Any]
    position: Position
    orders: dict[int, UnitOrder]  # checked, typed orders by unit province
    texts: dict[str, list[str]]  # the corpus's order lines by power
    unit_count: int


def corpus_texts(variant: Variant, orders: dict[str, list[str]]) -> dict[str, list[str]]:
    """The corpus's order lines, with support coasts dropped (diplomacy's notation, see the module doc)."""
    return {variant.power_named(p) or p: [_SUPPORT_COAST.sub(r"\1", o) for o in lines] for p, lines in orders.items()}


def prepare(variant: Variant, line: dict[str, Any]) -> Case:
    _, pos = read_position(
        {"variant": variant.key, "phase": line["phase"], "units": line["units"], "supply_centers": {}}
    )
    texts = corpus_texts(variant, line["orders"])
    geo = variant.geo
    orders: dict[int, UnitOrder] = {}
    for sub in parse_submissions(variant, pos.phase.step, texts):
        checked = check_movement(geo, pos, sub.power, sub.order, RulesEdition.Y2000)  # type: ignore[arg-type]
        if not isinstance(checked, str):
            orders[geo.loc_province[checked.loc]] = checked
    for prov in unconvoyable_moves(geo, pos, orders):
        del orders[prov]
    return Case(line, pos, orders, texts, len(pos.units))


def board_after(variant: Variant, case: Case, result: MovementResult) -> dict[str, set[str]]:
    """The result as the corpus writes it: units, and ``*``-marked dislodged units that have a retreat."""
    geo = variant.geo
    after = Position(case.position.phase, result.units, {}, result.dislodged, result.standoffs)
    out: dict[str, set[str]] = {}
    for unit in result.units.values():
        out.setdefault(unit.power.upper(), set()).add(f"{unit.kind.value} {geo.loc_names[unit.loc]}".upper())
    for prov, dis in result.dislodged.items():
        if retreat_options(geo, after, prov):
            out.setdefault(dis.unit.power.upper(), set()).add(
                f"*{dis.unit.kind.value} {geo.loc_names[dis.unit.loc]}".upper()
            )
    return out


def expected(line: dict[str, Any]) -> dict[str, set[str]]:
    return {p.upper(): set(units) for p, units in line["after"].items() if units}


def time_adjudication(variant: Variant, cases: list[Case], repeat: int) -> tuple[list[float], int]:
    """Median ms per phase over ``repeat`` rounds; each round visits every phase once, so a burst of noise on the
    machine lands on one round of many phases instead of on every round of a few."""
    geo = variant.geo
    samples: list[list[float]] = [[] for _ in cases]
    clock = time.perf_counter
    gc.collect()
    for _ in range(repeat):
        for case, times in zip(cases, samples, strict=True):
            units, orders = case.position.units, case.orders
            start = clock()
            adjudicate_movement(geo, units, orders, RulesEdition.Y2000)
            times.append(clock() - start)
    agree = sum(
        board_after(variant, case, adjudicate_movement(geo, case.position.units, case.orders, RulesEdition.Y2000))
        == expected(case.line)
        for case in cases
    )
    return [statistics.median(t) * 1000 for t in samples], agree


def time_full_path(variant: Variant, cases: list[Case], repeat: int) -> list[float]:
    """From order text to the next position: parse, check, adjudicate, advance."""
    samples: list[list[float]] = [[] for _ in cases]
    clock = time.perf_counter
    for _ in range(repeat):
        for case, times in zip(cases, samples, strict=True):
            start = clock()
            play(variant, case.position, parse_submissions(variant, case.position.phase.step, case.texts))
            times.append(clock() - start)
    return [statistics.median(t) * 1000 for t in samples]


def summary(per_phase: list[float]) -> dict[str, float]:
    mean = statistics.fmean(per_phase)
    return {
        "median_ms": round(statistics.median(per_phase), 4),
        "p90_ms": round(percentile(per_phase, 0.9), 4),
        "mean_ms": round(mean, 4),
        "phases_per_s": round(1000 / mean, 1),
    }


def by_bucket(cases: list[Case], per_phase: list[float]) -> list[dict[str, Any]]:
    rows = []
    for low, high in BUCKETS:
        picked = [(c.unit_count, t) for c, t in zip(cases, per_phase, strict=True) if low <= c.unit_count <= high]
        if not picked:
            continue
        med = statistics.median(t for _, t in picked)
        units = statistics.median(n for n, _ in picked)
        rows.append(
            {
                "units": f"{low}-{high}",
                "phases": len(picked),
                "median_ms": round(med, 4),
                "us_per_unit": round(med * 1000 / units, 2),
            }
        )
    return rows


def run_peer(name: str, corpus: Path, repeat: int) -> dict[str, Any]:
    package, script = PEERS[name]
    with tempfile.TemporaryDirectory(prefix=f"judge-peer-{name}-") as tmp:
        env_dir = Path(tmp) / "venv"
        venv.EnvBuilder(with_pip=True).create(env_dir)
        started = time.perf_counter()
        install = subprocess.run(
            [str(env_dir / "bin" / "pip"), "install", "--quiet", package], capture_output=True, text=True
        )
        if install.returncode != 0:
            return {"engine": name, "error": f"pip install {package} failed: {install.stderr.strip()[-500:]}"}
        installed_s = time.perf_counter() - started
        done = subprocess.run(
            [
                str(env_dir / "bin" / "python"),
                str(Path(__file__).parent / script),
                str(corpus),
                "--repeat",
                str(repeat),
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            return {"engine": name, "error": done.stderr.strip()[-1000:]}
        report = json.loads(done.stdout)
        report["install_s"] = round(installed_s, 1)
        report.pop("per_phase_ms", None)
        return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=25, help="timed runs per phase (the median counts)")
    parser.add_argument("--full-repeat", type=int, default=5, help="timed runs per phase of the whole path")
    parser.add_argument("--peer", action="store_true", help="also replay with diplomacy 1.1.2 and pydip 0.1.8")
    parser.add_argument("--peer-repeat", type=int, default=5, help="timed runs per phase for the peers")
    parser.add_argument("--out", type=Path, help="also write the JSON report to this file")
    args = parser.parse_args(argv)

    variant = load_variant("classic")
    lines = [json.loads(x) for x in args.corpus.read_text().splitlines() if x.strip()]
    cases = [prepare(variant, line) for line in lines]
    per_phase, agree = time_adjudication(variant, cases, args.repeat)
    full = time_full_path(variant, cases, args.full_repeat)
    report: dict[str, Any] = {
        "corpus": str(args.corpus),
        "phases": len(cases),
        "repeat": args.repeat,
        "python": sys.version.split()[0],
        "adjudication": summary(per_phase),
        "agree": agree,
        "full_path": summary(full),
        "by_units": by_bucket(cases, per_phase),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    if args.peer:
        peers = {name: run_peer(name, args.corpus, args.peer_repeat) for name in PEERS}
        for peer in peers.values():
            if "median_ms" in peer:
                peer["judge_speedup"] = round(peer["median_ms"] / report["adjudication"]["median_ms"], 1)
        report["peers"] = peers
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0 if agree == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
