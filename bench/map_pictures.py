"""Time and size of the map pictures: how long one picture takes to draw and encode, and how many bytes it is.

    python3 bench/map_pictures.py [--rounds 200]

For each variant with board geometry (classic, coldwar) three pictures are measured: the starting position (what
`judge map --variant` draws and the start mail could carry), a results picture (the board after a played Spring
movement phase with every order of it drawn, as a results mail carries it) and a busy results picture (a made-up
phase with units on nearly half the provinces, each moving, supporting or holding at random: the heaviest picture a
results mail is likely to carry); and a dislodged results picture (a phase with a unit dislodged by a supported
attack, supports and convoys: its dislodged unit placed on a free spot, labels moved off its lines). The first
call, which draws the
variant's kept base layer (areas, borders, labels), is timed on its own; then ``rounds`` pictures are drawn and
encoded (``render_map``: drawing + PNG), each timed with ``time.perf_counter`` (wall) and ``time.process_time``
(CPU: what the picture costs even while other processes share the cores), alternating languages (en, de, ru)
and titles so that nothing but the base layer and the font's glyphs is reused. The report gives the median and
90th percentile per picture in milliseconds, the bytes of each picture, and the whole wave: how long 1,000 games'
results pictures take (one per game and language in use).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from judge.data.catalog import load_variant
from judge.reports.maps import render_map
from judge.reports.maps.areas import _BASES
from judge.reports.maps.layout import _PLACES
from judge.rules.order_json import order_to_json
from judge.rules.orders import order_text
from judge.rules.position_json import position_from_json
from judge.rules.turn import parse_submissions, play

OPENINGS = {
    "classic": (
        {
            "England": ["F lon", "F edi", "A lvp"],
            "France": ["A par", "A mar", "F bre"],
            "Germany": ["A mun", "A ber", "F kie"],
            "Italy": ["A ven", "A rom", "F nap"],
            "Austria": ["A vie", "A bud", "F tri"],
            "Russia": ["A mos", "A war", "F sev", "F stp/sc"],
            "Turkey": ["A con", "A smy", "F ank"],
        },
        {
            "England": ["F lon - nth", "F edi - nwg", "A lvp - yor"],
            "France": ["A par - bur", "A mar S A par - bur", "F bre - mao"],
            "Germany": ["A mun - bur", "A ber - kie", "F kie - den"],
            "Italy": ["A ven - tyr", "A rom - ven", "F nap - ion"],
            "Austria": ["A vie - gal", "A bud - ser", "F tri - alb"],
            "Russia": ["A mos - ukr", "A war - gal", "F sev - bla", "F stp/sc - bot"],
            "Turkey": ["A con - bul", "A smy - con", "F ank - bla"],
        },
    ),
}


# A phase with a unit dislodged, supports and convoys (the same as tests/test_map_pieces.py's): where the dislodged
# unit stands is searched for, and labels are moved off the lines.
DISLODGING = {
    "classic": (
        {
            "phase": "F1901M",
            "units": {
                "Austria": ["A tyr", "F tri", "A ser"],
                "Italy": ["A ven", "A apu", "F ion"],
                "Germany": ["A mun", "A kie", "F den"],
                "France": ["A bur", "A spa", "F mao"],
                "England": ["F nth", "A yor", "F nwg"],
                "Russia": ["A ukr", "A gal", "F sev", "F bot"],
                "Turkey": ["A bul", "F bla", "A con"],
            },
        },
        {
            "Austria": ["A tyr - ven", "F tri S A tyr - ven", "A ser - gre"],
            "Italy": ["A ven H", "A apu - tun", "F ion C A apu - tun"],
            "Germany": ["A mun - bur", "A kie - hol", "F den - swe"],
            "France": ["A bur - bel", "A spa - por", "F mao S A spa - por"],
            "England": ["F nth C A yor - nwy", "A yor - nwy", "F nwg S A yor - nwy"],
            "Russia": ["A ukr - rum", "A gal S A ukr - rum", "F sev - bla", "F bot - swe"],
            "Turkey": ["A bul - rum", "F bla - sev", "A con - bul"],
        },
    ),
    "coldwar": (
        {
            "phase": "S1960M",
            "units": {
                "NATO": ["A ita", "F ion", "A lon", "F nts", "A par", "F ist"],
                "USSR": ["A yug", "F alb", "A wge", "A ukr", "F bla", "A mos"],
            },
        },
        {
            "NATO": ["A ita - yug", "F ion S A ita - yug", "A lon - den", "F nts C A lon - den", "A par - wge"],
            "USSR": ["A yug H", "F alb - grc", "A wge H", "A ukr - ist", "F bla S A ukr - ist", "A mos H"],
        },
    ),
}


def _dislodging(variant: Any) -> tuple[Any, Any, list[dict[str, Any]]]:
    units, orders = DISLODGING[variant.key]
    return _play(variant, position_from_json(variant, units), orders)


def _played(variant: Any) -> tuple[Any, Any, list[dict[str, Any]]]:
    if variant.key in OPENINGS:
        units, orders = OPENINGS[variant.key]
        before = position_from_json(variant, {"phase": f"S{variant.start_year}M", "units": units})
    else:  # every unit of the start moves to its first neighbour (or holds)
        before = position_from_json(variant, {})
        orders = {}
        for unit in before.units.values():
            dest = variant.geo.destinations(unit.kind, unit.loc)
            text = f"{unit.kind.value} {variant.geo.loc_names[unit.loc]}"
            orders.setdefault(unit.power, []).append(
                f"{text} - {variant.geo.loc_names[dest[0]]}" if dest else f"{text} H"
            )
    return _play(variant, before, orders)


def _play(variant: Any, before: Any, orders: dict[str, list[str]]) -> tuple[Any, Any, list[dict[str, Any]]]:
    turn = play(variant, before, parse_submissions(variant, before.phase.step, orders))
    results = [
        {
            "power": r.power,
            "order": order_text(variant.geo, r.order, before.units) if r.order else None,
            "typed": order_to_json(variant.geo, r.order, before.units) if r.order else None,
            "outcome": r.outcome.value,
        }
        for r in turn.results
    ]
    return before, turn.position, results


def _busy(variant: Any, seed: int = 7) -> tuple[Any, Any, list[dict[str, Any]]]:
    """A crowded movement phase (the same as tests/test_map.py's): units on 45 % of the provinces, random orders."""
    rng = random.Random(seed)
    geo = variant.geo
    provinces = list(geo.provinces)
    rng.shuffle(provinces)
    units: dict[str, list[str]] = {p: [] for p in variant.powers}
    for i, prov in enumerate(provinces[: len(provinces) * 9 // 20]):
        fleet = prov.terrain.name == "SEA" or (prov.terrain.name == "COAST" and rng.random() < 0.4)
        place = f"{prov.abbr}/{prov.coasts[0]}" if fleet and prov.coasts else prov.abbr
        units[variant.powers[i % len(variant.powers)]].append(f"{'F' if fleet else 'A'} {place}")
    centres = sorted(variant.centres)
    rng.shuffle(centres)
    owned = {p: [geo.loc_names[c] for c in centres[i :: len(variant.powers) + 1]] for i, p in enumerate(variant.powers)}
    before = position_from_json(
        variant, {"phase": f"F{variant.start_year + 2}M", "units": units, "supply_centers": owned}
    )
    orders: dict[str, list[str]] = {p: [] for p in variant.powers}
    for unit in before.units.values():
        text = f"{unit.kind.value} {geo.loc_names[unit.loc]}"
        dests = geo.destinations(unit.kind, unit.loc)
        friends = [before.units[geo.loc_province[d]] for d in dests if geo.loc_province[d] in before.units]
        roll = rng.random()
        if roll < 0.55 and dests:
            orders[unit.power].append(f"{text} - {geo.loc_names[rng.choice(dests)]}")
        elif roll < 0.9 and friends:
            other = rng.choice(friends)
            reach = {geo.loc_province[d] for d in dests}
            to = [d for d in geo.destinations(other.kind, other.loc) if geo.loc_province[d] in reach]
            move = f" - {geo.loc_names[geo.loc_province[to[0]]]}" if to and rng.random() < 0.7 else ""
            orders[unit.power].append(f"{text} S {other.kind.value} {geo.loc_names[other.loc]}{move}")
        else:
            orders[unit.power].append(f"{text} H")
    return _play(variant, before, orders)


def _start_picture(variant: Any, start: Any, name: str, lang: str, i: int) -> bytes:
    return render_map(variant, start, title=f"{name} start {i}", language=lang)


def _results_picture(variant: Any, played: tuple[Any, Any, Any], lang: str, i: int) -> bytes:
    before, results, after = played
    return render_map(variant, before, results, after=after, language=lang, title=f"game{i} — {before.phase.long_name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    print(
        f"# {time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, {platform.machine()}, "
        f"Pillow {__import__('PIL').__version__}"
    )
    print("| variant | picture | base layer (once) ms | median ms | p90 ms | median CPU ms | bytes (en / de / ru) |")
    print("|---|---|---|---|---|---|---|")
    for name in ("classic", "coldwar"):
        variant = load_variant(name)
        before, after, results = _played(variant)
        busy_before, busy_after, busy_results = _busy(variant)
        hit_before, hit_after, hit_results = _dislodging(variant)
        start = position_from_json(variant, {})
        _BASES.clear()
        _PLACES.clear()
        t0 = time.perf_counter()
        render_map(variant, start)
        base_ms = (time.perf_counter() - t0) * 1000
        cases: dict[str, Callable[[str, int], bytes]] = {
            "start": partial(_start_picture, variant, start, name),
            "results": partial(_results_picture, variant, (before, results, after)),
            "busy results": partial(_results_picture, variant, (busy_before, busy_results, busy_after)),
            "dislodged results": partial(_results_picture, variant, (hit_before, hit_results, hit_after)),
        }
        for label, draw in cases.items():
            times, cpu, sizes = [], [], {}
            for i in range(args.rounds):
                lang = ("en", "de", "ru")[i % 3]
                t, c = time.perf_counter(), time.process_time()
                png = draw(lang, i)
                times.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
                sizes.setdefault(lang, len(png))
            times.sort()
            p90 = times[int(len(times) * 0.9)]
            print(
                f"| {name} | {label} | {base_ms:.0f} | {statistics.median(times):.1f} | {p90:.1f} | "
                f"{statistics.median(cpu):.1f} | {' / '.join(str(sizes[k]) for k in ('en', 'de', 'ru'))} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
