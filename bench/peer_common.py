"""The timing loop the peer scripts share (stdlib only: it runs inside each peer's throwaway virtualenv).

A peer script supplies three functions: ``prepare(record)`` builds the engine's position and orders for one corpus
line (not timed), ``adjudicate(state)`` runs the engine (timed) and ``board(state, result)`` gives the units after,
per power, as the corpus writes them. ``main`` prints one JSON object; whatever the engine prints goes to stderr.
"""

import argparse
import contextlib
import gc
import json
import statistics
import sys
import time


def expected_board(record):
    return {power: set(units) for power, units in record["after"].items() if units}


def percentile(values, q):
    """Nearest-rank percentile, as bench/replay.py computes it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_corpus(records, repeat, prepare, adjudicate, board):
    """(per-phase median ms over `repeat` rounds, number of phases agreeing with `after`).

    Each round visits every phase once, so a burst of noise on the machine lands on one round of
    many phases rather than on every round of a few.  Only `adjudicate` is timed."""
    samples = [[] for _ in records]
    agree = [False] * len(records)
    gc.collect()
    for _ in range(repeat):
        for index, record in enumerate(records):
            state = prepare(record)
            start = time.perf_counter()
            result = adjudicate(state)
            samples[index].append((time.perf_counter() - start) * 1000.0)
            agree[index] = board(state, result) == expected_board(record)
    return [statistics.median(times) for times in samples], sum(agree)


def main(engine, version, description, prepare, adjudicate, board):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("corpus", help="JSON-lines corpus of movement phases")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per phase (median kept)")
    parser.add_argument("--limit", type=int, default=None, help="only the first K phases")
    args = parser.parse_args()

    with open(args.corpus, encoding="utf-8") as corpus:
        records = [json.loads(line) for line in corpus if line.strip()]
    if args.limit is not None:
        records = records[: args.limit]

    repeat = max(1, args.repeat)
    with contextlib.redirect_stdout(sys.stderr):
        per_phase, agree = time_corpus(records, repeat, prepare, adjudicate, board)

    print(
        json.dumps(
            {
                "engine": engine,
                "version": version,
                "phases": len(records),
                "repeat": repeat,
                "agree": agree,
                "median_ms": round(statistics.median(per_phase), 4),
                "p90_ms": round(percentile(per_phase, 0.9), 4),
                "mean_ms": round(statistics.fmean(per_phase), 4),
                "per_phase_ms": [round(ms, 4) for ms in per_phase],
            }
        )
    )
