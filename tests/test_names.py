"""Names per language as variant data (``[names.<language>]``): the shipped variants name every power, province and
split coast in Russian and German, a name is found in any case and spelling the data allows, and a variant file's
mistakes in its names are problems `judge variant check` names."""

from __future__ import annotations

import copy
import tomllib
from typing import Any

import pytest

from judge.data.catalog import load_variant
from judge.data.resources import data_dir
from judge.rules.variant import VariantError, variant_from_data
from judge.rules.words import Named

SHIPPED = ("classic", "coldwar")
LANGUAGES = ("ru", "de")


def _data(name: str) -> dict[str, Any]:
    return tomllib.loads((data_dir("variants") / f"{name}.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", SHIPPED)
def test_every_power_province_and_coast_is_named_in_russian_and_german(name: str) -> None:
    variant = load_variant(name)
    assert set(LANGUAGES) <= set(variant.languages)
    for language in LANGUAGES:
        for power in variant.powers:
            assert variant.power(power).word(language) != "", power
        for prov in variant.geo.provinces:
            assert dict(prov.words).get(language), (language, prov.abbr)
        for coast in {c for p in variant.geo.provinces for c in p.coasts}:
            assert variant.coast_name(coast, language) != coast


@pytest.mark.parametrize("name", SHIPPED)
def test_russian_names_are_cyrillic_and_differ_from_english(name: str) -> None:
    variant = load_variant(name)
    for prov in variant.geo.provinces:
        russian = dict(prov.words)["ru"]
        assert all(not ch.isascii() or not ch.isalpha() for ch in russian), russian


def test_a_place_is_shown_with_its_abbreviation_in_another_language() -> None:
    geo = load_variant("classic").geo
    bur = geo.provinces[geo.loc("bur")].named
    assert isinstance(bur, Named) and str(bur) == "Burgundy"
    assert bur.shown("ru") == "Бургундия (bur)"
    assert bur.shown("de") == "Burgund (bur)"
    assert bur.shown("en") == "Burgundy"


@pytest.mark.parametrize(
    ("text", "power"),
    [
        ("Россия", "Russia"),
        ("россия", "Russia"),
        ("Russland", "Russia"),
        ("Österreich", "Austria"),
        ("Oesterreich", "Austria"),
        ("Osterreich", "Austria"),
        ("Türkei", "Turkey"),
        ("Tuerkei", "Turkey"),
        ("turkey", "Turkey"),
        ("Frankreich", "France"),
        ("Марс", None),
    ],
)
def test_a_power_is_named_in_any_shipped_language(text: str, power: str | None) -> None:
    assert load_variant("classic").power_named(text) == power


def test_cold_war_powers_in_russian_and_german() -> None:
    variant = load_variant("coldwar")
    assert variant.power_named("СССР") == "USSR"
    assert variant.power_named("Советский Союз") == "USSR"
    assert variant.power_named("UdSSR") == "USSR"
    assert variant.power_named("НАТО") == "NATO"
    assert variant.power_names("ru") == ("СССР", "НАТО")


def _problems(change: Any) -> list[str]:
    data = copy.deepcopy(_data("classic"))
    change(data)
    with pytest.raises(VariantError) as caught:
        variant_from_data(data, "classic")
    return caught.value.problems


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d: d["names"]["ru"]["provinces"].pop("bur"), "[names.ru.provinces] no name for bur"),
        (lambda d: d["names"]["de"]["powers"].pop("Russia"), "[names.de.powers] no name for Russia"),
        (lambda d: d["names"]["ru"]["coasts"].pop("ec"), "[names.ru.coasts] no name for ec"),
        (
            lambda d: d["names"]["ru"]["provinces"].update(xyz="Икс"),
            "[names.ru.provinces] xyz: not one of the provinces",
        ),
        (
            lambda d: d["names"]["de"]["powers"].update(Rusia="Russland"),
            "[names.de.powers] Rusia: not one of the powers; did you mean 'Russia'?",
        ),
        (lambda d: d["names"]["ru"]["provinces"].update(bur=3), "[names.ru.provinces] bur: must be a name in quotes"),
        (lambda d: d["names"]["ru"]["provinces"].update(bur=[]), "[names.ru.provinces] bur: must be a name in quotes"),
        (lambda d: d["names"]["ru"]["provinces"].update(bur="Париж"), "'Париж' also names"),
        (
            lambda d: d["names"]["de"]["provinces"].update(bur=["Burgund", "Paris"]),
            "[names] bur: 'Paris' also names par",
        ),
        (lambda d: d["names"]["de"]["powers"].update(France="Deutschland"), "'Deutschland' also names"),
        (lambda d: d["names"].update(english={}), "[names.english]: a language is a code like ru or de"),
        (lambda d: d["names"].update(en={}), "[names.en]: a language is a code like ru or de"),
        (
            lambda d: d["names"]["ru"].update(province={}),
            "[names.ru] unknown key 'province'; did you mean 'provinces'?",
        ),
    ],
)
def test_mistakes_in_names_are_problems(change: Any, problem: str) -> None:
    problems = _problems(change)
    assert any(problem in p for p in problems), problems


def test_a_host_variant_may_name_its_places_in_a_language_of_its_own() -> None:
    data = copy.deepcopy(_data("classic"))
    data["names"]["fr"] = {
        "powers": {p: p + "-fr" for p in data["powers"]},
        "provinces": {abbr: f"{abbr}-fr" for abbr in data["provinces"]},
        "coasts": {"nc": "côte nord", "sc": "côte sud", "ec": "côte est"},
    }
    variant = variant_from_data(data, "classic")
    assert variant.languages == ("ru", "de", "fr")
    assert variant.geo.provinces[variant.geo.loc("bur")].named.shown("fr") == "bur-fr (bur)"
    assert variant.power_named("France-fr") == "France"


def test_problems_in_names_name_their_line() -> None:
    from judge.data.catalog import variant_from_toml

    text = (data_dir("variants") / "classic.toml").read_text(encoding="utf-8")
    broken = text.replace('bur = "Burgund"', 'bur = "Paris"')
    with pytest.raises(VariantError) as caught:
        variant_from_toml(broken, "classic")
    assert any("'Paris' also names par" in p for p in caught.value.problems)
    broken = text.replace("xyz", "x").replace('bur = "Бургундия"', 'buf = "Бургундия"')
    with pytest.raises(VariantError) as caught:
        variant_from_toml(broken, "classic")
    line = next(n for n, row in enumerate(broken.splitlines(), 1) if row.startswith("buf = "))
    assert any(p.startswith(f"line {line}: [names.ru.provinces] buf") for p in caught.value.problems), caught.value


# --- orders in any language parse as in English (hypothesis) ---------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from judge.rules.parse import OrderError, parse_order  # noqa: E402
from judge.rules.phase import Step  # noqa: E402

_UNIT = {
    "en": (("A", "Army", "army"), ("F", "Fleet", "fleet")),
    "ru": (("А", "армия", "Армия", "арм"), ("Ф", "флот", "Флот", "фл")),
    "de": (("A", "Armee"), ("F", "Flotte")),
}
_VERB = {
    "en": {"move": ("-", "to", "->"), "support": ("S", "supports"), "convoy": ("C", "convoys"), "hold": ("H", "holds")},
    "ru": {
        "move": ("-", "идёт", "->"),
        "support": ("П", "поддерживает", "под"),
        "convoy": ("К", "конвоирует"),
        "hold": ("стоит", "Н", "держит"),
    },
    "de": {
        "move": ("-", "nach", "zieht nach"),
        "support": ("U", "unterstützt"),
        "convoy": ("K", "konvoiert"),
        "hold": ("H", "hält"),
    },
}


@st.composite
def _orders(draw: Any) -> tuple[str, str, str]:
    """(variant, the order in English, the same order in another language): names, unit words and verbs each chosen
    among the ways the language writes them, in any case."""
    variant = load_variant(draw(st.sampled_from(SHIPPED)))
    language = draw(st.sampled_from(LANGUAGES))
    provinces = [p for p in variant.geo.provinces if not p.coasts]
    places = draw(st.lists(st.sampled_from(provinces), min_size=3, max_size=3))
    shape = draw(st.sampled_from(("hold", "move", "support-hold", "support-move", "convoy")))
    kinds = draw(st.lists(st.integers(0, 1), min_size=2, max_size=2))
    if shape == "convoy":
        kinds = [1, 0]

    def written(lang: str) -> str:
        def name(p: Any) -> str:
            choice = draw(st.sampled_from(("name", "abbr", "upper")))
            if choice == "abbr":
                return str(p.abbr)
            word = str(p.name) if lang == "en" else dict(p.words)[lang]
            return word.upper() if choice == "upper" else word

        def unit(i: int, p: Any) -> str:
            return f"{draw(st.sampled_from(_UNIT[lang][kinds[i]]))} {name(p)}"

        def verb(v: str) -> str:
            return draw(st.sampled_from(_VERB[lang][v]))

        a, b, c = places
        if shape == "hold":
            return f"{unit(0, a)} {verb('hold')}"
        if shape == "move":
            return f"{unit(0, a)} {verb('move')} {name(b)}"
        if shape == "support-hold":
            return f"{unit(0, a)} {verb('support')} {unit(1, b)}"
        if shape == "support-move":
            return f"{unit(0, a)} {verb('support')} {unit(1, b)} {verb('move')} {name(c)}"
        return f"{unit(0, a)} {verb('convoy')} {unit(1, b)} {verb('move')} {name(c)}"

    return variant.key, written("en"), written(language)


@settings(max_examples=300, deadline=None)
@given(_orders())
def test_an_order_in_russian_or_german_parses_as_in_english(case: tuple[str, str, str]) -> None:
    name, english, local = case
    geo = load_variant(name).geo
    want = parse_order(english, geo, Step.MOVEMENT)
    got = parse_order(local, geo, Step.MOVEMENT)
    assert not isinstance(want, OrderError), (english, want)
    assert got == want, (english, local, got)


_LOOKALIKES = dict(zip("AaEeKkMOoPpCcTXxHBy", "АаЕеКкМОоРрСсТХхНВу", strict=True))


@settings(max_examples=300, deadline=None)
@given(_orders(), st.data())
def test_cyrillic_lookalikes_in_unit_letters_and_abbreviations_are_read_as_latin(
    case: tuple[str, str, str], data: Any
) -> None:
    name, english, _ = case
    geo = load_variant(name).geo
    swapped = "".join(_LOOKALIKES[ch] if ch in _LOOKALIKES and data.draw(st.booleans()) else ch for ch in english)
    words = english.split()
    if any(len(w) > 3 and w.lower() not in ("army", "fleet") for w in words):  # names: only abbreviations swap
        return
    assert parse_order(swapped, geo, Step.MOVEMENT) == parse_order(english, geo, Step.MOVEMENT), swapped
