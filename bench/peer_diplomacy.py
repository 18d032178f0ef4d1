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

import peer_common
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


if __name__ == "__main__":
    peer_common.main(
        ENGINE,
        VERSION,
        __doc__.split("\n")[0],
        build_game,
        lambda game: game.process(),
        lambda game, _result: board(game),
    )
