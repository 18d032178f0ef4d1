"""The public archive's pages as text: a game's page and the index of games, in one language, rendered from this
package's templates (``judge/web/templates/``, Jinja, autoescaped) with the catalogs' words (``judge.i18n``).

Pure rendering: the story (``judge.game.story``) and the pictures' names come in, HTML goes out; the files are
``judge.web.archive``'s. A page reads without JavaScript (every phase one below the other); ``archive.js`` shows one
phase at a time and steps with ←/→."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context

from judge.facts import LANGUAGES
from judge.game.story import ANONYMOUS_SENDER, GameResult, OrderLine, Story
from judge.i18n import T, gettext, phase_words, result_words, translate
from judge.reports.maps.draw import power_colours
from judge.reports.render import add_catalog_words
from judge.rules.orders import Outcome
from judge.rules.phase import Phase
from judge.rules.variant import Variant
from judge.store.statuses import GameStatus

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"  # archive.css and archive.js, copied to the archive's top folder
AUTONYMS = {"en": "English", "ru": "Русский", "de": "Deutsch"}  # each language as it names itself


def page_name(language: str) -> str:
    """The file of a page in ``language``: ``index.html`` in English (what a bare folder address serves), else
    ``index.<language>.html``."""
    return "index.html" if language == "en" else f"index.{language}.html"


@dataclass(frozen=True)
class Picture:
    """A phase's picture as the page shows it: its file name beside the page and its size in pixels."""

    src: str
    width: int
    height: int


@dataclass(frozen=True)
class IndexEntry:
    """One game in the index of games: the phase now (None when it is over) and how it ended."""

    name: str
    variant: Variant
    status: GameStatus
    phase: Phase | None
    result: GameResult | None

    @property
    def finished(self) -> bool:
        return self.status == GameStatus.FINISHED


def game_page(story: Story, language: str, pictures: Mapping[str, Picture]) -> str:
    """``story``'s page in ``language``; ``pictures`` by phase code (a phase without one shows its orders only)."""
    return (
        _env()
        .get_template("game.html.j2")
        .render(
            language=language,
            story=story,
            variant=story.variant,
            pictures=pictures,
            languages=_languages(language),
            chart=_chart(story),
            here=page_name(language),
            top=f"../{page_name(language)}",
        )
    )


def index_page(entries: Sequence[IndexEntry], language: str) -> str:
    """The index of games in ``language``: running games first (by name), then finished ones."""
    running = sorted((e for e in entries if not e.finished), key=lambda e: e.name)
    done = sorted((e for e in entries if e.finished), key=lambda e: e.name)
    return (
        _env()
        .get_template("index.html.j2")
        .render(
            language=language,
            running=running,
            finished=done,
            languages=_languages(language),
            here=page_name(language),
        )
    )


def _languages(current: str) -> list[dict[str, Any]]:
    return [
        {"code": code, "name": AUTONYMS.get(code, code), "href": page_name(code), "current": code == current}
        for code in LANGUAGES
    ]


@dataclass(frozen=True)
class Chart:
    """The centre chart as SVG numbers: a polyline's points per power, the axes' ticks, and the table's rows."""

    width: int
    height: int
    lines: list[tuple[str, str, str]]  # (power, colour, points)
    x_ticks: list[tuple[float, int]]
    y_ticks: list[tuple[float, int]]
    powers: list[tuple[str, str]]  # (power, colour) in the variant's order
    rows: list[tuple[int, list[int]]]  # (year, centres per power)


def _chart(story: Story) -> Chart | None:
    """The centres per power per year as lines on a grid (None before a year is told)."""
    if not story.years:
        return None
    width, height, left, bottom, top, right = 600, 260, 28, 22, 8, 8
    years = [year for year, _ in story.years]
    most = max([1] + [n for _, counts in story.years for n in counts.values()])
    most = max(most, 4)
    span = max(1, years[-1] - years[0])

    def x(year: int) -> float:
        return round(left + (width - left - right) * (year - years[0]) / span, 1)

    def y(n: int) -> float:
        return round(height - bottom - (height - bottom - top) * n / most, 1)

    colours = {p: "#{:02x}{:02x}{:02x}".format(*rgb) for p, rgb in power_colours(story.variant).items()}
    powers = [p for p in story.variant.powers if any(counts.get(p) for _, counts in story.years)]
    lines = [
        (p, colours.get(p, "#555"), " ".join(f"{x(year)},{y(counts.get(p, 0))}" for year, counts in story.years))
        for p in powers
    ]
    step = max(1, (len(years) + 9) // 10)
    x_ticks = [(x(year), year) for year in years[::step]]
    y_step = 2 if most <= 12 else 4 if most <= 24 else 10
    y_ticks = [(y(n), n) for n in range(0, most + 1, y_step)]
    rows = [(year, [counts.get(p, 0) for p in powers]) for year, counts in story.years]
    return Chart(width, height, lines, x_ticks, y_ticks, [(p, colours.get(p, "#555")) for p in powers], rows)


@lru_cache(maxsize=1)
def _env() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=True,
    )
    add_catalog_words(env)
    env.globals["ANONYMOUS_SENDER"] = ANONYMOUS_SENDER
    env.filters["phase"] = _phase
    env.filters["power"] = _power
    env.filters["powers"] = _powers
    env.filters["result"] = _result
    env.filters["failed"] = _failed
    return env


@pass_context
def _phase(context: Any, phase: Any) -> str:
    return translate(phase_words(phase), context["language"])


@pass_context
def _power(context: Any, power: str, variant: Any = None) -> str:
    """A power in the page's language as its variant names it (the page's variant, or the one given)."""
    variant = variant if variant is not None else context.get("variant")
    if variant is not None and power in variant.powers:
        return str(variant.power(power).word(context["language"]))
    return gettext(context["language"], power)


@pass_context
def _powers(context: Any, powers: Sequence[str], variant: Any = None) -> str:
    return ", ".join(_power(context, p, variant) for p in powers)


@pass_context
def _result(context: Any, line: OrderLine) -> str:
    """What became of an order in the page's language, with where a dislodged unit may retreat."""
    language = context["language"]
    words = translate(result_words(line.facts()), language)
    if not line.dislodged:
        return words
    then = (
        T("may retreat to {places}", places=", ".join(line.retreats)) if line.retreats else T("no retreat: disbanded")
    )
    return f"{words}, {translate(then, language)}"


def _failed(line: OrderLine) -> bool:
    return line.outcome is not None and line.outcome is not Outcome.SUCCEEDS
