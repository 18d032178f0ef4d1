"""How strong the stand-in bot is: seeded classic games, one seat played by the bot, a holder or a random legal
player, the six others by random legal players; the seat rotates over the seven powers.

    python bench/bots.py [--games 210] [--until 1910] [--seed 1] [--opponents random bot]

Every game is played by the rules engine alone (``judge.rules.turn.play``), orders typed as the game server keeps
them. The players:

- **bot**: ``judge.bots.standin.orders_for`` (seeded by the game);
- **holder**: holds every unit, never retreats (its dislodged units disband), never builds; its removals are left
  to the rules' civil disorder;
- **random**: the demo's players (``judge.cli.demo.choose_orders``): each unit moves to a random neighbour three
  times in four, else holds; retreats to a random free province; builds armies in free home centres.

A second table puts the same three seats against six bots (``--opponents bot``): what the seat keeps against
opponents that play like the stand-in. A game ends early at a solo (the centres then count).

Reported per seat kind: the mean supply centres of the seat after the Fall of ``--until`` (after its retreats, the
centres counted at the Winter), a 95% confidence interval (mean ± 1.96 standard errors), the share of games where
the seat was eliminated, and the time the bot takes per decision (one power, one phase: median, 99th percentile,
maximum; every decision the bot made, with ``time.perf_counter``).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time

KINDS = ("bot", "holder", "random")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=210, help="games per seat kind (a multiple of 7 rotates evenly)")
    parser.add_argument("--until", type=int, default=1910, help="count centres after the Fall of this year")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opponents", nargs="+", choices=("random", "bot"), default=["random", "bot"])
    args = parser.parse_args()
    from judge.data.catalog import load_variant

    variant = load_variant("classic")
    started = time.process_time()
    timings: list[float] = []
    print(f"classic, {args.games} games per row, centres of the seat after the Fall of {args.until}")
    print(f"(the seat rotates over the 7 powers; seed {args.seed})")
    print()
    print("| seat played by | the six others | games | mean centres | 95% CI | solos | eliminated |")
    print("|---|---|---|---|---|---|---|")
    for others in args.opponents:
        for kind in KINDS:
            counts = []
            for game in range(args.games):
                seat = variant.powers[game % len(variant.powers)]
                seed = args.seed * 100_000 + game
                counts.append(play_game(variant, kind, seat, others, seed, args.until, timings))
            mean = statistics.fmean(counts)
            half = 1.96 * statistics.stdev(counts) / math.sqrt(len(counts))
            solo = sum(1 for c in counts if c >= variant.solo_threshold(args.until)) / len(counts)
            out = sum(1 for c in counts if c == 0) / len(counts)
            print(
                f"| {kind} | {others} | {len(counts)} | {mean:.2f} | {mean - half:.2f} – {mean + half:.2f} "
                f"| {solo:.0%} | {out:.0%} |",
                flush=True,
            )
    cpu = time.process_time() - started
    timings.sort()
    p99 = timings[min(len(timings) - 1, int(0.99 * len(timings)))]
    print()
    print(
        f"bot decisions: {len(timings)}, median {statistics.median(timings) * 1000:.2f} ms, "
        f"99th percentile {p99 * 1000:.2f} ms, max {timings[-1] * 1000:.2f} ms per power and phase"
    )
    print(f"CPU time of the whole run: {cpu:.0f} s")
    return 0


def play_game(variant, kind: str, seat: str, others: str, seed: int, until: int, timings: list[float]) -> int:  # type: ignore[no-untyped-def]
    """Play one game to the Winter after the Fall of ``until`` (or its end) and return the seat's centres."""
    from judge.bots.standin import orders_for
    from judge.cli.demo import choose_orders
    from judge.rules.board import Position, Unit
    from judge.rules.orders import Hold
    from judge.rules.parse import parse_order
    from judge.rules.phase import Phase, Season, Step
    from judge.rules.turn import Submitted, play

    rng = random.Random(seed)
    units = {variant.geo.loc_province[s.loc]: Unit(s.power, s.kind, s.loc) for s in variant.start_units}
    pos = Position(Phase(variant.start_year, Season.SPRING, Step.MOVEMENT), units, variant.start_ownership())
    while pos.phase.year <= until:
        submitted: list[Submitted] = []
        for power in variant.powers:
            if (power == seat and kind == "bot") or (power != seat and others == "bot"):
                began = time.perf_counter()
                orders = orders_for(variant, pos, power, seed)
                timings.append(time.perf_counter() - began)
                submitted.extend(Submitted(power, None, o) for o in orders)
            elif power == seat and kind == "holder":
                if pos.phase.step is Step.MOVEMENT:
                    submitted.extend(Submitted(power, None, Hold(u.kind, u.loc)) for u in pos.units_of(power))
            else:
                for line in choose_orders(variant, pos, power, rng):
                    submitted.append(Submitted(power, line, parse_order(line, variant.geo, pos.phase.step)))
        result = play(variant, pos, submitted)
        pos = result.position
        if result.winner is not None:
            break
    return pos.centre_count(seat)


if __name__ == "__main__":
    sys.exit(main())
