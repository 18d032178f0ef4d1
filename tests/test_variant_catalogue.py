"""The variant catalogue and the rules it is written in (issue 21): maps a variant names, the board it gets, where a
power builds, neutral units, powers nobody plays, a winter start, the defender after the last year, CONCEDE; each
shipped variant played by mail to its end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from gamekit import Table
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.cli import main
from judge.data.catalog import load_variant, load_variant_file, variant_from_toml
from judge.data.resources import data_dir
from judge.reports.maps import board_geometry, draw_map, power_colours
from judge.rules.board import Position, Unit
from judge.rules.geography import UnitKind
from judge.rules.parse import parse_order
from judge.rules.phase import Phase, Season, Step
from judge.rules.turn import Submitted, play
from judge.rules.variant import NEUTRAL, Absent, Builds, VariantError, inherit, variant_from_data

SHIPPED = data_dir("variants")
CATALOGUE = (
    "build_anywhere",
    "chaos",
    "england_turkey",
    "fleet_rome",
    "fog_of_war",
    "france_austria",
    "germany_italy",
)


def _host_file(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- maps and boards ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CATALOGUE)
def test_every_catalogue_variant_gets_the_classic_board(name: str) -> None:
    variant = load_variant(name)
    assert variant.board_name == "classic" and variant.description
    assert variant.board_file is not None and variant.board_file.endswith("classic.geo.json")
    assert board_geometry(variant) is not None
    assert len(variant.geo.provinces) == 75 and len(variant.centres) == 34


def test_a_map_named_gives_every_section_the_variant_leaves_out() -> None:
    base = {"name": "Base", "description": "d", "powers": ["A", "B"], "units": {"A": []}, "names": {"ru": {"x": 1}}}
    mine = {"name": "Mine", "map": "base", "units": {"B": []}, "names": {"ru": {"powers": {}}, "de": {}}}
    merged = inherit(mine, base)
    assert merged["name"] == "Mine" and "description" not in merged and merged["powers"] == ["A", "B"]
    assert merged["units"] == {"B": []} and merged["names"] == {"ru": {"x": 1, "powers": {}}, "de": {}}


def test_a_host_file_beside_its_geometry_is_drawn_on_it(tmp_path: Path) -> None:
    text = (SHIPPED / "classic.toml").read_text(encoding="utf-8").replace('name = "Classic"', 'name = "Mine"')
    path = _host_file(tmp_path, "mine", text)
    recognised = load_variant_file(path)  # same provinces and coasts as classic: classic's board
    assert recognised.board_file == str(SHIPPED / "classic.geo.json")
    shutil.copy(SHIPPED / "classic.geo.json", tmp_path / "mine.geo.json")
    beside = load_variant_file(path)
    assert beside.board_file == str(tmp_path / "mine.geo.json") and board_geometry(beside) is not None


def test_a_new_map_without_geometry_is_warned_about(tmp_path: Path, capsys: Any) -> None:
    text = (SHIPPED / "classic.toml").read_text(encoding="utf-8")
    text = text[: text.index("[names.ru.powers]")]  # a new map: one sea more, named in English only
    text = text.replace("[provinces]\n", '[provinces]\nxyz = { name = "Open Sea", kind = "sea", at = [60, -30] }\n', 1)
    path = _host_file(tmp_path, "odd", text.replace('name = "Classic"', 'name = "Odd"'))
    capsys.readouterr()
    assert main(["variant", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "warning: no board geometry" in out and "drawn as a diagram" in out
    assert main(["variant", "check", str(SHIPPED / "chaos.toml")]) == 0
    assert "board: classic" in capsys.readouterr().out


def test_a_map_that_does_not_exist_is_a_problem(tmp_path: Path) -> None:
    with pytest.raises(VariantError) as err:
        variant_from_toml('name = "X"\nmap = "nowhere"\n', "x", "x.toml", tmp_path)
    assert err.value.problems[0].startswith("line 2: map 'nowhere'")


def test_powers_keep_their_colour_on_the_map_and_chaos_has_34() -> None:
    classic, fva = power_colours(load_variant("classic")), power_colours(load_variant("france_austria"))
    assert fva == {"Austria": classic["Austria"], "France": classic["France"]}
    chaos = power_colours(load_variant("chaos"))
    assert len(set(chaos.values())) == 34


def test_colours_are_data(tmp_path: Path) -> None:
    path = _host_file(tmp_path, "tinted", 'name = "Tinted"\nmap = "classic"\n[colours]\nFrance = "#102030"\n')
    assert power_colours(load_variant_file(path))["France"] == (16, 32, 48)
    bad = _host_file(tmp_path, "bad", 'name = "Bad"\nmap = "classic"\n[colours]\nFrance = "blue"\nFrnace = "#000000"\n')
    with pytest.raises(VariantError) as err:
        load_variant_file(bad)
    assert any('a colour is written "#rrggbb"' in p for p in err.value.problems)
    assert any("did you mean 'France'?" in p for p in err.value.problems)


# --- rules as data ---------------------------------------------------------------------------------------------------


def _play(variant: Any, pos: Position, orders: dict[str, list[str]]) -> Any:
    subs = [
        Submitted(p, line, parse_order(line, variant.geo, pos.phase.step))
        for p, lines in orders.items()
        for line in lines
    ]
    return play(variant, pos, subs)


def _pos(variant: Any, phase: str, units: dict[str, str], owners: dict[str, str]) -> Position:
    geo = variant.geo
    placed = {}
    for spec, power in units.items():
        kind, where = spec.split()
        loc = geo.by_loc_name[where]
        placed[geo.loc_province[loc]] = Unit(power, UnitKind(kind), loc)
    return Position(Phase.parse(phase), placed, {geo.by_loc_name[c]: p for c, p in owners.items()})


def test_build_anywhere_builds_in_an_owned_centre_and_classic_does_not() -> None:
    owners = {"par": "France", "bre": "France", "mar": "France", "bel": "France", "spa": "France"}
    for name, outcome in (("build_anywhere", "succeeds"), ("classic", "void")):
        variant = load_variant(name)
        pos = _pos(variant, "W1901A", {"A par": "France", "A bre": "France", "A mar": "France"}, owners)
        turn = _play(variant, pos, {"France": ["Build A bel", "Build F spa/sc"]})
        assert [r.outcome.value for r in turn.results] == [outcome, outcome]
    assert load_variant("build_anywhere").builds is Builds.OWNED


def test_chaos_opens_with_builds_and_every_centre_is_a_home() -> None:
    chaos = load_variant("chaos")
    start = chaos.start_position()
    assert start.phase == Phase(1900, Season.WINTER, Step.ADJUSTMENT) and not start.units
    assert len(chaos.powers) == 34 and all(len(chaos.home_centres(p)) == 1 for p in chaos.powers)
    assert chaos.power("Moscow").word("ru") == "Москва" and chaos.power_named("Москва") == "Moscow"
    turn = _play(chaos, start, {"Paris": ["Build A par"], "Brest": ["Build F bre"], "Rome": ["Build A nap"]})
    assert [r.outcome.value for r in turn.results] == ["succeeds", "succeeds", "void"]
    assert turn.position.phase.code == "S1901M" and len(turn.position.units) == 2
    pos = _pos(chaos, "W1901A", {"A par": "Paris"}, {"par": "Paris", "bre": "Paris"})
    assert _play(chaos, pos, {"Paris": ["Build F bre"]}).results[0].outcome.value == "succeeds"


def _neutral_classic(extra: str) -> Any:
    return variant_from_toml(f'name = "N"\nmap = "classic"\n{extra}', "n", "n.toml", SHIPPED)


def test_neutral_units_hold_defend_and_are_disbanded_when_dislodged() -> None:
    variant = _neutral_classic('[neutral]\nunits = ["A bel", "A hol"]\n')
    start = variant.start_position()
    assert {u.power for u in start.units.values()} >= {NEUTRAL}
    pos = _pos(
        variant,
        "F1901M",
        {"A bel": NEUTRAL, "A hol": NEUTRAL, "A bur": "France", "A pic": "France", "A ruh": "Germany"},
        {},
    )
    turn = _play(variant, pos, {"France": ["A bur - bel"], "Germany": ["A ruh - hol"]})
    assert all(r.power != NEUTRAL for r in turn.results)  # no order line for nobody's units
    assert turn.position.units[variant.geo.by_loc_name["bel"]].power == NEUTRAL  # held: one against one
    turn = _play(variant, pos, {"France": ["A bur - bel", "A pic S A bur - bel"]})
    assert turn.position.phase.code == "W1901A"  # dislodged and disbanded: no retreat phase
    assert turn.position.owners[variant.geo.by_loc_name["bel"]] == "France"
    assert turn.position.owners.get(variant.geo.by_loc_name["hol"]) is None  # a neutral unit takes no centre


def test_absent_powers_units_become_neutral_or_leave() -> None:
    neutral = _neutral_classic('[players]\npowers = ["France", "Germany"]\nabsent = "neutral"\n')
    assert neutral.powers == ("France", "Germany") and neutral.absent_rule is Absent.NEUTRAL
    assert len(neutral.neutral_units) == 16 and not neutral.home_centres("England")
    assert neutral.power_named("England") is None and neutral.start_ownership() == {
        c: p for c, p in load_variant("classic").start_ownership().items() if p in ("France", "Germany")
    }
    empty = load_variant("france_austria")
    assert empty.absent == ("England", "Germany", "Italy", "Russia", "Turkey") and not empty.neutral_units
    assert len(empty.start_position().units) == 6


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ('[players]\npowers = ["France"]\n', "at least two powers played"),
        ('[players]\npowers = ["France", "Frence"]\n', "did you mean 'France'?"),
        ('[players]\nabsent = "gone"\n', "absent must be one of empty, neutral"),
        ("[players]\npower = []\n", "did you mean 'powers'?"),
        ('[neutral]\nunits = ["A par"]\n', "Paris already holds a unit"),
        ('[neutral]\nunits = ["F mun"]\n', "[neutral]"),
        ("[neutral]\nunit = []\n", "did you mean 'units'?"),
        ('[rules]\nbuilds = "anywhere"\n', "builds must be one of home, owned, all-homes"),
        ('[victory]\nsolo = 18\ndefender = "France"\n', "give last_year too"),
        ('[victory]\nsolo = 18\nlast_year = 1910\ndefender = "Spain"\n', "defender: 'Spain'"),
        ('[homes]\nFrance = ["bur"]\n', "home centre of France is not a supply centre"),
        ('[start]\nyear = 1901\nseason = "fall"\n', "season must be one of spring, winter"),
        ('powers = ["Neutral", "B"]\n', "owner of neutral units"),
        ("[names.ru]\ntitle = 3\n", "[names.ru] title: the variant's name in the language, in quotes"),
    ],
)
def test_rules_sections_are_checked(extra: str, problem: str) -> None:
    with pytest.raises(VariantError) as err:
        _neutral_classic(extra)
    assert any(problem in p for p in err.value.problems), err.value.problems


@settings(max_examples=60, deadline=None)
@given(
    section=st.sampled_from(["rules", "players", "neutral", "colours", "homes"]),
    key=st.sampled_from(["builds", "powers", "absent", "units", "France", "x"]),
    value=st.one_of(
        st.text(max_size=8),
        st.integers(),
        st.booleans(),
        st.lists(st.sampled_from(["France", "A bel", "F nth", "par", "zzz", ""]), max_size=3),
    ),
)
def test_any_rules_section_loads_or_says_what_is_wrong(section: str, key: str, value: Any) -> None:
    data = inherit({"name": "P", section: {key: value}}, _classic_data())
    try:
        variant = variant_from_data(data, "p")
    except VariantError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
    else:
        assert len(variant.powers) >= 2


def _classic_data() -> dict[str, Any]:
    import tomllib

    return tomllib.loads((SHIPPED / "classic.toml").read_text(encoding="utf-8"))


def test_the_defender_wins_when_the_last_year_ends_short_of_the_line() -> None:
    fva = load_variant("france_austria")
    rule = fva.victory
    assert rule.decide({"Austria": 12, "France": 6}, 34, 1912).winner == "France"
    assert rule.decide({"Austria": 12, "France": 6}, 34, 1911).winner is None
    assert rule.decide({"Austria": 18, "France": 6}, 34, 1905).winner == "Austria"
    gvi = load_variant("germany_italy").victory
    assert gvi.decide({"Germany": 12, "Italy": 6}, 34, 1912).winner == "Germany"
    assert gvi.decide({"Germany": 9, "Italy": 9}, 34, 1912).powers == ("Germany", "Italy")


def test_variant_show_prints_the_rules_and_writes_the_start_board(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "fva.png"
    assert main(["variant", "show", "france_austria", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "nobody plays England, Germany, Italy, Russia, Turkey" in text and "France wins" in text
    assert "CONCEDE" in text and out.read_bytes().startswith(b"\x89PNG")
    assert main(["variant", "list"]) == 0
    listed = capsys.readouterr().out
    for name in CATALOGUE:
        assert f"{load_variant(name).name} (shipped): {load_variant(name).description}" in listed


def test_the_chaos_board_is_drawn_with_34_powers() -> None:
    chaos = load_variant("chaos")
    pos = _pos(chaos, "S1901M", {"A par": "Paris", "F bre": "Brest", "A mos": "Moscow"}, {})
    pos = Position(pos.phase, pos.units, chaos.start_ownership())
    drawing = draw_map(chaos, pos)
    assert drawing.image.mode == "P" and len(drawing.png()) < 100_000


# --- played by mail to the end ---------------------------------------------------------------------------------------


def addr(power: str) -> str:
    return f"{power.lower().replace(' ', '')}@players.test"


def _seated(t: Table, capsys: Any, variant: str, powers: tuple[str, ...], *options: str) -> None:
    assert t.cli("game", "create", "g1", "--variant", variant, "--deadline", "48h", *options) == 0
    for power in powers:
        text = t.reply(addr(power), f"JOIN g1 pw-{power.replace(' ', '')} {power}")
        assert "joined g1" in text, text
    assert t.cli("game", "start", "g1", "--seed", "3") == 0


def _orders(t: Table, power: str, *lines: str) -> str:
    body = "\n".join([f'SIGNON "{power}" g1 pw-{power.replace(" ", "")}', *lines, "READY"])
    if " " not in power:
        body = body.replace(f'"{power}"', power)
    return t.reply(addr(power), body)


def _over(t: Table, capsys: Any) -> dict[str, Any]:
    shown = t.show("g1", capsys)
    assert shown["status"] == "finished", shown
    return shown


def test_england_turkey_ends_by_concession(tmp_path: Path, capsys: Any) -> None:
    t = Table(tmp_path / "judge.db")
    _seated(t, capsys, "england_turkey", ("England", "Turkey"))
    shown = t.show("g1", capsys)
    assert sorted(shown["units"]["England"]) == ["A lvp", "F eng", "F nth"]
    t.later(hours=1)
    assert "OK" in _orders(t, "England", "F nth - nwy", "F eng - bel", "A lvp - yor")
    _orders(t, "Turkey", "A con - bul", "F ank - bla", "A smy - arm")
    assert t.show("g1", capsys)["phase"] == "F1901M"
    text = t.reply(addr("Turkey"), "SIGNON Turkey g1 pw-Turkey\nCONCEDE")
    assert "Turkey concedes: England wins game g1" in text
    shown = _over(t, capsys)
    assert shown["result"] == {"kind": "solo", "winner": "England", "conceded": "Turkey"}
    over = [m for m in t.outbox() if "is over" in m["subject"]]
    assert over and "Turkey conceded the game: England wins." in over[0]["body"]


def test_concede_needs_a_game_of_two_powers(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g1", "--variant", "classic")
    text = t.reply("france@p.test", "SIGNON France g1 pw-France\nCONCEDE")
    assert "ERROR" in text and "7 powers still in it" in text


def test_france_austria_the_defender_wins_after_the_last_year(tmp_path: Path, capsys: Any) -> None:
    t = Table(tmp_path / "judge.db")
    _seated(t, capsys, "france_austria", ("Austria", "France"), "--last-year", "1902")
    for orders in (
        {"France": ["A par - bur", "A mar - spa", "F bre - mao"], "Austria": ["A vie - gal", "A bud - ser"]},
        {"France": ["A bur - bel", "F mao - por"], "Austria": ["A ser - rum", "F tri - alb"]},
    ):
        t.later(hours=1)
        for power, lines in orders.items():
            _orders(t, power, *lines)
    shown = t.show("g1", capsys)
    assert shown["phase"] == "W1901A"
    t.later(hours=1)
    _orders(t, "France", "Build A par", "Build A mar", "Build F bre")
    _orders(t, "Austria", "Build A vie", "Build A bud")
    for _ in range(2):  # Spring and Fall 1902: everyone ready with no orders
        t.later(hours=1)
        _orders(t, "France")
        _orders(t, "Austria")
    shown = _over(t, capsys)
    assert shown["result"]["winner"] == "France"  # Austria has fewer than 18 centres: the defender wins


def test_germany_italy_the_leader_wins_after_the_last_year(tmp_path: Path, capsys: Any) -> None:
    t = Table(tmp_path / "judge.db")
    _seated(t, capsys, "germany_italy", ("Germany", "Italy"), "--last-year", "1902")
    t.later(hours=1)
    _orders(t, "Germany", "A mun - ruh", "F kie - den", "A ber - kie")
    _orders(t, "Italy", "A ven - pie", "A rom - ven", "F nap - ion")
    t.later(hours=1)
    _orders(t, "Germany", "A ruh - hol", "F den H")
    _orders(t, "Italy", "F ion - tun")
    t.later(hours=1)
    _orders(t, "Germany", "Build A mun", "Build A ber")
    _orders(t, "Italy", "Build F nap")
    for _ in range(2):  # 1902: nobody moves
        t.later(hours=1)
        assert t.cli("game", "process", "g1") == 0
    shown = _over(t, capsys)
    assert shown["result"]["winner"] == "Germany"  # 5 centres against Italy's 4 after the last year


@pytest.mark.parametrize("variant", ["fleet_rome", "build_anywhere"])
def test_seven_player_catalogue_games_run_to_their_last_year(tmp_path: Path, capsys: Any, variant: str) -> None:
    t = Table(tmp_path / "judge.db")
    powers = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
    _seated(t, capsys, variant, powers, "--last-year", "1902", "--tie-others", "draw")
    shown = t.show("g1", capsys)
    assert ("F rom" in shown["units"]["Italy"]) == (variant == "fleet_rome")
    t.later(hours=1)
    _orders(t, "Italy", "F rom - tys" if variant == "fleet_rome" else "A rom - apu", "F nap - ion")
    _orders(t, "France", "A par - bur", "A mar - spa", "F bre - mao")
    assert t.cli("game", "process", "g1") == 0
    t.later(hours=1)
    _orders(t, "Italy", "F ion - tun")
    _orders(t, "France", "A bur - bel", "F mao - por")
    assert t.cli("game", "process", "g1") == 0
    while t.show("g1", capsys)["status"] != "finished":  # Winter 1901 (civil disorder waives), 1902: units hold
        t.later(hours=1)
        assert t.cli("game", "process", "g1") == 0
    shown = _over(t, capsys)
    assert shown["result"] == {"kind": "solo", "winner": "France"}  # 6 centres, the most after 1902


def test_build_anywhere_by_mail_builds_in_a_conquered_centre(tmp_path: Path, capsys: Any) -> None:
    t = Table(tmp_path / "judge.db")
    powers = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
    _seated(t, capsys, "build_anywhere", powers)
    t.later(hours=1)
    _orders(t, "France", "A par - bur", "A mar - spa", "F bre - mao")
    assert t.cli("game", "process", "g1") == 0
    t.later(hours=1)
    _orders(t, "France", "A bur - bel", "F mao - por", "A spa H")
    assert t.cli("game", "process", "g1") == 0
    assert t.show("g1", capsys)["phase"] == "W1901A"
    text = t.reply(addr("France"), "SIGNON France g1 pw-France\nBuild A bel\nBuild A par")
    assert "ERROR: Belgium is occupied" in text and "is not a home centre" not in text, text
    assert "OK: build A par" in text, text


def test_chaos_by_mail_from_the_first_builds(tmp_path: Path, capsys: Any) -> None:
    t = Table(tmp_path / "judge.db")
    chaos = load_variant("chaos")
    _seated(t, capsys, "chaos", chaos.powers, "--last-year", "1901", "--tie-others", "draw")
    shown = t.show("g1", capsys)
    assert shown["phase"] == "W1900A"
    t.later(hours=1)
    _orders(t, "Paris", "Build A par")
    _orders(t, "Brest", "Build F bre")
    _orders(t, "St-Petersburg", "Build F stp/sc")
    assert t.cli("game", "process", "g1") == 0
    shown = t.show("g1", capsys)
    assert shown["phase"] == "S1901M" and shown["units"]["Paris"] == ["A par"]
    t.later(hours=1)
    _orders(t, "Paris", "A par - pic")
    assert t.cli("game", "process", "g1") == 0
    t.later(hours=1)
    _orders(t, "Paris", "A pic - bel")
    assert t.cli("game", "process", "g1") == 0
    shown = _over(t, capsys)
    assert shown["result"]["kind"] == "solo" and shown["result"]["winner"] == "Paris"  # 2 centres, alone ahead
    assert json.dumps(shown)


@pytest.mark.parametrize(
    "variant",
    ["build_anywhere", "chaos", "fleet_rome", "fog_of_war", "france_austria", "england_turkey", "germany_italy"],
)
def test_a_played_game_of_each_variant_leaves_no_english_name_in_a_russian_or_german_mail(
    tmp_path: Path, capsys: Any, variant: str
) -> None:
    """Issue 22 for every shipped variant (Classic and Cold War are played in test_mail_words and test_names_by_mail):
    a reader in Russian and one in German get two phases' results and the information commands, and no
    English place or power name of the variant's data is in what they read."""
    from tests.test_mail_words import variant_names_left

    data = load_variant(variant)
    t = Table(tmp_path / "judge.db")
    _seated(t, capsys, variant, data.powers)
    readers = {data.powers[0]: "ru", data.powers[1]: "de"}
    for power, language in readers.items():
        _orders(t, power, f"SET LANGUAGE {language}")
    chosen = max(r["id"] for r in t.outbox())  # the start mail went out in English, before they chose
    for _ in range(2):
        t.later(hours=49)
        assert t.cli("game", "process", "g1") == 0
    for power in readers:
        _orders(t, power, "LIST g1", "SUMMARY g1", "HISTORY g1", "ORDERS")
    for power, language in readers.items():
        mails = [r for r in t.outbox() if r["to_addr"] == addr(power) and r["id"] > chosen]
        assert len(mails) >= 3, [m["subject"] for m in mails]
        assert variant_names_left(mails, language, variant) == {}, language


def test_a_variant_is_named_in_the_readers_language_and_never_by_its_maps_title() -> None:
    assert load_variant("germany_italy").title.word("ru") == "Германия против Италии"
    assert load_variant("germany_italy").title.word("de") == "Deutschland gegen Italien"
    assert load_variant("classic").title.word("de") == "Klassik"
    assert str(load_variant("classic").title) == "Classic"  # English is the name itself
    base = {"name": "Classic", "names": {"ru": {"title": "Классика", "powers": {"Russia": "Россия"}}}}
    merged = inherit({"name": "Mine", "map": "classic"}, base)
    assert merged["names"]["ru"] == {"powers": {"Russia": "Россия"}}
