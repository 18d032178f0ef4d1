"""A variant as data: built from the parsed TOML of ``variants/NAME.toml`` and validated as a whole.

``variant_from_data`` takes the already-parsed mapping (reading the file is the caller's business) and either returns
a ``Variant`` or raises one ``VariantError`` listing every problem found. ``key_lines`` and ``locate`` give each
problem the line of the file's text it is about (and find keys given twice, which TOML reports without naming them).

The schema is strict: unknown keys and wrong types are errors (with the nearest known key), so a misspelling can never
silently change the game.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from typing import Any

from judge.rules.board import Position, Unit
from judge.rules.geography import Geography, Province, Terrain, UnitKind, name_keys, name_words
from judge.rules.phase import Phase, Season, Step
from judge.rules.victory import TieOthers, Victory, parse_solo
from judge.rules.words import Named


class Builds(Enum):
    """Where a power may build (``[rules] builds``)."""

    HOME = "home"  # in its owned, empty home centres (the rulebook)
    OWNED = "owned"  # in any owned, empty supply centre (Build Anywhere)
    ALL_HOMES = "all-homes"  # every centre is a home centre of whoever owns it (Chaos): builds there, and removals
    # in civil disorder count the distance from the owned centres


class Absent(Enum):
    """What the powers nobody plays become (``[players] absent``)."""

    EMPTY = "empty"  # their units are taken off the board; their centres are neutral and empty
    NEUTRAL = "neutral"  # their units stay as neutral units (hold, defend, disbanded when dislodged)


SEASONS = ("spring", "fall")
COASTS = ("nc", "sc", "ec", "wc")
TOP_KEYS = (
    "name",
    "description",
    "map",
    "powers",
    "start",
    "victory",
    "rules",
    "players",
    "homes",
    "neutral",
    "colours",
    "provinces",
    "army",
    "fleet",
    "units",
    "names",
)
NAMES_KEYS = ("powers", "provinces", "coasts")  # [names.<language>]: the variant's words in another language
LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}$")
START_KEYS = ("year", "season")
START_SEASONS = ("spring", "winter")  # a game opens with Spring movement, or with Winter builds (Chaos)
VICTORY_KEYS = ("solo", "by_year", "last_year", "tie_break", "tie_others", "points", "defender")
RULES_KEYS = ("builds", "fog")
PLAYERS_KEYS = ("powers", "absent")
NEUTRAL_KEYS = ("units",)
NEUTRAL = "neutral"  # the owner of neutral units: never a power, never ordered
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
PROVINCE_KEYS = ("name", "kind", "centre", "home", "coasts", "aliases", "at", "coast_at")
TIE_OTHERS = tuple(t.value for t in TieOthers)  # a tie no tie_break order settles: play on, or a draw among them


class VariantError(ValueError):
    """A variant file with problems; ``problems`` lists every one of them."""

    def __init__(self, problems: list[str], source: str = "variant") -> None:
        self.problems = problems
        self.source = source
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s):\n{lines}")


@dataclass(frozen=True)
class StartUnit:
    power: str
    kind: UnitKind
    loc: int


@dataclass(frozen=True)
class Variant:
    key: str  # the file stem, e.g. "classic"
    name: str
    powers: tuple[str, ...]
    geo: Geography
    start_year: int
    start_units: tuple[StartUnit, ...]
    victory: Victory
    # [names.<language>]: the languages the variant names its places and powers in besides English
    languages: tuple[str, ...] = ()
    power_words: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict, compare=False)
    power_short: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    coast_names: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)  # language -> nc -> name
    titles: tuple[tuple[str, str], ...] = field(default=(), compare=False)  # the variant's name in other languages
    description: str = ""
    map: str = ""  # the map whose board it is drawn on (``map = "classic"``); its own key when empty
    start_season: Season = Season.SPRING
    builds: Builds = Builds.HOME
    neutral_units: tuple[StartUnit, ...] = ()  # units of nobody's, placed at the start ([neutral], absent powers')
    absent: tuple[str, ...] = ()  # powers of the map nobody plays ([players])
    absent_rule: Absent = Absent.EMPTY
    colours: dict[str, str] = field(default_factory=dict, compare=False)  # power -> "#rrggbb" ([colours])
    colour_order: tuple[str, ...] = ()  # the powers whose place gives a colour (the map's powers, then its own)
    board_file: str | None = field(default=None, compare=False)  # the board geometry found for it (judge.data)
    fog: bool = False  # Fog of War ([rules] fog): each power sees only what is near it (judge.rules.visibility)

    @property
    def title(self) -> Named:
        """The variant's name in every language it gives (``[names.<language>] title``), for the reader's mail."""
        return Named(self.name, self.titles)

    @property
    def board_name(self) -> str:
        """The map whose board the variant is drawn on."""
        return self.map or self.key

    @property
    def start_phase(self) -> Phase:
        if self.start_season is Season.WINTER:
            return Phase(self.start_year, Season.WINTER, Step.ADJUSTMENT)
        return Phase(self.start_year, Season.SPRING, Step.MOVEMENT)

    def start_position(self) -> Position:
        """The board the first phase is played on: every power's units, the neutral units, the home centres owned."""
        units = {
            self.geo.loc_province[u.loc]: Unit(u.power, u.kind, u.loc) for u in (*self.start_units, *self.neutral_units)
        }
        return Position(self.start_phase, units, self.start_ownership())

    def build_sites(self, owners: dict[int, str], power: str) -> tuple[int, ...]:
        """The centres where ``power`` may build when they are empty (by the variant's ``builds`` rule)."""
        if self.builds is Builds.HOME:
            return self.home_centres(power)
        return tuple(sorted(c for c, p in owners.items() if p == power and c in self.centres))

    def removal_homes(self, owners: dict[int, str], power: str) -> tuple[int, ...]:
        """The centres civil disorder measures a unit's distance from: its home centres, or with ``all-homes`` the
        centres it owns."""
        if self.builds is Builds.ALL_HOMES:
            return self.build_sites(owners, power)
        return self.home_centres(power)

    def power(self, power: str) -> Named:
        """The power's name in every language the variant gives (a mail's words)."""
        return Named(power, self.power_words.get(power, ()))

    def coast_name(self, coast: str, language: str) -> str:
        """A coast's name in ``language`` ("северный берег"), its abbreviation (``nc``) where the variant gives none."""
        return self.coast_names.get(language, {}).get(coast, coast)

    @cached_property
    def centres(self) -> frozenset[int]:
        return frozenset(p.id for p in self.geo.provinces if p.centre)

    @cached_property
    def _homes(self) -> dict[str, tuple[int, ...]]:
        return {power: tuple(p.id for p in self.geo.provinces if p.home == power) for power in self.powers}

    def home_centres(self, power: str) -> tuple[int, ...]:
        return self._homes.get(power, ())

    def start_ownership(self) -> dict[int, str]:
        return {p.id: p.home for p in self.geo.provinces if p.home is not None}

    def solo_threshold(self, year: int) -> int:
        return self.victory.threshold(self.victory.total(self.centres), year)

    def power_named(self, text: str) -> str | None:
        """The power whose name matches ``text`` in any case, in English or any language the variant names its
        powers in (``Russia``, ``Россия``, ``Russland``, a short form the variant gives), or None."""
        return self._power_keys.get(name_words(text))

    @cached_property
    def _power_keys(self) -> dict[tuple[str, ...], str]:
        keys: dict[tuple[str, ...], str] = {}
        for p in self.powers:
            for name in (p, *(w for _, w in self.power_words.get(p, ())), *self.power_short.get(p, ())):
                for key in name_keys(name):
                    keys.setdefault(key, p)
        return keys

    def power_names(self, language: str) -> tuple[str, ...]:
        """The powers as ``language`` names them, in the variant's order."""
        return tuple(self.power(p).word(language) for p in self.powers)


def variant_from_data(data: dict[str, Any], key: str, map_powers: tuple[str, ...] = ()) -> Variant:
    """The variant in ``data`` (a parsed variant file, already merged with its map's file where it names one:
    ``inherit``); ``map_powers``: the map's own powers, whose places give the colours of the powers it shares."""
    problems: list[str] = []
    bad = problems.append

    _check_shape(data, key)
    problems.extend(f"unknown key {k!r}{_nearest(k, TOP_KEYS)}" for k in data if k not in TOP_KEYS)

    declared = tuple(data["powers"])
    if len(declared) < 2:
        bad("a variant needs at least two powers")
    if len(set(declared)) != len(declared):
        bad("a power is listed twice in powers")
    for p in declared:
        if name_words(p) == (NEUTRAL,):
            bad(f"powers: {p!r} is the owner of neutral units, not a power's name")
    played, absent_rule = _players(data.get("players", {}), declared, bad)
    absent = tuple(p for p in declared if p not in played)

    table = _with_homes(data["provinces"], data.get("homes"), declared, bad)
    provinces, loc_names, loc_province = _provinces(table, declared, bad)
    local = _names(data.get("names", {}), declared, provinces, bad)
    provinces = [replace(p, words=local.words.get(p.abbr, ()), short=local.short.get(p.abbr, ())) for p in provinces]
    by_name = {n: i for i, n in enumerate(loc_names)}
    army_adj = _adjacency(data["army"], "army", by_name, provinces, loc_province, bad)
    fleet_adj = _adjacency(data["fleet"], "fleet", by_name, provinces, loc_province, bad)

    if absent:  # nobody's home: the absent powers' centres are neutral
        provinces = [replace(p, home=None) if p.home in absent else p for p in provinces]
    army = tuple(frozenset(army_adj.get(p.id, ())) for p in provinces)
    fleet = tuple(frozenset(fleet_adj.get(loc, ())) for loc in range(len(loc_names)))
    geo = Geography(
        tuple(provinces), tuple(loc_names), tuple(loc_province), army, fleet, local.coast_words, local.coast_names
    )

    all_units = _start_units(data["units"], declared, geo, bad)
    neutral = _neutral_units(data.get("neutral", {}), geo, {geo.loc_province[u.loc] for u in all_units}, bad)
    units = tuple(u for u in all_units if u.power in played)
    if absent_rule is Absent.NEUTRAL:
        neutral += tuple(replace(u, power=NEUTRAL) for u in all_units if u.power not in played)
    year, season = _start(data["start"], bad)
    victory = _victory(data["victory"], played, provinces, year, bad)
    builds, fog = _rules(data.get("rules", {}), bad)
    colours = _colours(data.get("colours", {}), declared, bad)
    board = data.get("map", "")
    if not isinstance(board, str) or (board and not re.fullmatch(r"[A-Za-z0-9_\-]+", board)):
        bad(f'map must be the name of a map in quotes, like "classic", not {board!r}')
        board = ""

    if problems or year is None:
        raise VariantError(problems, key)
    keep = set(played)
    return Variant(
        key,
        data["name"],
        played,
        geo,
        year,
        units,
        victory,
        local.languages,
        {p: w for p, w in local.power_words.items() if p in keep},
        {p: w for p, w in local.power_short.items() if p in keep},
        local.coast_names,
        titles=local.titles,
        description=data.get("description", ""),
        map=board.lower(),
        start_season=season,
        builds=builds,
        neutral_units=neutral,
        absent=absent,
        absent_rule=absent_rule,
        colours=colours,
        colour_order=(*map_powers, *(p for p in declared if p not in map_powers)),
        fog=fog,
    )


def _players(table: Any, declared: tuple[str, ...], bad: Any) -> tuple[tuple[str, ...], Absent]:
    """``[players]``: the powers played (the others are absent) and what the absent powers' units become."""
    if not isinstance(table, dict):
        bad(f"[players] must be a table with powers and absent, not {table!r}")
        return declared, Absent.EMPTY
    for k in table:
        if k not in PLAYERS_KEYS:
            bad(f"[players] unknown key {k!r}{_nearest(k, PLAYERS_KEYS)}")
    raw = table.get("powers", list(declared))
    if not _strings(raw):
        bad(f"[players] powers must be a list of powers, not {raw!r}")
        raw = list(declared)
    for p in raw:
        if p not in declared:
            bad(f"[players] powers: {p!r} is not one of the powers{_nearest(p, declared)}")
    played = tuple(p for p in declared if p in raw)
    if table and len(played) < 2:
        bad("[players] powers: a game needs at least two powers played")
    rule = table.get("absent", Absent.EMPTY.value)
    try:
        absent = Absent(rule)
    except ValueError:
        bad(f"[players] absent must be one of {', '.join(a.value for a in Absent)}, not {rule!r}")
        absent = Absent.EMPTY
    return played, absent


def _with_homes(provinces: Any, homes: Any, declared: tuple[str, ...], bad: Any) -> Any:
    """The provinces table with the home centres ``[homes]`` gives (power = [centres]) in place of the provinces'
    own ``home`` keys (a variant on another variant's map with other powers: Chaos)."""
    if homes is None or not isinstance(provinces, dict):
        return provinces
    if not isinstance(homes, dict):
        bad(f'[homes] must be a table like France = ["par", "bre"], not {homes!r}')
        return provinces
    table = {
        a: {k: v for k, v in spec.items() if k != "home"} if isinstance(spec, dict) else spec
        for a, spec in provinces.items()
    }
    given: dict[str, str] = {}
    for power, abbrs in homes.items():
        if power not in declared:
            bad(f"[homes] {power}: not one of the powers{_nearest(power, declared)}")
            continue
        if not _strings(abbrs):
            bad(f'[homes] {power}: must be a list of centres like ["par"], not {abbrs!r}')
            continue
        for abbr in abbrs:
            spec = table.get(abbr)
            if not isinstance(spec, dict):
                bad(f"[homes] {power}: {abbr!r} is not a province{_nearest(abbr, table)}")
            elif abbr in given:
                bad(f"[homes] {power}: {abbr} is already a home centre of {given[abbr]}")
            else:
                given[abbr] = power
                spec["home"] = power
    return table


def _neutral_units(table: Any, geo: Geography, taken: set[int], bad: Any) -> tuple[StartUnit, ...]:
    """``[neutral] units``: units of nobody's placed at the start; they hold, defend, and are disbanded when
    dislodged."""
    if not isinstance(table, dict):
        bad(f'[neutral] must be a table like units = ["A swi"], not {table!r}')
        return ()
    for k in table:
        if k not in NEUTRAL_KEYS:
            bad(f"[neutral] unknown key {k!r}{_nearest(k, NEUTRAL_KEYS)}")
    specs = table.get("units", [])
    if not _strings(specs):
        bad(f'[neutral] units must be a list like ["A bel", "F nwy"], not {specs!r}')
        return ()
    placed = _start_units({NEUTRAL: specs}, (NEUTRAL,), geo, lambda p: bad(p.replace("[units] neutral", "[neutral]")))
    out = []
    for u in placed:
        prov = geo.loc_province[u.loc]
        if prov in taken:
            bad(f"[neutral] {u.kind.value} {geo.loc_names[u.loc]}: {geo.provinces[prov].name} already holds a unit")
        else:
            taken.add(prov)
            out.append(u)
    return tuple(out)


def _rules(table: Any, bad: Any) -> tuple[Builds, bool]:
    """``[rules]``: ``builds`` (where powers build) and ``fog`` (Fog of War: true or false)."""
    if not isinstance(table, dict):
        bad(f'[rules] must be a table like builds = "owned", not {table!r}')
        return Builds.HOME, False
    for k in table:
        if k not in RULES_KEYS:
            bad(f"[rules] unknown key {k!r}{_nearest(k, RULES_KEYS)}")
    fog = table.get("fog", False)
    if not isinstance(fog, bool):
        bad(f"[rules] fog must be true or false, not {fog!r}")
        fog = False
    raw = table.get("builds", Builds.HOME.value)
    try:
        return Builds(raw), fog
    except ValueError:
        bad(f"[rules] builds must be one of {', '.join(b.value for b in Builds)}, not {raw!r}")
        return Builds.HOME, fog


def _colours(table: Any, declared: tuple[str, ...], bad: Any) -> dict[str, str]:
    """``[colours]``: a power's colour on the map picture, ``France = "#28aae1"``."""
    if not isinstance(table, dict):
        bad(f'[colours] must be a table like France = "#28aae1", not {table!r}')
        return {}
    out: dict[str, str] = {}
    for power, colour in table.items():
        if power not in declared:
            bad(f"[colours] {power}: not one of the powers{_nearest(power, declared)}")
        elif not isinstance(colour, str) or not COLOUR.match(colour):
            bad(f'[colours] {power}: a colour is written "#rrggbb", not {colour!r}')
        else:
            out[power] = colour.lower()
    return out


def inherit(data: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """A variant file that names a map (``map = "classic"``) merged with the map's own file: every section the
    variant does not give is the map's (its provinces, army and fleet edges, powers, units, start, victory, rules);
    ``[names.<language>]`` tables are merged group by group (a variant with its own powers names only them). The
    map's name (and its ``title`` in each language), description and colours stay its own."""
    merged = {k: v for k, v in base.items() if k not in ("name", "description", "map", "colours")}
    if isinstance(merged.get("names"), dict):  # the map's title in each language is its own, as its name is
        merged["names"] = {
            lang: {g: n for g, n in groups.items() if g != "title"} if isinstance(groups, dict) else groups
            for lang, groups in merged["names"].items()
        }
    for k, v in data.items():
        if k == "names" and isinstance(v, dict) and isinstance(merged.get("names"), dict):
            names = dict(merged["names"])
            for language, groups in v.items():
                mine = names.get(language)
                names[language] = {**mine, **groups} if isinstance(mine, dict) and isinstance(groups, dict) else groups
            merged["names"] = names
        else:
            merged[k] = v
    return merged


def province_shape(data: dict[str, Any]) -> frozenset[tuple[str, tuple[str, ...]]] | None:
    """A variant file's provinces and their split coasts, as a map is recognised by (None when unreadable)."""
    table = data.get("provinces")
    if not isinstance(table, dict):
        return None
    return frozenset(
        (abbr, tuple(sorted(spec.get("coasts", ()))) if isinstance(spec, dict) else ()) for abbr, spec in table.items()
    )


@dataclass
class _Local:
    """What ``[names.<language>]`` tables give, gathered for the variant."""

    languages: tuple[str, ...] = ()
    words: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)  # abbr -> (language, name)
    short: dict[str, tuple[str, ...]] = field(default_factory=dict)  # abbr -> short forms
    power_words: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    power_short: dict[str, tuple[str, ...]] = field(default_factory=dict)
    coast_names: dict[str, dict[str, str]] = field(default_factory=dict)
    coast_words: dict[str, str] = field(default_factory=dict)
    titles: tuple[tuple[str, str], ...] = ()  # language -> the variant's name in it ([names.<language>] title)


def _name_value(value: Any, where: str, bad: Any) -> tuple[str, tuple[str, ...]] | None:
    """A name as written: ``"Москва"``, or ``["Севастополь", "Сев"]`` (the name, then short forms players type)."""
    items = [value] if isinstance(value, str) else value if _strings(value) and value else None
    if items is None or not all(item.strip() for item in items):
        bad(f'{where}: must be a name in quotes or a list like ["Севастополь", "Сев"], not {value!r}')
        return None
    return items[0].strip(), tuple(item.strip() for item in items[1:])


def _names(table: Any, powers: tuple[str, ...], provinces: list[Province], bad: Any) -> _Local:
    """``[names.ru]``, ``[names.de]``: every power, province and split coast named in the language (a name, or a list
    of the name and its short forms); a name that would also name another province is a problem."""
    local = _Local()
    if not isinstance(table, dict):
        bad(f"names must be tables like [names.ru], not {table!r}")
        return local
    known = {
        "powers": powers,
        "provinces": tuple(p.abbr for p in provinces),
        "coasts": tuple(sorted({c for p in provinces for c in p.coasts})),
    }
    gathered: dict[str, dict[str, list[tuple[str, str, tuple[str, ...]]]]] = {g: {} for g in NAMES_KEYS}
    for language, spec in table.items():
        where = f"[names.{language}]"
        if not LANGUAGE_CODE.match(str(language)) or language == "en":
            bad(f"{where}: a language is a code like ru or de (English is the variant's own names)")
        elif not isinstance(spec, dict):
            bad(f"{where}: must be a table with powers, provinces and coasts")
        else:
            bad_keys = [k for k in spec if k not in (*NAMES_KEYS, "title")]
            for k in bad_keys:
                bad(f"{where} unknown key {k!r}{_nearest(k, (*NAMES_KEYS, 'title'))}")
            local.languages += (language,)
            local.titles += _title(spec.get("title"), language, where, bad)
            for group in NAMES_KEYS:
                for key, name, forms in _group_names(language, group, spec.get(group, {}), known[group], bad):
                    gathered[group].setdefault(key, []).append((language, name, forms))
    local.words, local.short = _split(gathered["provinces"])
    local.power_words, local.power_short = _split(gathered["powers"])
    for coast, entries in gathered["coasts"].items():
        for lang, name, forms in entries:
            local.coast_names.setdefault(lang, {})[coast] = name
            for word in (*name_words(name)[:1], *forms):
                local.coast_words.setdefault(" ".join(name_words(word)), coast)
    _name_clashes(provinces, local.words, local.short, bad)
    _power_clashes(powers, local.power_words, local.power_short, bad)
    return local


def _title(value: Any, language: str, where: str, bad: Any) -> tuple[tuple[str, str], ...]:
    """``[names.<language>] title``: the variant's name in the language (none when not given)."""
    if value is None:
        return ()
    if isinstance(value, str) and value.strip():
        return ((language, value.strip()),)
    bad(f"{where} title: the variant's name in the language, in quotes, not {value!r}")
    return ()


def _split(
    gathered: dict[str, list[tuple[str, str, tuple[str, ...]]]],
) -> tuple[dict[str, tuple[tuple[str, str], ...]], dict[str, tuple[str, ...]]]:
    """(language, name, short forms) per key, as the names per language and the short forms of every language."""
    words = {k: tuple((lang, name) for lang, name, _ in entries) for k, entries in gathered.items()}
    short = {k: tuple(f for _, _, forms in entries for f in forms) for k, entries in gathered.items()}
    return words, short


def _group_names(
    language: str, group: str, given: Any, known: tuple[str, ...], bad: Any
) -> list[tuple[str, str, tuple[str, ...]]]:
    """One ``[names.<language>.<group>]`` table as (key, name, short forms); unknown keys, bad values and the keys
    it leaves unnamed are problems."""
    where = f"[names.{language}.{group}]"
    if not isinstance(given, dict):
        bad(f"{where} must be a table, not {given!r}")
        return []
    out = []
    for key, value in given.items():
        named = _name_value(value, f"{where} {key}", bad)
        if key not in known:
            bad(f"{where} {key}: not one of the {group}{_nearest(key, known)}")
        elif named is not None:
            out.append((key, *named))
    missing = [k for k in known if k not in given]
    if missing:
        bad(f"{where} no name for {', '.join(missing)}")
    return out


def _name_clashes(
    provinces: list[Province],
    words: dict[str, tuple[tuple[str, str], ...]],
    short: dict[str, tuple[str, ...]],
    bad: Any,
) -> None:
    """A name or short form of one language that is also a name, alias or abbreviation of another province."""
    owner: dict[tuple[str, ...], str] = {}
    for p in provinces:
        for name in (p.abbr, p.name, *p.aliases):
            for key in name_keys(name):
                owner.setdefault(key, p.abbr)
    for p in provinces:
        for name in (*(w for _, w in words.get(p.abbr, ())), *short.get(p.abbr, ())):
            for key in name_keys(name):
                other = owner.setdefault(key, p.abbr)
                if other != p.abbr:
                    bad(f"[names] {p.abbr}: {name!r} also names {other}")
                    break


def _power_clashes(
    powers: tuple[str, ...],
    power_words: dict[str, tuple[tuple[str, str], ...]],
    power_short: dict[str, tuple[str, ...]],
    bad: Any,
) -> None:
    """A power's name in one language that names another power."""
    owner: dict[tuple[str, ...], str] = {}
    for power in powers:
        owner.setdefault(name_words(power), power)
    for power, named in power_words.items():
        for name in (*(w for _, w in named), *power_short.get(power, ())):
            other = owner.setdefault(name_words(name), power)
            if other != power:
                bad(f"[names] power {power}: {name!r} also names {other}")


def _check_shape(data: dict[str, Any], key: str) -> None:
    """The keys and tables every variant has, of the right kinds; VariantError lists what is wrong (and, when the
    rest is there, the keys it does not know)."""
    tables = ("start", "victory", "provinces", "army", "fleet", "units")
    missing = [
        f"missing [{required}]" if required in tables else f"missing key {required!r}"
        for required in ("name", "powers", *tables)
        if required not in data
    ]
    if missing:
        raise VariantError(missing, key)
    problems = [
        f"{k} must be a string in quotes, not {data[k]!r}"
        for k in ("name", "description")
        if k in data and not isinstance(data[k], str)
    ]
    problems += [
        f"[{table}] must be a table, not {data[table]!r}" for table in tables if not isinstance(data[table], dict)
    ]
    if not _strings(data["powers"]):
        problems.append(f"powers must be a list of names in quotes, not {data['powers']!r}")
    if problems:
        raise VariantError(
            [f"unknown key {k!r}{_nearest(k, TOP_KEYS)}" for k in data if k not in TOP_KEYS] + problems, key
        )


def _start(start: dict[str, Any], bad: Any) -> tuple[int | None, Season]:
    """The [start] table's year (None after reporting it wrong) and season: spring (movement) or winter (builds)."""
    for k in start:
        if k not in START_KEYS:
            bad(f"[start] unknown key {k!r}{_nearest(k, START_KEYS)}")
    year = start.get("year")
    if not isinstance(year, int) or isinstance(year, bool):
        bad(f"[start] year must be a whole number, not {year!r}")
        year = None
    season = str(start.get("season", "spring")).lower()
    if season not in START_SEASONS:
        bad(f"[start] season must be one of {', '.join(START_SEASONS)}")
    return year, Season.WINTER if season == "winter" else Season.SPRING


def _provinces(table: dict[str, Any], powers: tuple[str, ...], bad: Any) -> tuple[list[Province], list[str], list[int]]:
    provinces: list[Province] = []
    coast_names: list[tuple[str, int]] = []
    seen_alias: dict[str, str] = {}
    for i, (abbr, spec) in enumerate(table.items()):
        where = f"province {abbr}"
        if not isinstance(spec, dict):
            bad(f'{where}: must be a table like {{ name = "...", kind = "land" }}, not {spec!r}')
            spec = {"name": abbr, "kind": "land"}
        spec = _checked_province(spec, where, bad)
        if abbr != abbr.lower() or not abbr.isalnum():
            bad(f"{where}: abbreviation must be lower-case letters/digits")
        try:
            terrain = Terrain(spec.get("kind"))
        except ValueError:
            if "kind" in spec:
                bad(f"{where}: kind must be land, sea or coast, not {spec.get('kind')!r}")
            terrain = Terrain.LAND
        home = spec.get("home")
        centre = bool(spec.get("centre", False))
        coasts = tuple(spec.get("coasts", ()))
        _province_problems(where, terrain, (home, centre), coasts, powers, bad)
        coast_names += [(f"{abbr}/{c}", i) for c in coasts]
        aliases = tuple(a.lower() for a in spec.get("aliases", ()))
        for a in (abbr, spec.get("name", "").lower(), *aliases):
            if a in seen_alias and seen_alias[a] != abbr:
                bad(f"{where}: name or alias {a!r} is also used by {seen_alias[a]}")
            seen_alias[a] = abbr
        if not spec.get("name"):
            bad(f"{where}: missing name")
        if "kind" not in spec:
            bad(f"{where}: missing kind (land, sea or coast)")
        at = _point(spec["at"], f"{where}: at", bad) if "at" in spec else None
        coast_at = _coast_points(spec.get("coast_at", {}), coasts, where, bad)
        if coast_at and "at" not in spec:
            bad(f"{where}: coast_at needs at (the province's own point) as well")
        provinces.append(
            Province(i, abbr, spec.get("name", abbr), terrain, centre, home, coasts, aliases, at, coast_at)
        )
    loc_names = [p.abbr for p in provinces] + [n for n, _ in coast_names]
    loc_province = [p.id for p in provinces] + [i for _, i in coast_names]
    return provinces, loc_names, loc_province


def _province_problems(
    where: str,
    terrain: Terrain,
    home_centre: tuple[Any, bool],
    coasts: tuple[str, ...],
    powers: tuple[str, ...],
    bad: Any,
) -> None:
    """A province's home, centre and coasts that do not fit together or with its terrain."""
    home, centre = home_centre
    if home is not None and home not in powers:
        bad(f"{where}: home power {home!r} is not one of the powers")
    if home is not None and not centre:
        bad(f"{where}: home centre of {home} is not a supply centre")
    if centre and terrain is Terrain.SEA:
        bad(f"{where}: a sea cannot be a supply centre")
    if coasts and terrain is not Terrain.COAST:
        bad(f"{where}: only a coast province can have split coasts")
    if len(coasts) == 1:
        bad(f"{where}: a split coast needs at least two coasts")
    for c in coasts:
        if c not in COASTS:
            bad(f"{where}: unknown coast {c!r} (use {', '.join(COASTS)})")


def _point(value: Any, where: str, bad: Any) -> tuple[float, float] | None:
    """``[latitude, longitude]`` in degrees, or None after reporting what is wrong with it."""
    numbers = (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    )
    if not numbers:
        bad(f"{where} must be [latitude, longitude], two numbers in degrees, not {value!r}")
        return None
    lat, lon = float(value[0]), float(value[1])
    if not (-90.0 <= lat <= 90.0 and -180.0 <= lon <= 180.0):
        bad(f"{where} = {list(value)!r}: latitude must be within -90..90 and longitude within -180..180")
        return None
    return (lat, lon)


def _coast_points(table: Any, coasts: tuple[str, ...], where: str, bad: Any) -> dict[str, tuple[float, float]]:
    """The ``coast_at`` table of a province: a point for each of its split coasts (not every coast needs one)."""
    if not isinstance(table, dict):
        bad(f"{where}: coast_at must be a table like {{ nc = [lat, lon], sc = [lat, lon] }}")
        return {}
    points: dict[str, tuple[float, float]] = {}
    for coast, value in table.items():
        if coast not in coasts:
            bad(
                f"{where}: coast_at names {coast!r}, which is not one of its coasts"
                + (f" ({', '.join(coasts)})" if coasts else " (it has no split coasts)")
            )
            continue
        point = _point(value, f"{where}: coast_at.{coast}", bad)
        if point is not None:
            points[coast] = point
    return points


def _adjacency(
    table: dict[str, Any],
    kind: str,
    by_name: dict[str, int],
    provinces: list[Province],
    loc_province: list[int],
    bad: Any,
) -> dict[int, set[int]]:
    adj: dict[int, set[int]] = {}
    for src_name, dsts in table.items():
        if not _strings(dsts):
            bad(f"[{kind}] {src_name}: must be a list of provinces in quotes, not {dsts!r}")
            continue
        src = by_name.get(src_name)
        if src is None:
            bad(f"[{kind}] {src_name}: unknown province or coast")
            continue
        for dst_name in dsts:
            dst = by_name.get(dst_name)
            if dst is None:
                bad(f"[{kind}] {src_name} -> {dst_name}: unknown province or coast")
                continue
            if dst == src:
                bad(f"[{kind}] {src_name} lists itself")
            adj.setdefault(src, set()).add(dst)
    for src, dsts in adj.items():
        for dst in dsts:
            if src not in adj.get(dst, ()):
                bad(f"[{kind}] one-way edge {_n(by_name, src)} -> {_n(by_name, dst)}: list it from both ends")
    _standing_problems(adj, kind, by_name, provinces, loc_province, bad)
    return adj


def _standing_problems(
    adj: dict[int, set[int]],
    kind: str,
    by_name: dict[str, int],
    provinces: list[Province],
    loc_province: list[int],
    bad: Any,
) -> None:
    """Places listed in the [army] or [fleet] table where such a unit cannot stand."""
    for loc in adj:
        prov = provinces[loc_province[loc]]
        if kind == "army" and (prov.terrain is Terrain.SEA or loc != prov.id):
            bad(f"[army] {_n(by_name, loc)}: armies cannot stand there")
        if kind == "fleet" and (prov.terrain is Terrain.LAND or (loc == prov.id and prov.coasts)):
            bad(f"[fleet] {_n(by_name, loc)}: fleets cannot stand there" + (" (name a coast)" if prov.coasts else ""))


def _n(by_name: dict[str, int], loc: int) -> str:
    for name, i in by_name.items():
        if i == loc:
            return name
    return str(loc)


def _start_units(table: dict[str, Any], powers: tuple[str, ...], geo: Geography, bad: Any) -> tuple[StartUnit, ...]:
    units: list[StartUnit] = []
    taken: dict[int, str] = {}
    for power, specs in table.items():
        if power not in powers:
            bad(f"[units] {power}: not one of the powers{_nearest(power, powers)}")
            continue
        if not _strings(specs):
            bad(f'[units] {power}: must be a list like ["A par", "F bre"], not {specs!r}')
            continue
        for spec in specs:
            parts = str(spec).split()
            if len(parts) != 2 or parts[0].upper() not in ("A", "F"):
                bad(f'[units] {power}: {spec!r} is not like "A par" or "F stp/sc"')
                continue
            kind = UnitKind(parts[0].upper())
            loc = geo.by_loc_name.get(parts[1].lower())
            if loc is None:
                bad(f"[units] {power}: {spec!r}: unknown province or coast")
                continue
            if not geo.can_stand(kind, loc):
                bad(
                    f"[units] {power}: {spec!r}: {'an army' if kind is UnitKind.ARMY else 'a fleet'} cannot stand "
                    f"on {geo.province_of(loc).name}" + (" without a coast" if geo.province_of(loc).coasts else "")
                )
                continue
            prov = geo.loc_province[loc]
            if prov in taken:
                bad(f"[units] {power}: {spec!r}: {geo.provinces[prov].name} already holds a unit of {taken[prov]}")
                continue
            taken[prov] = power
            units.append(StartUnit(power, kind, loc))
    return tuple(units)


def _victory(
    table: dict[str, Any], powers: tuple[str, ...], provinces: list[Province], start_year: int | None, bad: Any
) -> Victory:
    for k in table:
        if k not in VICTORY_KEYS:
            bad(f"[victory] unknown key {k!r}{_nearest(k, VICTORY_KEYS)}")
    points = _points(table.get("points", {}), provinces, bad)
    centre_ids = frozenset(p.id for p in provinces if p.centre)
    centre_count = Victory(1, points=points).total(centre_ids)  # every point there is (the centres when no points)
    unit = "points" if points else "centres"
    solo = _solo(table.get("solo"), centre_count, bad)
    last_year = table.get("last_year")
    if last_year is not None and (not isinstance(last_year, int) or isinstance(last_year, bool)):
        bad(f"[victory] last_year must be a year (a whole number), not {last_year!r}")
        last_year = None
    if last_year is not None and start_year is not None and last_year <= start_year:
        bad(f"[victory] last_year {last_year} must be after the start year {start_year}")
    pairs = _by_year(table.get("by_year", {}), (start_year, last_year), centre_count, unit, bad)
    tie_break, others = _tie_rule(table, powers, bad)
    defender = table.get("defender")
    if defender is not None and defender not in powers:
        bad(f"[victory] defender: {defender!r} is not one of the powers played{_nearest(str(defender), powers)}")
        defender = None
    if defender is not None and last_year is None:
        bad("[victory] defender wins after the last year: give last_year too")
    if isinstance(solo, int) and solo > centre_count:
        bad(f"[victory] solo {solo} is more than the {centre_count} {unit}")
    rule = Victory(solo, tuple(pairs), last_year, tie_break, others, points, defender)
    line = rule.lowest_line(centre_count)
    if line <= centre_count // 2 and not rule.has_tie_rule():
        bad(
            f"[victory] a line of {line} is at or below half of the {centre_count} {unit}, so two powers can reach "
            f'it together: give tie_break (an order of powers) or tie_others = "play-on" or "draw"'
        )
    return rule


def _solo(raw: Any, centre_count: int, bad: Any) -> int | Any:
    """The solo line as written: "half" (more than half the centres) or what :func:`parse_solo` reads."""
    if isinstance(raw, str) and raw.strip().lower() in ("half", "1/2"):
        return centre_count // 2 + 1  # more than half (seed rule: centres / 2 + 1, 18 of 34)
    try:
        return parse_solo(raw)
    except ValueError as exc:
        bad(f"[victory] {exc}")
        return centre_count // 2 + 1


def _by_year(
    by_year: Any, years: tuple[int | None, int | None], centre_count: int, unit: str, bad: Any
) -> list[tuple[int, int]]:
    """``by_year = { 1905 = 16 }``: a line that holds from a year on, within the (start, last) ``years``."""
    start_year, last_year = years
    if not isinstance(by_year, dict):
        bad(f"[victory] by_year must be a table like {{ 1905 = 16 }}, not {by_year!r}")
        return []
    pairs: list[tuple[int, int]] = []
    for year, count in by_year.items():
        if not str(year).isdigit() or not isinstance(count, int) or isinstance(count, bool) or count < 1:
            bad(f"[victory.by_year] {year} = {count!r}: need year = {unit}")
            continue
        if start_year is not None and int(year) < start_year:
            bad(f"[victory.by_year] {year}: before the start year {start_year}")
        elif last_year is not None and int(year) > last_year:
            bad(f"[victory.by_year] {year}: after the last year {last_year}")
        if count > centre_count:
            bad(f"[victory.by_year] {year} = {count}: more than the {centre_count} {unit}")
        pairs.append((int(year), count))
    return pairs


def _tie_rule(table: dict[str, Any], powers: tuple[str, ...], bad: Any) -> tuple[tuple[str, ...], TieOthers | None]:
    """``tie_break`` (an order of powers) and ``tie_others`` (what a tie among the powers not named means)."""
    raw_tie = table.get("tie_break", [])
    if not _strings(raw_tie):
        bad(f"[victory] tie_break must be a list of powers, not {raw_tie!r}")
        raw_tie = []
    tie_break = tuple(raw_tie)
    for p in tie_break:
        if p not in powers:
            bad(f"[victory] tie_break: {p!r} is not one of the powers{_nearest(p, powers)}")
    if len(set(tie_break)) != len(tie_break):
        bad("[victory] tie_break lists a power twice")
    raw_others = table.get("tie_others")
    others = None
    if raw_others is not None:
        if raw_others not in TIE_OTHERS:
            bad(f"[victory] tie_others must be one of {', '.join(TIE_OTHERS)}, not {raw_others!r}")
        else:
            others = TieOthers(raw_others)
    missing = [p for p in powers if p not in tie_break]
    if tie_break and missing and others is None:
        bad(
            f"[victory] tie_break does not name {', '.join(missing)}: name every power, or say what a tie among "
            f'the others means with tie_others = "play-on" or "draw"'
        )
    return tie_break, others


def _points(table: Any, provinces: list[Province], bad: Any) -> tuple[tuple[int, int], ...]:
    """``points = { rom = 3, sam = 2 }``: places and their values (a centre not listed is worth 1)."""
    if not isinstance(table, dict):
        bad(f"[victory] points must be a table like {{ rom = 3 }}, not {table!r}")
        return ()
    by_abbr = {p.abbr: p for p in provinces}
    out: list[tuple[int, int]] = []
    for abbr, value in table.items():
        prov = by_abbr.get(abbr)
        if prov is None:
            bad(f"[victory] points: {abbr!r} is not a province{_nearest(abbr, by_abbr)}")
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            bad(f"[victory] points: {abbr} = {value!r}: a value is a whole number, 0 or more")
            continue
        out.append((prov.id, value))
    return tuple(out)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _nearest(key: str, known: Any) -> str:
    close = difflib.get_close_matches(str(key), list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


_PROVINCE_TYPES: dict[str, tuple[Any, str, Any]] = {
    "name": (str, "a string in quotes", ""),
    "kind": (str, "land, sea or coast", "land"),
    "centre": (bool, "true or false", False),
    "home": (str, "a power in quotes", None),
    "coasts": (list, 'a list like ["nc", "sc"]', ()),
    "aliases": (list, "a list of names in quotes", ()),
}


def _checked_province(spec: dict[str, Any], where: str, bad: Any) -> dict[str, Any]:
    """The province's table with unknown keys and wrong types reported (and left out)."""
    out: dict[str, Any] = {}
    for k, v in spec.items():
        if k not in PROVINCE_KEYS:
            bad(f"{where}: unknown key {k!r}{_nearest(k, PROVINCE_KEYS)}")
            continue
        kind = _PROVINCE_TYPES.get(k)
        if kind is not None:
            typ, words, _ = kind
            ok = isinstance(v, typ) and not (typ is not bool and isinstance(v, bool))
            if typ is list:
                ok = _strings(v)
            if not ok:
                bad(f"{where}: {k} must be {words}, not {v!r}")
                continue
        out[k] = v
    return out


_KEY_LINE = re.compile(r'^\s*("[^"]*"|[A-Za-z0-9_\-/]+)\s*=')
_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\-]+)\s*\]\s*(#.*)?$")


def key_lines(text: str) -> tuple[dict[tuple[str, str], int], list[str]]:
    """Where each ``key =`` line of each table is ((table, key) -> line, from 1), and keys given twice in a table."""
    where: dict[tuple[str, str], int] = {}
    twice: list[str] = []
    table = ""
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            table = header.group(1)
            continue
        found = _KEY_LINE.match(line)
        if not found:
            continue
        key = found.group(1).strip('"')
        if (table, key) in where:
            what = f"province {key!r}" if table == "provinces" else f"[{table}] {key!r}" if table else repr(key)
            twice.append(f"line {number}: {what} is given twice (first at line {where[(table, key)]})")
        else:
            where[(table, key)] = number
    return where, twice


_PROBLEM_KEY = re.compile(
    r"^(?:province (\S+?):|\[(army|fleet|units|start|victory|names\.\w+\.\w+)\] (\S+?)[:\s]|"
    r"\[victory\.by_year\] (\S+?)[:\s=])"
)


def locate(problems: list[str], where: dict[tuple[str, str], int]) -> list[str]:
    """The problems, each with the line of the file it is about where that can be told (``key_lines``)."""
    return [_with_line(p, where) for p in problems]


_UNKNOWN = re.compile(r"^(?:\[(\w+)\] )?unknown key '([^']+)'")


def _with_line(problem: str, where: dict[tuple[str, str], int]) -> str:
    unknown = _UNKNOWN.match(problem)
    found = _PROBLEM_KEY.match(problem)
    line = None
    if unknown:
        line = where.get((unknown.group(1) or "", unknown.group(2)))
    elif found:
        province, table, name, year = found.groups()
        if province:
            line = where.get(("provinces", province))
        elif year:
            line = where.get(("victory", "by_year")) or where.get(("victory.by_year", year))
        else:
            line = where.get((table, name.rstrip(":"))) or where.get((table, name.strip("'\"")))
            if line is None and table == "victory":
                line = next((n for (t, k), n in where.items() if t == "victory" and k in problem), None)
    return f"line {line}: {problem}" if line else problem
