"""Variant validation: each kind of mistake a variant author can make is named in words (one case per message).

Every case changes one thing in the classic variant's data and expects the problem it makes among those listed."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from typing import Any

import pytest

from judge.data.resources import data_dir
from judge.rules.variant import VariantError, variant_from_data

Change = Callable[[dict[str, Any]], None]


def _classic() -> dict[str, Any]:
    return tomllib.loads((data_dir("variants") / "classic.toml").read_text(encoding="utf-8"))


def _province(abbr: str, **changes: Any) -> Change:
    def change(data: dict[str, Any]) -> None:
        data["provinces"][abbr] = {**data["provinces"][abbr], **changes}

    return change


def _victory(**changes: Any) -> Change:
    def change(data: dict[str, Any]) -> None:
        data["victory"] = {**data["victory"], **changes}

    return change


def _set(table: str, key: str, value: Any) -> Change:
    def change(data: dict[str, Any]) -> None:
        data[table][key] = value

    return change


def _without_at(data: dict[str, Any]) -> None:
    del data["provinces"]["spa"]["at"]


def _upper_case_province(data: dict[str, Any]) -> None:
    data["provinces"]["Xyz"] = {"name": "Nowhere", "kind": "land"}


CASES: dict[str, tuple[Change, str]] = {
    "power twice": (lambda d: d.update(powers=[*d["powers"], "France"]), "a power is listed twice in powers"),
    "powers not a list": (lambda d: d.update(powers="France"), "powers must be a list of names in quotes"),
    "province a value": (_set("provinces", "boh", "Bohemia"), "province boh: must be a table like"),
    "province upper case": (_upper_case_province, "province Xyz: abbreviation must be lower-case"),
    "unknown terrain": (_province("boh", kind="swamp"), "kind must be land, sea or coast, not 'swamp'"),
    "alias taken": (_province("boh", aliases=["munich"]), "name or alias 'munich' is also used by"),
    "coast points without a point": (_without_at, "province spa: coast_at needs at"),
    "sea centre": (_province("nth", centre=True), "province nth: a sea cannot be a supply centre"),
    "land with coasts": (_province("boh", coasts=["nc", "sc"]), "only a coast province can have split coasts"),
    "one coast": (_province("spa", coasts=["nc"], coast_at={}), "a split coast needs at least two coasts"),
    "unknown coast": (_province("spa", coasts=["nc", "xc"], coast_at={}), "unknown coast 'xc'"),
    "point off the globe": (_province("boh", at=[95, 10]), "latitude must be within -90..90"),
    "point not two numbers": (_province("boh", at="here"), "must be [latitude, longitude]"),
    "coast points a value": (_province("spa", coast_at=5), "coast_at must be a table like"),
    "coast point of no coast": (_province("spa", coast_at={"ec": [40, 0]}), "coast_at names 'ec'"),
    "coast point of a plain coast": (_province("bre", coast_at={"nc": [48, -4]}), "(it has no split coasts)"),
    "edge to itself": (_set("army", "boh", ["gal", "mun", "sil", "tyr", "vie", "boh"]), "[army] boh lists itself"),
    "army at sea": (_set("army", "nth", ["lon"]), "[army] nth: armies cannot stand there"),
    "adjacency a value": (_set("army", "boh", "gal"), "[army] boh: must be a list of provinces in quotes"),
    "adjacency of nothing": (_set("army", "xyz", ["gal"]), "[army] xyz: unknown province or coast"),
    "units a value": (_set("units", "France", "A par"), "[units] France: must be a list like"),
    "unit nowhere": (_set("units", "France", ["F bre", "A xyz"]), "'A xyz': unknown province or coast"),
    "unit not a unit": (_set("units", "France", ["F bre", "Paris"]), "'Paris' is not like"),
    "units of no power": (_set("units", "Narnia", ["A boh"]), "[units] Narnia: not one of the powers"),
    "two units in one place": (_set("units", "France", ["F bre", "A mar", "A par", "A par"]), "already holds a unit"),
    "season": (_set("start", "season", "monsoon"), "[start] season must be one of"),
    "start year": (_set("start", "year", "1901"), "[start] year must be a whole number"),
    "start key": (_set("start", "yaer", 1901), "[start] unknown key 'yaer'"),
    "last year a word": (_victory(last_year="soon"), "last_year must be a year (a whole number)"),
    "last year first": (_victory(last_year=1900), "last_year 1900 must be after the start year 1901"),
    "by year a value": (_victory(by_year=16), "by_year must be a table like"),
    "by year zero": (_victory(by_year={"1905": 0}), "[victory.by_year] 1905 = 0: need year = centres"),
    "by year early": (_victory(by_year={"1900": 16}), "[victory.by_year] 1900: before the start year 1901"),
    "by year late": (_victory(by_year={"1912": 16}, last_year=1910), "1912: after the last year 1910"),
    "by year too many": (_victory(by_year={"1905": 40}), "1905 = 40: more than the 34 centres"),
    "tie break a value": (_victory(tie_break="France"), "tie_break must be a list of powers"),
    "tie break twice": (_victory(tie_break=["France", "France"], tie_others="draw"), "tie_break lists a power twice"),
    "tie break stranger": (_victory(tie_break=["Narnia"], tie_others="draw"), "tie_break: 'Narnia' is not one"),
    "tie break partial": (_victory(tie_break=["France"]), "tie_break does not name Austria"),
    "tie others": (_victory(tie_others="coin"), "tie_others must be one of"),
    "solo word": (_victory(solo="most"), "[victory]"),
    "low line without a tie rule": (_victory(solo=10), "a line of 10 is at or below half of the 34 centres"),
    "points a value": (_victory(points=5), "points must be a table like"),
    "points of nowhere": (_victory(points={"xyz": 2}), "points: 'xyz' is not a province"),
    "points negative": (_victory(points={"rom": -1}), "points: rom = -1: a value is a whole number"),
    "victory key": (_victory(sollo=18), "[victory] unknown key 'sollo'"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_mistake_is_named(case: str) -> None:
    change, expected = CASES[case]
    data = _classic()
    change(data)
    with pytest.raises(VariantError) as err:
        variant_from_data(data, "broken")
    assert any(expected in problem for problem in err.value.problems), err.value.problems


def test_missing_parts_are_named_before_anything_else() -> None:
    data = _classic()
    del data["name"], data["army"]
    with pytest.raises(VariantError) as err:
        variant_from_data(data, "broken")
    assert err.value.problems == ["missing key 'name'", "missing [army]"]


def test_wrong_kinds_of_parts_come_with_the_unknown_keys() -> None:
    data = _classic()
    data["name"], data["fleet"], data["flavour"] = 7, ["nth"], "red"
    with pytest.raises(VariantError) as err:
        variant_from_data(data, "broken")
    assert err.value.problems == [
        "unknown key 'flavour'",
        "name must be a string in quotes, not 7",
        "[fleet] must be a table, not ['nth']",
    ]


def test_the_classic_data_itself_is_valid() -> None:
    assert variant_from_data(_classic(), "classic").powers[0] == "Austria"
