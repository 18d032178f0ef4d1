#!/usr/bin/env python3
"""Peer benchmark: time the `diplomacy` PyPI package (1.1.2) on the shared movement corpus.

What it measures
    For every corpus line (one movement phase of the classic map) the script builds a fresh
    `diplomacy.Game` holding exactly that position and those orders, then times ONE call of
    `game.process()` with time.perf_counter.  Building the game (phase, units, centres, orders)
    happens outside the timed region.  process() mutates the game, so each repetition starts
    from a freshly built game.  The corpus is replayed N times over (each round visits every
    phase once); per phase the median of its N times is kept, and the summary gives the median,
    90th percentile (nearest rank) and mean of those per-phase times.

    It also checks the result: the units after process() (dislodged ones with a leading `*`,
    as `Game.get_units()` writes them) are compared per power, as sets, with the corpus `after`;
    `agree` counts the phases where every power matches.

How to run (inside a virtualenv holding only this package, stdlib otherwise)
    python3 -m venv /tmp/peer-diplomacy
    /tmp/peer-diplomacy/bin/pip install diplomacy==1.1.2
    /tmp/peer-diplomacy/bin/python bench/peer_diplomacy.py CORPUS.jsonl [--repeat N] [--limit K]

Output: one JSON object on stdout (anything the engine prints is sent to stderr):
    {"engine", "version", "phases", "repeat", "agree", "median_ms", "p90_ms", "mean_ms",
     "per_phase_ms": [one number per phase, in corpus order]}
"""
import argparse
import contextlib
import gc
import json
import statistics
import sys
import time

from diplomacy import Game

ENGINE = "diplomacy"
VERSION = "1.1.2"


def build_game(record):
    """A new Game at the record's phase, with only its units and its orders set."""
    game = Game()
    game.clear_units()
    # Supply centres play no part in a movement adjudication.  Clearing them keeps process()
    # from ending the game on a spurious victory when it moves on towards the winter phase.
    game.clear_centers()
    game.set_current_phase(record["phase"])
    for power, units in record["units"].items():
        game.set_units(power, units, reset=True)
    for power, orders in record["orders"].items():
        game.set_orders(power, orders)
    return game


def board(game):
    """power -> set of units, dislodged ones written `*A PAR`; powers without units left out."""
    return {power: set(units) for power, units in game.get_units().items() if units}


def expected_board(record):
    return {power: set(units) for power, units in record["after"].items() if units}


def time_corpus(records, repeat):
    """(per-phase median ms over `repeat` rounds, number of phases agreeing with `after`).

    Each round visits every phase once, so a burst of noise on the machine lands on one round of
    many phases rather than on every round of a few.  Only `game.process()` is timed."""
    samples = [[] for _ in records]
    agree = [False] * len(records)
    gc.collect()
    for _ in range(repeat):
        for index, record in enumerate(records):
            game = build_game(record)
            start = time.perf_counter()
            game.process()
            samples[index].append((time.perf_counter() - start) * 1000.0)
            agree[index] = board(game) == expected_board(record)
    return [statistics.median(times) for times in samples], sum(agree)


def percentile(values, q):
    """Nearest-rank percentile, as bench/replay.py computes it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", help="JSON-lines corpus of movement phases")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per phase (median kept)")
    parser.add_argument("--limit", type=int, default=None, help="only the first K phases")
    args = parser.parse_args()

    with open(args.corpus, encoding="utf-8") as corpus:
        records = [json.loads(line) for line in corpus if line.strip()]
    if args.limit is not None:
        records = records[: args.limit]

    repeat = max(1, args.repeat)
    # Keep stdout for the JSON result alone: whatever the engine prints goes to stderr.
    with contextlib.redirect_stdout(sys.stderr):
        per_phase, agree = time_corpus(records, repeat)

    print(json.dumps({
        "engine": ENGINE,
        "version": VERSION,
        "phases": len(records),
        "repeat": repeat,
        "agree": agree,
        "median_ms": round(statistics.median(per_phase), 4),
        "p90_ms": round(percentile(per_phase, 0.9), 4),
        "mean_ms": round(statistics.fmean(per_phase), 4),
        "per_phase_ms": [round(ms, 4) for ms in per_phase],
    }))


if __name__ == "__main__":
    main()
