"""Pure (issue 21's catalogue): seven powers of one province each, every province beside every other, armies only,
four centres win; its own board of seven wedges round a hub, where the neighbours that share no border meet (drawn
as lines across the hub); a game by mail played to its solo."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from gamekit import Table

from judge.cli import main
from judge.data.catalog import load_variant
from judge.data.resources import data_dir
from judge.reports.maps import board_geometry, draw_map
from judge.reports.maps.style import HUB_LINE
from judge.rules.geography import Terrain, UnitKind
from judge.rules.parse import parse_order
from judge.rules.phase import Phase, Season, Step
from judge.rules.turn import Submitted, play

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def test_pure_is_seven_provinces_each_beside_every_other() -> None:
    pure = load_variant("pure")
    geo = pure.geo
    assert pure.powers == POWERS and len(geo.provinces) == 7 and len(pure.centres) == 7
    assert all(p.terrain is Terrain.LAND and p.centre for p in geo.provinces)
    for prov in geo.provinces:
        assert set(geo.army_adj[prov.id]) == {p.id for p in geo.provinces} - {prov.id}, prov.abbr
    start = pure.start_position()
    assert start.phase == Phase(1901, Season.SPRING, Step.MOVEMENT)
    assert len(start.units) == 7 and all(u.kind is UnitKind.ARMY for u in start.units.values())
    for power in POWERS:  # one home centre each, its army on it
        (home,) = pure.home_centres(power)
        assert start.units[home].power == power and start.owners[home] == power
    assert pure.victory.decide({"France": 4, "Italy": 3}, 7, 1901).winner == "France"
    assert pure.victory.decide({"France": 3, "Italy": 3}, 7, 1901).winner is None
    assert pure.title.word("ru") == "Чистая дипломатия" and pure.title.word("de") == "Reine Diplomatie"
    assert pure.power("Germany").word("de") == "Deutschland" and pure.power_named("Россия") == "Russia"


def test_a_lone_attack_bounces_as_in_the_classic_rules() -> None:
    pure = load_variant("pure")
    assert parse_order("A par - con", pure.geo, Step.MOVEMENT) is not None
    turn = play(
        pure,
        pure.start_position(),
        [Submitted("France", "A par - con", parse_order("A par - con", pure.geo, Step.MOVEMENT))],
    )
    assert [r.outcome.value for r in turn.results if r.power == "France"] == ["bounced"]


def test_variant_check_and_show_name_the_hub(tmp_path: Path, capsys: Any) -> None:
    assert main(["variant", "check", str(data_dir("variants") / "pure.toml")]) == 0
    checked = capsys.readouterr().out
    assert ": ok (Pure: 7 provinces, 7 centres, 7 powers" in checked
    assert "board: pure" in checked and "14 pairs of neighbours share no border and meet across the hub" in checked
    out = tmp_path / "pure.png"
    assert main(["variant", "show", "pure", "-o", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "solo at 4" in shown and "France: home par; units A par" in shown
    assert out.read_bytes().startswith(b"\x89PNG")


def test_the_board_draws_the_links_across_the_hub() -> None:
    pure = load_variant("pure")
    geometry = board_geometry(pure)
    assert geometry is not None and geometry.hub is not None and len(geometry.links) == 14
    drawing = draw_map(pure, pure.start_position())
    image, layout = drawing.image.convert("RGB"), drawing.layout
    assert len(drawing.png()) < 100_000
    lat, lon, radius = geometry.hub
    cx, cy = layout.project_unwrapped(lon, lat)
    reach = radius * layout.px_per_lat - 5

    def rim(prov: int) -> tuple[float, float]:
        ux, uy = layout.project_unwrapped(geometry.units[prov][1], geometry.units[prov][0])
        d = math.hypot(ux - cx, uy - cy)
        return (cx + (ux - cx) / d * reach, cy + (uy - cy) / d * reach)

    for a, b in geometry.links:  # a point a third of the way along each link's line is the line's colour
        (ax, ay), (bx, by) = rim(a), rim(b)
        x, y = round(ax + (bx - ax) / 3), round(ay + (by - ay) / 3)
        near = {image.getpixel((x + dx, y + dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        assert HUB_LINE in near, (pure.geo.provinces[a].abbr, pure.geo.provinces[b].abbr)
    for prov in pure.geo.provinces:  # every province has its area on the picture, its army on it
        assert drawing.layout.location_point(prov.id)


def test_the_shipped_board_is_the_tools_output(tmp_path: Path, capsys: Any) -> None:
    pytest.importorskip("shapely")
    from judge.reports.maps.tessellate import main as tessellate

    written = tmp_path / "pure.geo.json"
    assert tessellate(["pure", "--hub", "--width", "800", "--label-size", "15", "-o", str(written)]) == 0
    assert "7 of 21 neighbouring pairs share a border, the other 14 meet across the hub" in capsys.readouterr().out
    shipped = json.loads((data_dir("variants") / "pure.geo.json").read_text(encoding="utf-8"))
    assert json.loads(written.read_text(encoding="utf-8")) == shipped
    with pytest.raises(SystemExit):
        tessellate(["pure"])  # neither coastlines nor --hub


def test_the_hub_needs_land_provinces(capsys: Any) -> None:
    pytest.importorskip("shapely")
    from judge.reports.maps.tessellate import main as tessellate

    with pytest.raises(SystemExit, match="land provinces only"):
        tessellate(["classic", "--hub"])


# --- played by mail to its end ---------------------------------------------------------------------------------------


def _addr(power: str) -> str:
    return f"{power.lower()}@players.test"


def _orders(t: Table, power: str, *lines: str) -> str:
    return t.reply(_addr(power), "\n".join([f"SIGNON {power} g1 pw-{power}", *lines]))


def _next(t: Table, capsys: Any) -> str:
    t.later(hours=1)
    assert t.cli("game", "process", "g1") == 0
    phase = t.show("g1", capsys)["phase"]
    while phase.endswith("R"):  # a dislodged army with nowhere to go: the retreat phase passes
        t.later(hours=1)
        assert t.cli("game", "process", "g1") == 0
        phase = t.show("g1", capsys)["phase"]
    return str(phase)


def test_pure_by_mail_to_a_solo_at_four_centres(tmp_path: Path, capsys: Any) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g1", "--variant", "pure", "--deadline", "48h") == 0
    for power in POWERS:
        assert "joined g1" in t.reply(_addr(power), f"JOIN g1 pw-{power} {power}")
    assert t.cli("game", "start", "g1", "--seed", "3") == 0
    shown = t.show("g1", capsys)
    assert shown["phase"] == "S1901M" and shown["units"]["France"] == ["A par"]
    assert "ERROR" in _orders(t, "France", "F par H")  # armies only: no fleet stands inland
    assert "OK" in _orders(t, "France", "A par - ber")
    assert "OK" in _orders(t, "England", "A lon S A par - ber")
    assert _next(t, capsys) == "F1901M"  # Germany's army dislodged from Berlin; Paris, where France came from, is shut
    shown = t.show("g1", capsys)
    assert shown["units"]["France"] == ["A ber"] and "Germany" not in shown["units"]
    assert _next(t, capsys) == "W1901A"
    assert "OK" in _orders(t, "France", "Build A par")
    assert _next(t, capsys) == "S1902M"
    _orders(t, "France", "A par - rom", "A ber S A par - rom")
    assert _next(t, capsys) == "F1902M"
    assert _next(t, capsys) == "W1902A"
    _orders(t, "France", "Build A par")
    assert _next(t, capsys) == "S1903M"
    _orders(t, "France", "A par - vie", "A rom S A par - vie")
    assert _next(t, capsys) == "F1903M"
    t.later(hours=1)
    assert t.cli("game", "process", "g1") == 0
    shown = t.show("g1", capsys)
    assert shown["status"] == "finished" and shown["result"] == {"kind": "solo", "winner": "France"}
    over = [m for m in t.outbox() if "is over" in m["subject"] and m["to_addr"] == _addr("Italy")]
    assert over and "France" in over[0]["body"]


def test_a_russian_and_a_german_reader_of_pure_read_no_english_name(tmp_path: Path, capsys: Any) -> None:
    """As every shipped variant (test_variant_catalogue): two phases' results and the information commands in
    Russian and German carry no English place, power or variant name of Pure's."""
    from tests.test_mail_words import variant_names_left

    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g1", "--variant", "pure", "--deadline", "48h") == 0
    for power in POWERS:
        assert "joined g1" in t.reply(_addr(power), f"JOIN g1 pw-{power} {power}")
    assert t.cli("game", "start", "g1", "--seed", "3") == 0
    readers = {"Russia": "ru", "Germany": "de"}
    for power, language in readers.items():
        _orders(t, power, f"SET LANGUAGE {language}")
    chosen = max(r["id"] for r in t.outbox())
    _orders(t, "France", "A par - ber")
    _orders(t, "England", "A lon S A par - ber")
    for _ in range(2):
        t.later(hours=49)
        assert t.cli("game", "process", "g1") == 0
    for power in readers:
        _orders(t, power, "LIST g1", "SUMMARY g1", "HISTORY g1", "ORDERS")
    for power, language in readers.items():
        mails = [r for r in t.outbox() if r["to_addr"] == _addr(power) and r["id"] > chosen]
        assert len(mails) >= 3, [m["subject"] for m in mails]
        assert variant_names_left(mails, language, "pure") == {}, language
