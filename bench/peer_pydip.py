#!/usr/bin/env python3
"""Peer benchmark: time the `pydip` PyPI package (0.1.8) on the shared movement corpus.

What it measures
    For every corpus line (one movement phase of the classic map) the script translates the
    units and orders into pydip objects (Player, Unit, MoveCommand, SupportCommand, ...) on
    pydip's own classic map, which names provinces in full ("Mid-Atlantic Ocean",
    "Spain North Coast"), then times ONE call of `pydip.turn.resolve.resolve_turn()` with
    time.perf_counter.  The translation happens outside the timed region and is redone for
    every repetition.  The corpus is replayed N times over (each round visits every phase once);
    per phase the median of its N times is kept, and the summary gives the median, 90th
    percentile (nearest rank) and mean of those per-phase times.

    It also checks the result.  resolve_turn() returns, per player, each resulting unit mapped
    to None (not dislodged) or to the set of provinces it may retreat to (dislodged).  A
    dislodged unit is written back as `*F BRE` where it stood; one with no retreat is dropped,
    as the corpus does.  The board is compared per power, as sets, with the corpus `after`;
    `agree` counts the phases where every power matches.

    Translation: "A LON - NWY VIA" becomes a ConvoyMoveCommand, as does an army move to a
    province it cannot reach over land; "F NTH C A LON - NWY" a ConvoyTransportCommand.
    pydip fails a ConvoyMoveCommand without a convoy path even to an adjacent province, where
    the corpus (made with `diplomacy`) moves the army over land: 231 of the 233 disagreements on
    the shared corpus are that.  The other two are a pydip slip: a fleet attacking a supporter
    from the province the support goes into still cuts it, as pydip compares "Rumania Coast"
    with "Rumania" by name.

How to run (inside a virtualenv holding only this package, stdlib otherwise)
    python3 -m venv /tmp/peer-pydip
    /tmp/peer-pydip/bin/pip install pydip==0.1.8
    /tmp/peer-pydip/bin/python bench/peer_pydip.py CORPUS.jsonl [--repeat N] [--limit K]

Output: one JSON object on stdout (anything the engine prints is sent to stderr):
    {"engine", "version", "phases", "repeat", "agree", "median_ms", "p90_ms", "mean_ms",
     "per_phase_ms": [one number per phase, in corpus order]}
"""

import peer_common
from pydip.map.predefined import vanilla_dip
from pydip.map.territory import SeaTerritory
from pydip.player.command.command import (
    ConvoyMoveCommand,
    ConvoyTransportCommand,
    HoldCommand,
    MoveCommand,
    SupportCommand,
)
from pydip.player.player import Player
from pydip.player.unit import UnitTypes
from pydip.turn.resolve import resolve_turn

ENGINE = "pydip"
VERSION = "0.1.8"

# Corpus abbreviation -> pydip province name (classic map, 75 provinces).
PROVINCES = {
    "ADR": "Adriatic Sea",
    "AEG": "Aegean Sea",
    "BAL": "Baltic Sea",
    "BAR": "Barents Sea",
    "BLA": "Black Sea",
    "EAS": "Eastern Mediterranean Sea",
    "ENG": "English Channel",
    "BOT": "Gulf of Bothnia",
    "LYO": "Gulf of Lyon",
    "HEL": "Helgoland Bight",
    "ION": "Ionian Sea",
    "IRI": "Irish Sea",
    "MAO": "Mid-Atlantic Ocean",
    "NAO": "North Atlantic Ocean",
    "NTH": "North Sea",
    "NWG": "Norwegian Sea",
    "SKA": "Skagerrak",
    "TYS": "Tyrrhenian Sea",
    "WES": "Western Mediterranean Sea",
    "ALB": "Albania",
    "APU": "Apulia",
    "ANK": "Ankara",
    "ARM": "Armenia",
    "BEL": "Belgium",
    "BER": "Berlin",
    "BOH": "Bohemia",
    "BRE": "Brest",
    "BUD": "Budapest",
    "BUL": "Bulgaria",
    "BUR": "Burgundy",
    "CLY": "Clyde",
    "CON": "Constantinople",
    "DEN": "Denmark",
    "EDI": "Edinburgh",
    "FIN": "Finland",
    "GAS": "Gascony",
    "GAL": "Galicia",
    "GRE": "Greece",
    "HOL": "Holland",
    "KIE": "Kiel",
    "LON": "London",
    "LVP": "Liverpool",
    "LVN": "Livonia",
    "MAR": "Marseilles",
    "MOS": "Moscow",
    "MUN": "Munich",
    "NAP": "Naples",
    "NWY": "Norway",
    "PAR": "Paris",
    "PIC": "Picardy",
    "PIE": "Piedmont",
    "POR": "Portugal",
    "PRU": "Prussia",
    "ROM": "Rome",
    "RUH": "Ruhr",
    "NAF": "North Africa",
    "RUM": "Rumania",
    "SER": "Serbia",
    "SIL": "Silesia",
    "SEV": "Sevastopol",
    "SMY": "Smyrna",
    "SPA": "Spain",
    "STP": "St. Petersburg",
    "SWE": "Sweden",
    "SYR": "Syria",
    "TRI": "Trieste",
    "TUN": "Tunis",
    "TUS": "Tuscany",
    "TYR": "Tyrolia",
    "UKR": "Ukraine",
    "VEN": "Venice",
    "VIE": "Vienna",
    "WAR": "Warsaw",
    "WAL": "Wales",
    "YOR": "Yorkshire",
}
# The split coasts; every other coastal province has one coast, "<name> Coast".
COASTS = {
    "BUL/EC": "Bulgaria North Coast",
    "BUL/SC": "Bulgaria South Coast",
    "SPA/NC": "Spain North Coast",
    "SPA/SC": "Spain South Coast",
    "STP/NC": "St. Petersburg North Coast",
    "STP/SC": "St. Petersburg South Coast",
}

GAME_MAP = vanilla_dip.generate_map()  # read-only during resolution, so built once
NAMES = GAME_MAP.name_map
ABBREVIATIONS = {name: abbr for abbr, name in PROVINCES.items()}
ABBREVIATIONS.update({name: abbr for abbr, name in COASTS.items()})


def fleet_location(loc, origin=None):
    """pydip name of the place a fleet occupies or enters at corpus location `loc`.

    A sea keeps its name; a coastal province becomes its coast.  Without a written coast on a
    split-coast province, the coast that `origin` (a pydip name) borders is taken."""
    if loc in COASTS:
        return COASTS[loc]
    territory = NAMES[PROVINCES[loc[:3]]]
    if isinstance(territory, SeaTerritory):
        return territory.name
    coasts = [coast.name for coast in territory.coasts]
    if origin is not None and len(coasts) > 1:
        coasts = [coast for coast in coasts if coast in GAME_MAP.adjacency[origin]] or coasts
    return coasts[0]


def unit_location(kind, loc):
    return fleet_location(loc) if kind == "F" else PROVINCES[loc[:3]]


def province_of(name):
    """The province holding pydip location `name` (a coast's parent, else `name` itself)."""
    return GAME_MAP.relevant_name_for_territory(name)


def corpus_location(name):
    """Corpus spelling of a pydip location: "Spain North Coast" -> SPA/NC, "Brest Coast" -> BRE."""
    return ABBREVIATIONS.get(name) or ABBREVIATIONS[province_of(name)]


def build_commands(record):
    """The record's orders as a list of pydip commands (one per unit)."""
    units = {}  # pydip province name -> (player, Unit)
    for power, corpus_units in record["units"].items():
        config = [
            {
                "territory_name": unit_location(*u.split()),
                "unit_type": UnitTypes.FLEET if u[0] == "F" else UnitTypes.TROOP,
            }
            for u in corpus_units
        ]
        player = Player(power, GAME_MAP, config)
        for unit in player.units:
            units[province_of(unit.position)] = (player, unit)
    moves = {}  # pydip province name -> destination of the unit ordered to move from there
    for orders in record["orders"].values():
        for order in orders:
            words = order.split()
            if words[2] == "-":
                unit = units[PROVINCES[words[1][:3]]][1]
                moves[province_of(unit.position)] = _target(unit, words[3])
    return [_command(order.split(), units, moves) for orders in record["orders"].values() for order in orders]


def _target(unit, loc):
    """Where `unit` (moving, or supported into `loc`) would go, as pydip names it."""
    if unit.unit_type == UnitTypes.FLEET:
        return fleet_location(loc, unit.position)
    return PROVINCES[loc[:3]]


def _command(words, units, moves):
    """One corpus order (split into words) as a pydip command."""
    player, unit = units[PROVINCES[words[1][:3]]]
    if words[2] == "H":
        return HoldCommand(player, unit)
    if words[2] == "-":
        destination = _target(unit, words[3])
        by_land = destination in GAME_MAP.adjacency[unit.position]
        if words[-1] == "VIA" or (unit.unit_type == UnitTypes.TROOP and not by_land):
            return ConvoyMoveCommand(player, unit, destination)
        return MoveCommand(player, unit, destination)
    if words[2] == "C":
        carried = units[PROVINCES[words[4][:3]]][1]
        return ConvoyTransportCommand(player, unit, carried, PROVINCES[words[6][:3]])
    if words[2] == "S":
        supported = units[PROVINCES[words[4][:3]]][1]
        if len(words) == 5:  # support to hold
            destination = supported.position
        else:
            destination = _target(supported, words[6])
            ordered = moves.get(province_of(supported.position))
            # pydip matches the supported move by exact name: a fleet's coast counts.
            if ordered is not None and province_of(ordered) == province_of(destination):
                destination = ordered
        return SupportCommand(player, unit, supported, destination)
    raise ValueError("unknown order: " + " ".join(words))


def board(results):
    """power -> set of corpus-style units after resolve_turn(); dislodged ones as `*A PAR`."""
    out = {}
    for power, units in results.items():
        written = set()
        for unit, retreats in units.items():
            if retreats is not None and not retreats:
                continue  # dislodged with nowhere to go: disbanded
            kind = "F" if unit.unit_type == UnitTypes.FLEET else "A"
            text = f"{kind} {corpus_location(unit.position)}"
            written.add(text if retreats is None else "*" + text)
        if written:
            out[power] = written
    return out


if __name__ == "__main__":
    peer_common.main(
        ENGINE,
        VERSION,
        __doc__.split("\n")[0],
        build_commands,
        lambda commands: resolve_turn(GAME_MAP, commands),
        lambda _commands, results: board(results),
    )
