"""Fog of War (issue 21): the visibility rule (judge.rules.visibility), and a real game by mail in which no player is
ever told, in any mail, picture, HISTORY or sandbox, where another power's hidden unit stands — until the end, which
shows the whole game."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from gamekit import Table
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from judge.data.catalog import load_variant, variant_from_toml
from judge.game.records import load_game
from judge.game.sandbox_game import from_game
from judge.reports.maps import render_map
from judge.rules.board import Position, Unit
from judge.rules.edition import DEFAULT_EDITION
from judge.rules.geography import Terrain, UnitKind
from judge.rules.legality import check_order, unconvoyable_moves
from judge.rules.orders import Convoy, Hold, Move, SupportHold, SupportMove
from judge.rules.phase import Phase
from judge.rules.variant import VariantError
from judge.rules.visibility import fogged, imagined, neighbours, order_seen, own_places, visible_provinces

FOG = load_variant("fog_of_war")
GEO = FOG.geo
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def _prov(name: str) -> int:
    return GEO.loc_province[GEO.by_loc_name[name]]


def _names(provs: frozenset[int]) -> set[str]:
    return {GEO.provinces[p].abbr for p in provs}


# --- the variant ------------------------------------------------------------------------------------------------------


def test_the_catalogue_has_fog_of_war_on_the_classic_board() -> None:
    assert FOG.fog and not load_variant("classic").fog
    assert FOG.board_name == "classic" and FOG.board_file is not None and FOG.description
    assert FOG.title.word("ru") == "Туман войны" and FOG.title.word("de") == "Nebel des Krieges"
    assert FOG.start_position() == load_variant("classic").start_position()


def test_variant_show_tells_the_fog(capsys: Any, tmp_path: Path) -> None:
    from judge.cli import main

    assert main(["variant", "show", "fog_of_war", "-o", str(tmp_path / "fog.png")]) == 0
    assert "Fog of War: each power sees only" in capsys.readouterr().out
    assert main(["variant", "show", "classic", "-o", str(tmp_path / "classic.png")]) == 0
    assert "Fog of War" not in capsys.readouterr().out


@pytest.mark.parametrize("value", ['"yes"', "1", "[true]"])
def test_fog_must_be_true_or_false(tmp_path: Path, value: str) -> None:
    with pytest.raises(VariantError) as err:
        variant_from_toml(f'name = "X"\nmap = "classic"\n[rules]\nfog = {value}\n', "x", "x.toml", tmp_path)
    assert any("fog must be true or false" in p for p in err.value.problems)
    with pytest.raises(VariantError) as err:
        variant_from_toml('name = "X"\nmap = "classic"\n[rules]\nfgo = true\n', "x", "x.toml", tmp_path)
    assert any("did you mean 'fog'?" in p for p in err.value.problems)


# --- the rule ---------------------------------------------------------------------------------------------------------


def test_a_power_sees_its_places_and_their_neighbours_at_the_start() -> None:
    start = FOG.start_position()
    england = visible_provinces(GEO, start, ["England"])
    assert {"lon", "edi", "lvp", "nth", "eng", "nwg", "yor", "wal", "cly", "iri", "nao"} <= _names(england)
    assert not {"bre", "par", "pic", "bel", "hol", "nwy"} & _names(england)
    assert not any(u.power != "England" for p, u in start.units.items() if p in england)
    # a split coast's province sees from both coasts, by army and fleet moves alike
    assert _names(neighbours(GEO, _prov("spa"))) == {"por", "gas", "mar", "mao", "wes", "lyo"}
    assert _names(neighbours(GEO, _prov("nth"))) >= {"nwy", "ska", "den", "hel", "hol", "bel", "eng", "edi", "yor"}


def test_a_fogged_board_keeps_only_what_stands_where_the_power_sees() -> None:
    start = FOG.start_position()
    seen = visible_provinces(GEO, start, ["France"])
    mine = fogged(start, seen)
    assert {u.power for u in mine.units.values()} == {"France"}
    assert set(mine.owners.values()) == {"France"}
    both = visible_provinces(GEO, start, ["France", "Germany"])
    assert both == seen | visible_provinces(GEO, start, ["Germany"])


def test_an_order_is_seen_where_its_unit_or_its_target_place_is() -> None:
    seen = frozenset({_prov("bur")})
    assert order_seen(GEO, {"type": "move", "unit": "A", "at": "par", "to": "bur"}, seen)
    assert order_seen(GEO, {"type": "hold", "unit": "A", "at": "bur"}, seen)
    assert not order_seen(GEO, {"type": "move", "unit": "A", "at": "par", "to": "pic"}, seen)
    assert not order_seen(GEO, {"type": "waive"}, seen) and not order_seen(GEO, None, seen)


LAND_OR_COAST = [p.id for p in GEO.provinces if p.terrain is not Terrain.SEA]


@st.composite
def positions(draw: Any) -> Position:
    provs = draw(st.lists(st.sampled_from(range(len(GEO.provinces))), unique=True, max_size=30))
    units = {}
    for prov in provs:
        kind = UnitKind.FLEET if GEO.provinces[prov].terrain is Terrain.SEA else UnitKind.ARMY
        units[prov] = Unit(draw(st.sampled_from(POWERS)), kind, prov)
    centres = sorted(FOG.centres)
    owned = draw(st.lists(st.sampled_from(centres), unique=True, max_size=34))
    owners = {c: draw(st.sampled_from(POWERS)) for c in owned}
    return Position(Phase.parse("S1901M"), units, owners)


@settings(max_examples=150, deadline=None)
@given(positions(), st.sampled_from(POWERS), st.sampled_from(range(len(GEO.provinces))))
def test_visibility_properties(pos: Position, power: str, extra: int) -> None:
    seen = visible_provinces(GEO, pos, [power])
    # a power always sees its own units and centres, and the neighbours of each
    assert own_places(pos, [power]) <= seen
    for prov in own_places(pos, [power]):
        assert neighbours(GEO, prov) <= seen
    # nothing else: every province seen is one of its places or next to one
    assert all(p in own_places(pos, [power]) or own_places(pos, [power]) & neighbours(GEO, p) for p in seen)
    # seeing is monotone in what a power holds: one unit more never hides anything
    kind = UnitKind.FLEET if GEO.provinces[extra].terrain is Terrain.SEA else UnitKind.ARMY
    more = Position(pos.phase, {**pos.units, extra: Unit(power, kind, extra)}, pos.owners)
    assert seen <= visible_provinces(GEO, more, [power])
    # the fogged board is the board where the power sees, and keeps all of its own
    shown = fogged(pos, seen)
    assert set(shown.units) == set(pos.units) & seen
    assert {p for p, u in pos.units.items() if u.power == power} <= set(shown.units)
    # a player of two powers sees what each of them sees
    other = POWERS[(POWERS.index(power) + 1) % len(POWERS)]
    assert visible_provinces(GEO, pos, [power, other]) == seen | visible_provinces(GEO, pos, [other])


@settings(max_examples=200, deadline=None)
@given(positions(), st.sampled_from(POWERS), st.data())
def test_an_order_is_answered_the_same_whatever_stands_out_of_sight(pos: Position, power: str, data: Any) -> None:
    """An order checked on arrival (judge.game.order_sets) is checked on the board the power imagines: the answer
    is the same when the units out of its sight are taken away, so no answer tells where they stand."""
    mine = [u for u in pos.units.values() if u.power == power]
    if not mine:
        return
    unit = data.draw(st.sampled_from(mine))
    places = st.sampled_from(range(len(GEO.provinces)))
    a, b = data.draw(places), data.draw(places)
    order = data.draw(
        st.sampled_from(
            [
                Move(None, unit.loc, a, False),
                SupportHold(None, unit.loc, a),
                SupportMove(None, unit.loc, a, b),
                Convoy(None, unit.loc, a, b),
                Hold(None, a),
            ]
        )
    )
    seen = visible_provinces(GEO, pos, [power])
    bare = Position(pos.phase, {p: u for p, u in pos.units.items() if p in seen}, pos.owners)
    assert visible_provinces(GEO, bare, [power]) == seen

    def answer(board: Position) -> Any:
        shown = imagined(GEO, board, seen, order)
        checked = check_order(FOG, shown, power, order, DEFAULT_EDITION)
        moves = {unit.loc: checked} if isinstance(checked, Move) else {}
        return checked, unconvoyable_moves(GEO, shown, moves)

    assert answer(pos) == answer(bare)


# --- the picture ------------------------------------------------------------------------------------------------------


def _without(pos: Position, provs: set[int]) -> Position:
    return Position(pos.phase, {p: u for p, u in pos.units.items() if p not in provs}, pos.owners)


def test_a_hidden_unit_leaves_no_pixel_on_the_picture() -> None:
    """The fogged picture of a board is the same PNG, byte for byte, with or without the units England does not
    see: nothing of them is drawn. A unit England sees changes it."""
    start = FOG.start_position()
    seen = visible_provinces(GEO, start, ["England"])
    hidden = {p for p in start.units if p not in seen}
    assert hidden and len(hidden) == len(start.units) - 3
    mine = render_map(FOG, start, seen=seen)
    assert mine == render_map(FOG, _without(start, hidden), seen=seen)
    assert mine != render_map(FOG, start)  # the fog is drawn
    near = Position(start.phase, {**start.units, _prov("nth"): Unit("Germany", UnitKind.FLEET, _prov("nth"))}, {})
    near = Position(start.phase, {p: u for p, u in near.units.items() if p != _prov("lon")}, start.owners)
    assert render_map(FOG, near, seen=seen) != render_map(FOG, _without(near, {_prov("nth")}), seen=seen)


def test_a_legend_drawn_once_is_pasted_with_the_same_bytes() -> None:
    """The seven pictures of a phase share their legend (drawn once, then pasted): each is the same PNG as the one
    drawn with its own legend, in whatever order they are drawn."""
    from judge.reports.maps import draw

    start = FOG.start_position()
    sights = {p: visible_provinces(GEO, start, [p]) for p in POWERS}
    cold = {}
    for power, seen in sights.items():
        draw._LEGENDS.clear()
        cold[power] = render_map(FOG, start, title="g — S1901M", seen=seen)
    draw._LEGENDS.clear()
    for power in reversed(POWERS):
        assert render_map(FOG, start, title="g — S1901M", seen=sights[power]) == cold[power], power
    assert len(draw._LEGENDS) == 1
    assert render_map(FOG, start, title="g — F1901M", seen=sights["France"]) != cold["France"]


# --- a game by mail ---------------------------------------------------------------------------------------------------


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def _orders(t: Table, power: str, *lines: str) -> str:
    return t.reply(addr(power), "\n".join([f"SIGNON {power} g1 pw-{power}", *lines, "READY"]))


def _mails(t: Table, to: str, since: int, subject: str = "") -> list[dict[str, Any]]:
    return [m for m in t.outbox() if m["to_addr"] == to and m["id"] > since and subject in m["subject"]]


def _picture(t: Table, mail: dict[str, Any]) -> bytes:
    if mail["image"] is not None:
        return bytes(mail["image"])
    row = list(t.db.query("select png from pictures where id = ?", [mail["picture_id"]]))
    return bytes(row[0]["png"])


FRENCH_SECRETS = ("A par", "A bur", "A mar", "A spa", "F bre", "F mao", "Burgundy", "Marseilles", "Spain")


def _spring(t: Table) -> int:
    """Spring 1901 played by mail; returns the last outbox id before its results."""
    t.later(hours=1)
    _orders(t, "England", "F lon - nth", "F edi - nwg", "A lvp - yor")
    _orders(t, "France", "A par - bur", "A mar - spa", "F bre - mao")
    _orders(t, "Germany", "F kie - hol", "A ber - kie", "A mun - ruh")
    mark = max(m["id"] for m in t.outbox())
    for power in ("Austria", "Italy", "Russia", "Turkey"):
        _orders(t, power)
    return mark


def test_each_power_is_told_only_what_it_sees(tmp_path: Path, capsys: Any) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g1", "--variant", "fog_of_war", "--master", "gm@p.test", "--last-year", "1902", "--tie-others", "draw")
    start = _mails(t, addr("England"), 0, "started")
    assert start and not any(s in start[0]["body"] for s in ("A par", "F bre", "A vie")), start[0]["body"]
    assert "F lon" in start[0]["body"]
    assert "observe" in t.reply("fan@p.test", "OBSERVE g1").lower()
    mark = _spring(t)
    assert t.show("g1", capsys)["phase"] == "F1901M"

    england = _mails(t, addr("England"), mark, "results")
    france = _mails(t, addr("France"), mark, "results")
    master = _mails(t, "gm@p.test", mark, "results")
    fan = _mails(t, "fan@p.test", mark, "results")
    assert len(england) == len(france) == len(master) == len(fan) == 1
    text = england[0]["body"]
    assert "F lon - nth" in text and "A lvp - yor" in text  # his own orders, in full
    assert "F kie - hol" in text  # Germany's fleet came into sight (Holland is next to the North Sea)
    assert not any(s in text for s in FRENCH_SECRETS), text
    assert "A mun" not in text and "Ruhr" not in text and "A vie" not in text
    assert "France" in text and "3 centres" in text  # every power's count is public
    assert "A par" in france[0]["body"] and "F lon" not in france[0]["body"]
    assert all(s in master[0]["body"] for s in ("A par", "F lon", "A mun", "A vie"))  # the master sees everything
    assert not any(s in fan[0]["body"] for s in ("A par", "F lon", "A mun"))  # an observer sees no board
    assert fan[0]["picture_id"] is None and fan[0]["image"] is None

    # the pictures: one per power, each without a pixel of what it does not see
    game = load_game(t.db, "g1")
    assert game is not None
    pictures = {p: _picture(t, _mails(t, addr(p), mark, "results")[0]) for p in POWERS}
    assert len(set(pictures.values())) == 7
    assert _picture(t, master[0]) not in pictures.values()
    with Image.open(io.BytesIO(pictures["England"])) as im:
        assert im.size[0] > 500

    # HISTORY and MAP: as he saw it
    history = _orders(t, "England", "HISTORY g1")
    assert "F lon" in history and not any(s in history for s in FRENCH_SECRETS), history
    assert "A par" in t.reply("gm@p.test", "HISTORY g1")
    t.reply(addr("England"), "SIGNON England g1 pw-England\nMAP g1 S1901M")
    again = [m for m in _mails(t, addr("England"), mark) if "map" in m["subject"].lower() and "Re:" not in m["subject"]]
    assert again and _picture(t, again[-1]) == pictures["England"]
    assert "fog of war" in t.reply("fan@p.test", "MAP g1")
    watched = t.reply("fan@p.test", "HISTORY g1")
    assert "F kie" not in watched and "A par" not in watched and "France" in watched
    summary = t.reply("fan@p.test", "SUMMARY g1")
    assert "France" in summary and "3" in summary  # the counts are public

    # an order is answered on the board he sees: France's fleet in Brest and the empty Picardy alike
    probe = t.reply(addr("England"), "SIGNON England g1 pw-England\nF nth S F bre - eng\nF nth S F pic - eng")
    assert probe.count("OK: F nth S F") == 2, probe

    # the sandbox from the game: his board
    sandbox = t.reply(addr("England"), "SANDBOX FROM GAME g1\nENDSANDBOX")
    assert "F nth" in sandbox and not any(s in sandbox for s in ("A bur", "F mao", "A spa")), sandbox
    assert "fog of war" in t.reply("fan@p.test", "SANDBOX FROM GAME g1\nENDSANDBOX")
    full = from_game(t.db, "g1", {})  # the host's command line sees everything
    assert "A bur" in json.dumps(full)
    mine = from_game(t.db, "g1", {}, addr("England"))
    assert "A bur" not in json.dumps(mine) and "F nth" in json.dumps(mine)


def test_fog_of_war_played_by_mail_to_its_end_then_shown_whole(tmp_path: Path, capsys: Any) -> None:
    """The catalogue's scripted game: Fog of War by mail, 1901 to the last year; the end shows everything."""
    t = Table(tmp_path / "judge.db")
    t.seven("g1", "--variant", "fog_of_war", "--last-year", "1902", "--tie-others", "draw")
    _spring(t)
    t.later(hours=1)
    _orders(t, "France", "A bur - bel", "F mao - por", "A spa H")
    _orders(t, "England", "F nth - nwy", "F nwg H", "A yor H")
    for power in ("Austria", "Germany", "Italy", "Russia", "Turkey"):
        _orders(t, power)
    shown = t.show("g1", capsys)
    assert shown["phase"] == "W1901A"
    mark = max(m["id"] for m in t.outbox())
    _orders(t, "France", "Build A par", "Build A mar")
    _orders(t, "England", "Build F lon")
    for power in ("Austria", "Germany", "Italy", "Russia", "Turkey"):
        _orders(t, power)
    winter = _mails(t, addr("England"), mark, "results")[0]["body"]
    assert "Build F lon" in winter or "F lon" in winter
    assert "A par" not in winter and "A mar" not in winter  # France's builds are out of his sight
    while t.show("g1", capsys)["status"] != "finished":  # 1902: the units hold
        t.later(hours=49)
        assert t.cli("game", "process", "g1") == 0
    shown = t.show("g1", capsys)
    assert shown["result"]["kind"] in ("solo", "draw")
    over = _mails(t, addr("England"), 0, "is over")
    assert over
    history = _orders(t, "England", "HISTORY g1 S1901M")
    assert "A par" in history and "A mun" in history  # the end shows the whole game
    t.reply(addr("England"), "MAP g1 W1901A")
    assert "A par" in json.dumps(from_game(t.db, "g1", {}, addr("England")))


def test_an_observer_from_the_start_gets_no_board(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g1", "--variant", "fog_of_war") == 0
    for power in POWERS:
        assert t.cli("game", "join", "g1", "--power", power, "--email", addr(power), "--password", f"pw-{power}") == 0
    assert "observe" in t.reply("fan@p.test", "OBSERVE g1").lower()
    assert t.cli("game", "start", "g1") == 0
    started = _mails(t, "fan@p.test", 0, "started")
    assert started and started[0]["picture_id"] is None and started[0]["image"] is None
    assert not any(unit in started[0]["body"] for unit in ("A par", "F lon", "A vie"))
    mine = _mails(t, addr("Austria"), 0, "started")[0]
    assert "A vie" in mine["body"] and "F lon" not in mine["body"] and mine["picture_id"] is not None


def test_neutral_units_are_told_of_where_they_are_seen(tmp_path: Path) -> None:
    from judge.game import fog
    from judge.game.notices import neutral_units
    from judge.game.records import Game

    variant = variant_from_toml(
        'name = "N"\nmap = "classic"\n[rules]\nfog = true\n[neutral]\nunits = ["A ruh", "A tun"]\n',
        "n",
        "n.toml",
        tmp_path,
    )
    start = variant.start_position()
    game = cast(Game, SimpleNamespace(variant=variant))  # neutral_units reads the variant alone
    facts = {"results": {}, "board": None, "tally": [], "neutral": neutral_units(game, start, start)}
    assert facts["neutral"]["after"] == ["A ruh", "A tun"]
    germany = fog.results_seen(variant, facts, start, start, ("Germany",))
    assert germany["neutral"]["after"] == ["A ruh"] and [n["unit"] for n in germany["neutral"]["fates"]] == ["A ruh"]
    turkey = fog.results_seen(variant, facts, start, start, ("Turkey",))
    assert turkey["neutral"]["after"] == [] and turkey["neutral"]["fates"] == []
