"""The demo's scripted players: random legal orders for one power, written in the player's own language.

An English player writes abbreviations (``A par - bur``); a Russian or German one writes the variant's names of the
places in their language and the order words of docs/orders.md (``А Москва - Украина``, ``A Berlin hält``,
``Baue F Kiel``), which the judge reads as it reads the English.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from judge.rules.adjustments import adjustment_delta, free_build_sites
from judge.rules.board import Position
from judge.rules.geography import UnitKind
from judge.rules.legality import retreat_options
from judge.rules.phase import Step
from judge.rules.variant import Variant


@dataclass(frozen=True)
class OrderWords:
    """The words of an order in one language: unit letters, and the templates of each kind of order."""

    army: str
    fleet: str
    hold: str  # "{unit} H"
    disband: str  # a retreat phase's disband: "{unit} disband"
    build: str  # "Build {unit}"
    remove: str  # "Remove {unit}"
    waive: str


ORDER_WORDS = {
    "en": OrderWords("A", "F", "{unit} H", "{unit} disband", "Build {unit}", "Remove {unit}", "Waive"),
    "ru": OrderWords("А", "Ф", "{unit} стоит", "{unit} распустить", "Построить {unit}", "Убрать {unit}", "пропуск"),
    "de": OrderWords("A", "F", "{unit} hält", "{unit} auflösen", "Baue {unit}", "{unit} auflösen", "Verzicht"),
}


def place(variant: Variant, loc: int, language: str) -> str:
    """A place as a player of ``language`` writes it: the abbreviation in English, else the variant's name of the
    province in the language with the coast's name (``Санкт-Петербург северный берег``)."""
    geo = variant.geo
    if language == "en":
        return geo.loc_names[loc]
    province = geo.provinces[geo.loc_province[loc]]
    name = dict(province.words).get(language, province.name)
    _, _, coast = geo.loc_names[loc].partition("/")
    return f"{name} {variant.coast_name(coast, language)}" if coast else name


def choose_orders(variant: Variant, pos: Position, power: str, rng: random.Random, language: str = "en") -> list[str]:
    """Random legal orders for one power: mostly moves, some holds; retreats where possible; builds in free homes;
    in the words of ``language`` (en, ru or de)."""
    geo = variant.geo
    words = ORDER_WORDS[language]

    def unit(kind: UnitKind, loc: int) -> str:
        return f"{words.army if kind is UnitKind.ARMY else words.fleet} {place(variant, loc, language)}"

    step = pos.phase.step
    if step is Step.MOVEMENT:
        lines = []
        for u in pos.units_of(power):
            options = geo.destinations(u.kind, u.loc)
            if options and rng.random() < 0.75:
                lines.append(f"{unit(u.kind, u.loc)} - {place(variant, rng.choice(options), language)}")
            else:
                lines.append(words.hold.format(unit=unit(u.kind, u.loc)))
        return lines
    if step is Step.RETREAT:
        lines = []
        for prov, dis in pos.dislodged.items():
            if dis.unit.power == power:
                here = unit(dis.unit.kind, dis.unit.loc)
                options = retreat_options(geo, pos, prov)
                lines.append(
                    f"{here} - {place(variant, rng.choice(options), language)}"
                    if options
                    else words.disband.format(unit=here)
                )
        return lines
    delta = adjustment_delta(variant, pos, power)
    free = list(free_build_sites(variant, pos, power))
    lines = [words.build.format(unit=unit(UnitKind.ARMY, c)) for c in free[: max(delta, 0)]]
    if delta < 0:  # remove the units farthest down the list; the rest is left to civil disorder
        lines = [words.remove.format(unit=unit(u.kind, u.loc)) for u in pos.units_of(power)[:1]]
    if delta > 0 and not lines:
        lines = [words.waive]
    return lines
