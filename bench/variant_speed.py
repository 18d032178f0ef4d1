"""Adjudication speed of a Chaos phase (34 powers) against a classic phase (issue 21: "within 3x a classic phase").

    python bench/variant_speed.py [--games 6] [--years 6] [--from-year 1903] [--repeat 15]

Both variants are played forward by the rules engine alone, every power by the stand-in bot
(``judge.bots.standin.orders_for``, seeded: game ``g`` uses seeds ``g`` per power), from their first phase to the
Fall of ``1900 + years``, the bot ordering every unit. The movement phases from ``--from-year`` on are kept with the
bot's typed orders: mid-game positions (Chaos: ~30 units of up to 34 powers; classic: ~22 units of 7).

Each kept phase is then timed, outside any set-up, two ways, with ``time.perf_counter``, ``--repeat`` rounds; each
round visits every phase once (so a burst of noise lands on one round of many phases), and a phase's figure is the
median of its rounds:

- ``phase``: ``judge.rules.turn.play`` with the typed orders, as the game server adjudicates a deadline (every order
  checked, the orders resolved, the next position with its standoffs, retreats or adjustments due, and the victory
  check);
- ``adjudication``: ``judge.rules.movement.adjudicate_movement`` alone, on the orders already checked.

The winters (adjustment phases) of the same years are timed too with ``play`` (``adjustment``: Chaos builds in any
owned centre), for comparison. The report (JSON on standard output) gives per variant the phases timed, the units
and the powers with units of its movement phases (median), the median and 90th percentile of the per-phase figures
in milliseconds, and ``chaos_over_classic``: the ratio of the medians. The target is a ``phase`` ratio of at most 3.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judge.bots.standin import orders_for  # noqa: E402
from judge.data.catalog import load_variant  # noqa: E402
from judge.rules.board import Position  # noqa: E402
from judge.rules.edition import RulesEdition  # noqa: E402
from judge.rules.legality import check_movement, unconvoyable_moves  # noqa: E402
from judge.rules.movement import adjudicate_movement  # noqa: E402
from judge.rules.orders import UnitOrder  # noqa: E402
from judge.rules.phase import Season, Step  # noqa: E402
from judge.rules.turn import Submitted, play  # noqa: E402
from judge.rules.variant import Variant  # noqa: E402


@dataclass(frozen=True)
class Phase:
    position: Position
    submitted: list[Submitted]  # the bot's typed orders, as the server passes them to ``play``
    checked: dict[int, UnitOrder]  # the same, checked, by unit province (for ``adjudicate_movement``)


def played_phases(variant: Variant, games: int, last_year: int, from_year: int) -> list[Phase]:
    """The movement and adjustment phases from ``from_year`` to ``last_year`` of ``games`` bot games of
    ``variant``."""
    kept: list[Phase] = []
    for game in range(games):
        pos = variant.start_position()
        while pos.phase.year <= last_year:
            powers = sorted({u.power for u in pos.units.values()} | set(pos.owners.values()))
            submitted = [
                Submitted(power, None, order)
                for power in powers
                if power in variant.powers
                for order in orders_for(variant, pos, power, game)
            ]
            if pos.phase.year >= from_year and pos.phase.step is not Step.RETREAT:
                movement = pos.phase.step is Step.MOVEMENT
                kept.append(Phase(pos, submitted, _checked(variant, pos, submitted) if movement else {}))
            turn = play(variant, pos, submitted)
            if turn.winner is not None or turn.draw:
                break
            if pos.phase.year == last_year and pos.phase.season is Season.FALL and pos.phase.step is Step.MOVEMENT:
                break
            pos = turn.position
    return kept


def _checked(variant: Variant, pos: Position, submitted: list[Submitted]) -> dict[int, UnitOrder]:
    geo = variant.geo
    orders: dict[int, UnitOrder] = {}
    for sub in submitted:
        checked = check_movement(geo, pos, sub.power, sub.order, RulesEdition.Y2000)  # type: ignore[arg-type]
        if not isinstance(checked, str):
            orders[geo.loc_province[checked.loc]] = checked
    for prov in unconvoyable_moves(geo, pos, orders):
        del orders[prov]
    return orders


def timed(variant: Variant, phases: list[Phase], repeat: int) -> dict[str, list[float]]:
    """Per phase, the median ms of ``play`` (and for a movement phase of ``adjudicate_movement``) over ``repeat``
    rounds: ``phase`` and ``adjudication`` for the movement phases, ``adjustment`` for the winters."""
    geo = variant.geo
    whole: list[list[float]] = [[] for _ in phases]
    alone: list[list[float]] = [[] for _ in phases]
    clock = time.perf_counter
    gc.collect()
    for _ in range(repeat):
        for phase, w, a in zip(phases, whole, alone, strict=True):
            start = clock()
            play(variant, phase.position, phase.submitted)
            w.append(clock() - start)
            if phase.position.phase.step is Step.MOVEMENT:
                start = clock()
                adjudicate_movement(geo, phase.position.units, phase.checked, RulesEdition.Y2000)
                a.append(clock() - start)
    moving = [p.position.phase.step is Step.MOVEMENT for p in phases]
    return {
        "phase": [statistics.median(t) * 1000 for t, m in zip(whole, moving, strict=True) if m],
        "adjudication": [statistics.median(t) * 1000 for t, m in zip(alone, moving, strict=True) if m],
        "adjustment": [statistics.median(t) * 1000 for t, m in zip(whole, moving, strict=True) if not m],
    }


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_ms": round(statistics.median(ordered), 4),
        "p90_ms": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 4),
    }


def measure(name: str, games: int, years: int, from_year: int, repeat: int) -> dict[str, Any]:
    variant = load_variant(name)
    phases = played_phases(variant, games, 1900 + years, from_year)
    figures = timed(variant, phases, repeat)
    moving = [p for p in phases if p.position.phase.step is Step.MOVEMENT]
    return {
        "variant": name,
        "movement_phases": len(moving),
        "adjustment_phases": len(phases) - len(moving),
        "units_median": statistics.median(len(p.position.units) for p in moving),
        "powers_with_units_median": statistics.median(
            len({u.power for u in p.position.units.values()}) for p in moving
        ),
        "phase": _summary(figures["phase"]),
        "adjudication": _summary(figures["adjudication"]),
        "adjustment": _summary(figures["adjustment"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=6, help="bot games per variant (default 6)")
    parser.add_argument("--years", type=int, default=6, help="played to the Fall of 1900 + YEARS (default 6)")
    parser.add_argument("--from-year", type=int, default=1903, help="movement phases kept from this year (1903)")
    parser.add_argument("--repeat", type=int, default=15, help="rounds over every kept phase (default 15)")
    args = parser.parse_args(argv)
    classic = measure("classic", args.games, args.years, args.from_year, args.repeat)
    chaos = measure("chaos", args.games, args.years, args.from_year, args.repeat)
    report = {
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "arguments": vars(args),
        "classic": classic,
        "chaos": chaos,
        "chaos_over_classic": {
            key: round(chaos[key]["median_ms"] / classic[key]["median_ms"], 2)
            for key in ("phase", "adjudication", "adjustment")
        },
        "target": "chaos_over_classic.phase <= 3",
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
