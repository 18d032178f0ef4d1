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
