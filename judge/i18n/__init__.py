"""One translation mechanism for every string a player reads, from the code and from the mail templates alike.

Code never builds a player-facing sentence in English and hands it on: it makes a :class:`Text` — the English
message id with ``{name}`` placeholders, and its parameters — and the mail side words it in the reader's language
with :func:`translate` (or the ``t`` filter in templates); the templates' own words are message ids of the same
catalogs (``{{ _("…") }}``, ``ngettext``, ``pgettext`` in judge/reports/render.py). Catalogs are gettext ``.po``
files in ``judge/i18n/locale/<language>/LC_MESSAGES/judge.po`` read with Babel; a message id missing from a catalog
falls back to English. Dates and relative times are formatted per locale by Babel (:func:`format_when`).

How to add a translated string or a language: docs/reports.md ("Languages", "Adding a language") and the top of each
``judge.po``.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from gettext import c2py
from pathlib import Path
from typing import Any

from babel import Locale
from babel.dates import format_skeleton, format_time, format_timedelta, get_timezone_name
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from judge.rules.orders import Outcome
from judge.rules.words import Named, Reason

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "judge"


@dataclass(frozen=True)
class Text:
    """A sentence for a player, not yet in any language: ``Text("signed on as {power} in {game}", ...)``."""

    msgid: str
    params: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        return translate(self, "en")

    def startswith(self, prefix: str) -> bool:  # code that still asks str questions of an answer keeps working
        return str(self).startswith(prefix)


def T(msgid: str, **params: Any) -> Text:
    """Mark ``msgid`` for translation, with its parameters (which may themselves be :class:`Text`)."""
    return Text(msgid, tuple(params.items()))


@cache
def _read(language: str) -> Catalog | None:
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not path.is_file():
        return None
    with path.open("rb") as f:
        return read_po(f, locale=language, domain=DOMAIN)


@cache
def _catalog(language: str) -> dict[str, str]:
    catalog = _read(language)
    if catalog is None:
        return {}
    return {
        str(m.id): str(m.string)
        for m in catalog
        if m.id and m.string and not m.fuzzy and not isinstance(m.id, (list, tuple)) and not m.context
    }


@cache
def _contexts(language: str) -> dict[tuple[str, str], str]:
    """The catalog's entries with a context (``msgctxt``): the same English word used in different places, which a
    language words differently ("an anonymous power" after "from")."""
    catalog = _read(language)
    if catalog is None:
        return {}
    return {
        (str(m.context), str(m.id)): str(m.string)
        for m in catalog
        if m.context and m.id and m.string and not m.fuzzy and not isinstance(m.id, (list, tuple))
    }


def pgettext(language: str, context: str, msgid: str) -> str:
    """``msgid`` in ``language`` as it is said in ``context`` (gettext's msgctxt); the id itself where there is no
    entry (English)."""
    return _contexts(language).get((context, msgid), msgid) if language != "en" else msgid


@cache
def _plurals(language: str) -> tuple[dict[str, tuple[str, ...]], Callable[[int], int]]:
    """The catalog's plural entries (singular msgid -> the forms, in the catalog's order) and its rule choosing one."""
    catalog = _read(language)
    if catalog is None:
        return {}, lambda n: 0 if n == 1 else 1
    forms = {
        str(m.id[0]): tuple(str(x) for x in m.string)
        for m in catalog
        if isinstance(m.id, (list, tuple)) and isinstance(m.string, (list, tuple)) and all(m.string) and not m.fuzzy
    }
    return forms, c2py(catalog.plural_expr)


def ngettext(language: str, singular: str, plural: str, count: int, **params: Any) -> str:
    """The form of ``singular``/``plural`` that ``count`` takes in ``language`` (Russian has three), its
    ``{count}`` and other placeholders filled; English (or an untranslated id) takes the singular for 1 only."""
    forms, rule = _plurals(language) if language != "en" else ({}, lambda n: 0 if n == 1 else 1)
    chosen = forms.get(singular)
    text = chosen[min(rule(count), len(chosen) - 1)] if chosen else (singular if count == 1 else plural)
    try:
        return text.format(count=count, **params)
    except (KeyError, IndexError, ValueError):  # a broken translation never hides the message
        return (singular if count == 1 else plural).format(count=count, **params)


def sentences(texts: Sequence[Text | Reason]) -> Text:
    """Several sentences as one (``a; b; c``), each worded in the reader's language: the problems of a game's
    settings, told at once."""
    if not texts:
        raise ValueError("sentences() needs at least one sentence")
    worded = [t if isinstance(t, Text) else Text(t.msgid, t.params) for t in texts]
    joined = worded[-1]
    for text in reversed(worded[:-1]):
        joined = T("{first}; {then}", first=text, then=joined)
    return joined


def gettext(language: str, msgid: str) -> str:
    """``msgid`` in ``language``; English (the id itself) where the catalog has no translation."""
    return _catalog(language).get(msgid, msgid) if language != "en" else msgid


def translate(value: Any, language: str) -> str:
    """A :class:`Text` or an engine's :class:`judge.rules.words.Reason` in ``language``; a plain string is looked up
    as a message id of its own (the engine's reasons without parameters), else shown as it is. A :class:`Named`
    (a place or a power) is the variant's own word for it in ``language`` ("Бургундия (bur)")."""
    if isinstance(value, Named):
        return value.shown(language)
    if isinstance(value, Reason):
        value = Text(value.msgid, value.params)
    if not isinstance(value, Text):
        return "" if value is None else gettext(language, str(value))
    params = {
        k: translate(v, language)
        if isinstance(v, (Text, Reason, Named))
        else (
            ", ".join(translate(x, language) for x in v)
            if isinstance(v, list)
            else gettext(language, " or ").join(translate(x, language) for x in v)
            if isinstance(v, tuple)
            else v
        )
        for k, v in value.params
    }
    try:
        return gettext(language, value.msgid).format(**params)
    except (KeyError, IndexError, ValueError):  # a broken translation never hides the message
        return value.msgid.format(**params)


def word(language: str, name: str) -> str:
    """A single name (a power, a season, a legend word) in ``language``: the catalog, else as given."""
    return gettext(language, name)


def catalog_ids(language: str) -> set[str]:
    return set(_catalog(language)) | set(_plurals(language)[0]) | {f"{c}\x04{i}" for c, i in _contexts(language)}


def format_when(when: datetime, zone: str, language: str) -> str:
    """``Sa., 5. Dez. 2026, 19:09`` / ``сб, 5 дек. 2026 г., 19:09``: a moment in ``zone`` as ``language`` writes it
    (Babel, CLDR: the locale's date with its weekday, its time, and its way of joining the two)."""
    tz, locale = zoneinfo.ZoneInfo(zone), Locale.parse(language)
    date = format_skeleton("yMMMEd", when, tzinfo=tz, locale=locale)
    time = format_time(when, "HH:mm", tzinfo=tz, locale=locale)
    return str(locale.datetime_formats["medium"]).format(time, date)


# the abbreviations a language writes for zones CLDR names only by their offset ("+0300" for Moscow in Russian)
_ZONE_WORDS = {"ru": {"MSK": "МСК", "SAMT": "САМТ", "YEKT": "ЕКТ"}}


def zone_abbreviation(when: datetime, zone: str, language: str, fallback: str) -> str:
    """The zone's short name as ``language`` writes it (``MEZ``, ``МСК``), else ``fallback`` (the zone's own
    abbreviation, ``CET``)."""
    local = when.astimezone(zoneinfo.ZoneInfo(zone))
    name = get_timezone_name(local, "short", locale=Locale.parse(language), return_zone=False)
    if name and name[0].isalpha() and " " not in name and not name.startswith(("GMT", "UTC")):
        return str(name)
    return _ZONE_WORDS.get(language, {}).get(fallback, fallback)


def format_relative(delta: Any, language: str) -> str:
    """``in 2 days`` / ``через 2 дня`` / ``in 2 Tagen``, or ``… ago`` for the past (Babel, two units at most)."""
    return format_timedelta(delta, add_direction=True, threshold=1.5, locale=Locale.parse(language))


_SEASONS = {"S": "Spring", "F": "Fall", "W": "Winter"}
_STEPS = {"M": "movement", "R": "retreats", "A": "adjustments"}


def phase_words(phase: Any) -> Text:
    """``Spring 1901 movement`` / ``Весна 1901, движение`` / ``Frühjahr 1901, Bewegung``, for any phase."""
    return T(
        "{season} {year} {step}",
        season=T(_SEASONS[phase.season.value]),
        year=phase.year,
        step=T(_STEPS[phase.step.value]),
    )


_OUTCOMES = {
    Outcome.SUCCEEDS: "succeeds",
    Outcome.BOUNCED: "bounced",
    Outcome.CUT: "cut",
    Outcome.DISLODGED: "dislodged",
    Outcome.NO_CONVOY: "no convoy",
    Outcome.VOID: "void",
    Outcome.UNMATCHED: "unmatched",
    Outcome.DISBANDED: "disbanded",
}


def outcome_word(outcome: Outcome) -> Text:
    """An outcome alone, as a results line names it: "succeeds", "no convoy"."""
    return T(_OUTCOMES[outcome])


# what a results line says became of an order, beyond the bare outcomes: the reasons the adjudicator gives
_OUTCOME_PHRASES = (
    "no order: holds",
    "no order: disbanded",
    "void: {reason}",
    "bounced with {units}",
    "bounced with {others}; the unit is disbanded",
    "cut by {units}",
    "dislodged by {units}",
    "dislodged by {units} ({attack} vs {defence})",
    "no convoy route",
)


@cache
def outcome_openings() -> tuple[frozenset[str], frozenset[str]]:
    """How the judge's results lines word what became of an order, in every language it speaks: the first words of
    every outcome and reason (``succeeds``, ``bounced``, ``выполнен``, ``отскок``, ``erfolgreich``), and the bare
    outcomes whole (``succeeds``, ``выполнен``, ``no convoy``), lower case. A player who pastes a results line back
    (``A par - bur   succeeds``) means the order (judge.commands.handlers)."""
    from judge.facts import LANGUAGES

    firsts: set[str] = set()
    whole: set[str] = set()
    for language in LANGUAGES:
        for msgid in (*_OUTCOMES.values(), *_OUTCOME_PHRASES):
            words = gettext(language, msgid).lower().split()
            if words and "{" not in words[0]:
                firsts.add(words[0].strip(":,;"))
        whole.update(gettext(language, msgid).lower() for msgid in _OUTCOMES.values())
    return frozenset(firsts), frozenset(whole)


def outcome_of(line: dict[str, Any]) -> Outcome | None:
    """The rules' outcome of a results line (stored as the enum's value), or None for a line without one."""
    value = line.get("outcome")
    if isinstance(value, Outcome):
        return value
    try:
        return Outcome(value)
    except ValueError:
        return None


def result_words(line: dict[str, Any]) -> Text:
    """What became of one order, as a player expects to read it: "no order: holds", "bounced with A war",
    "dislodged by A par", "void: Moscow is occupied", else the outcome ("succeeds")."""
    outcome, reason = outcome_of(line), line.get("reason")
    if line.get("input") is None and outcome is Outcome.SUCCEEDS:
        return T("no order: holds")
    if line.get("input") is None and outcome is Outcome.DISBANDED:
        return T("no order: disbanded")
    if outcome is Outcome.VOID:
        return T("void: {reason}", reason=reason) if reason else T("void")
    if reason and outcome is not Outcome.SUCCEEDS:
        return (
            reason
            if isinstance(reason, Text)
            else Text(reason.msgid, reason.params)
            if isinstance(reason, Reason)
            else T(str(reason))
        )
    return outcome_word(outcome) if outcome is not None else T(str(line.get("outcome") or ""))


def format_length(seconds: int, language: str) -> str:
    """A deadline length as ``language`` says it: ``2 days``, ``2 дня``, ``36 hours``."""
    from datetime import timedelta

    return format_timedelta(timedelta(seconds=seconds), threshold=2, locale=Locale.parse(language))
