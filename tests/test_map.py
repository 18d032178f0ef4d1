"""The map picture: coordinates in the variant files, the drawing (judge.reports.maps) and `judge map`
(judge.cli.pictures)."""

from __future__ import annotations

import ast
import io
import json
import math
import random
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageFont

from judge.data.catalog import load_variant
from judge.data.resources import data_dir
from judge.reports.map_words import map_title, map_words
from judge.reports.maps import (
    CONVOY_INK,
    DISLODGED_LINE,
    NEUTRAL,
    MapError,
    board_geometry,
    can_draw,
    draw_map,
    drawn_order,
    has_board,
    held_by,
    legend_words,
    map_layout,
    parse_geometry,
    power_colours,
    render_map,
    tint,
)
from judge.reports.maps.placing import unit_box
from judge.reports.outbox import map_picture, palette_png
from judge.rules.geography import UnitKind
from judge.rules.order_json import order_to_json
from judge.rules.orders import order_text
from judge.rules.position_json import position_from_json
from judge.rules.turn import parse_submissions, play
from judge.rules.variant import Variant, VariantError, variant_from_data
from judge.store.schema import legacy_typed_order

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RULES = Path(__file__).resolve().parent.parent / "judge" / "rules"


def _variant_data(name: str) -> dict[str, Any]:
    return tomllib.loads((data_dir("variants") / f"{name}.toml").read_text(encoding="utf-8"))


def _open(png: bytes) -> Image.Image:
    assert png[:8] == PNG_SIGNATURE
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def _near(pixel: Any, colour: tuple[int, int, int], tolerance: int = 40) -> bool:
    return all(abs(int(a) - b) <= tolerance for a, b in zip(pixel[:3], colour, strict=True))


def _played(variant: Variant, position_json: dict[str, Any], orders: dict[str, list[str]]) -> tuple[Any, list[dict]]:
    """Play one phase as the game server does and keep the results as it stores them."""
    before = position_from_json(variant, position_json)
    turn = play(variant, before, parse_submissions(variant, before.phase.step, orders))
    results = [
        {
            "power": r.power,
            "input": r.input,
            "order": order_text(variant.geo, r.order, before.units) if r.order is not None else None,
            "typed": order_to_json(variant.geo, r.order, before.units) if r.order is not None else None,
            "outcome": r.outcome.value,
            "reason": r.reason,
        }
        for r in turn.results
    ]
    return turn, results


# --- coordinates in the variant files ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["classic", "coldwar"])
def test_every_province_has_coordinates(name: str) -> None:
    geo = load_variant(name).geo
    for prov in geo.provinces:
        assert prov.at is not None, prov.abbr
        lat, lon = prov.at
        assert -90 <= lat <= 90 and -180 <= lon <= 180, prov.abbr
        assert set(prov.coast_at) == set(prov.coasts), prov.abbr


def test_some_places_are_where_they_are_on_the_globe() -> None:
    classic = {p.abbr: p for p in load_variant("classic").geo.provinces}
    assert classic["par"].at == (48.6, 2.6) and classic["nth"].at == (56.0, 3.2)
    assert classic["mos"].at[1] > classic["war"].at[1] > classic["ber"].at[1] > classic["par"].at[1]
    assert classic["nwy"].at[0] > classic["den"].at[0] > classic["kie"].at[0] > classic["mun"].at[0]
    coldwar = {p.abbr: p for p in load_variant("coldwar").geo.provinces}
    assert coldwar["nyk"].at == (40.7, -74.0)
    assert coldwar["aus"].at[0] < 0 < coldwar["len"].at[0]  # Australia south of the equator
    assert (
        coldwar["los"].at[1] < coldwar["nyk"].at[1] < coldwar["lon"].at[1] < coldwar["mos"].at[1] < coldwar["sha"].at[1]
    )


def test_loader_checks_coordinates() -> None:
    data = _variant_data("classic")
    provinces = data["provinces"]
    provinces["par"]["at"] = [48.9]
    provinces["bur"]["at"] = ["north", "east"]
    provinces["mun"]["at"] = [95.0, 11.0]
    provinces["ber"]["at"] = [52.5, 190.0]
    provinces["kie"]["at"] = [True, 10.0]
    provinces["spa"]["coast_at"] = {"nc": [43.3, -5.5], "wc": [40.0, -9.0]}
    provinces["bre"]["coast_at"] = {"nc": [48.5, -4.0]}
    provinces["stp"]["coast_at"] = {"nc": "north"}
    del provinces["bul"]["at"]
    with pytest.raises(VariantError) as caught:
        variant_from_data(data, "broken")
    text = "\n".join(caught.value.problems)
    for expected in (
        "province par: at must be [latitude, longitude]",
        "province bur: at must be",
        "province mun: at = [95.0, 11.0]: latitude must be within -90..90",
        "province ber: at = [52.5, 190.0]",
        "province kie: at must be",
        "province spa: coast_at names 'wc', which is not one of its coasts (nc, sc)",
        "province bre: coast_at names 'nc', which is not one of its coasts (it has no split coasts)",
        "province stp: coast_at.nc must be [latitude, longitude]",
        "province bul: coast_at needs at",
    ):
        assert expected in text, expected
    assert len(caught.value.problems) == 9


def test_a_variant_without_coordinates_loads_but_cannot_be_drawn() -> None:
    data = _variant_data("classic")
    for spec in data["provinces"].values():
        spec.pop("at", None)
        spec.pop("coast_at", None)
    variant = variant_from_data(data, "bare")
    assert all(p.at is None and p.coast_at == {} for p in variant.geo.provinces)
    position = position_from_json(variant, {})
    with pytest.raises(ValueError) as caught:
        render_map(variant, position)
    assert isinstance(caught.value, MapError)
    assert "cannot draw a map of Classic" in str(caught.value) and "no coordinates" in str(caught.value)
    assert "adr, aeg, alb" in str(caught.value) and "67 more" in str(caught.value)


def test_a_province_without_coordinates_is_named() -> None:
    data = _variant_data("classic")
    del data["provinces"]["tyr"]["at"]
    variant = variant_from_data(data, "holey")
    with pytest.raises(MapError, match=r"for tyr$"):
        map_layout(variant)


def test_the_rules_engine_does_not_draw() -> None:
    for path in sorted(RULES.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[0] == "PIL" for a in node.names), path.name
            if isinstance(node, ast.ImportFrom):
                assert (node.module or "").split(".")[0] != "PIL", path.name


# --- the picture ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def classic() -> Variant:
    return load_variant("classic")


def test_classic_start_is_a_png_and_the_same_every_time(classic: Variant) -> None:
    position = position_from_json(classic, {})
    png = render_map(classic, position, title="demo — Spring 1901 movement")
    image = _open(png)
    layout = draw_map(classic, position).layout
    assert image.size == (800, image.size[1]) and image.size[1] > layout.height
    assert 700 < layout.height < 1000
    assert Image.open(io.BytesIO(png)).mode == "P"  # a palette picture
    assert render_map(classic, position, title="demo — Spring 1901 movement") == png
    assert render_map(classic, position, title="another title") != png


@pytest.mark.parametrize("name", ["classic", "coldwar"])
def test_every_location_is_inside_the_map_and_apart(name: str) -> None:
    variant = load_variant(name)
    layout = map_layout(variant)
    geo = variant.geo
    for loc, (x, y) in enumerate(layout.points):
        assert 20 <= x <= layout.width - 20 and 20 <= y <= layout.height - 20, geo.loc_names[loc]
    for a in range(len(geo.provinces)):  # discs (radius 12) and their labels do not run into each other
        for b in range(a + 1, len(geo.provinces)):
            assert math.dist(layout.points[a], layout.points[b]) >= 40, (geo.loc_names[a], geo.loc_names[b])
    for coast in range(len(geo.provinces), len(geo.loc_names)):  # a fleet on a coast stays off other provinces
        for prov in range(len(geo.provinces)):
            if prov != geo.loc_province[coast]:
                assert math.dist(layout.points[coast], layout.points[prov]) >= 24, geo.loc_names[coast]
    par, mos, lon = (layout.points[geo.loc(n)] for n in ("par", "mos", "lon"))
    assert par[0] < mos[0] and lon[1] < par[1]  # east is right, north is up


def test_centre_markers_show_the_owner(classic: Variant) -> None:
    geo = classic.geo
    position = position_from_json(
        classic,
        {
            "phase": "F1902M",
            "units": {"France": ["A bur"]},
            "supply_centers": {"France": ["par", "bel"], "Germany": ["mun"]},
        },
    )
    drawing = draw_map(classic, position)
    image = _open(drawing.png())
    colours = power_colours(classic)
    layout = drawing.layout
    assert image.getpixel(layout.centre_marker(geo.loc("par"))) == colours["France"]
    assert image.getpixel(layout.centre_marker(geo.loc("bel"))) == colours["France"]
    assert image.getpixel(layout.centre_marker(geo.loc("mun"))) == colours["Germany"]
    assert image.getpixel(layout.centre_marker(geo.loc("vie"))) == NEUTRAL  # Austria lost it: nobody owns it
    assert image.getpixel(layout.location_point(geo.loc("bur"))) == colours["France"]  # the army stands there


def test_the_legend_lists_every_power_with_colour_and_centres(classic: Variant) -> None:
    position = position_from_json(
        classic,
        {"phase": "F1902M", "supply_centers": {"France": ["par", "bre", "mar", "spa", "por"], "Russia": ["mos"]}},
    )
    drawing = draw_map(classic, position)
    image = _open(drawing.png())
    entries = {e.power: e for e in drawing.legend}
    assert list(entries) == [*classic.powers, None]
    colours = power_colours(classic)
    assert len(set(colours.values())) == len(classic.powers)
    for power in classic.powers:
        entry = entries[power]
        assert entry.colour == colours[power] and entry.text.startswith(power)
        assert entry.centres == position.centre_count(power)
        assert entry.swatch[1] > drawing.layout.height  # below the map, covering no province
        assert image.getpixel(entry.swatch) == colours[power]
    assert (entries["France"].centres, entries["Russia"].centres, entries["Austria"].centres) == (5, 1, 0)
    assert entries[None].centres == 34 - 6 and entries[None].text == "neutral  28"


def test_orders_are_drawn(classic: Variant) -> None:
    geo = classic.geo
    turn, results = _played(
        classic,
        {
            "phase": "S1901M",
            "units": {
                "England": ["F nth", "A lon"],
                "France": ["A par", "A mar", "F bre"],
                "Germany": ["A mun"],
                "Italy": ["A ven", "F adr"],
                "Austria": ["F tri"],
                "Russia": ["F stp/sc"],
            },
        },
        {
            "England": ["F nth C A lon - nwy", "A lon - nwy"],
            "France": ["A par - bur", "A mar S A par - bur", "F bre H"],
            "Germany": ["A mun - bur"],
            "Italy": ["A ven - tri", "F adr S A ven - tri"],
            "Austria": ["F tri H"],
            "Russia": ["F stp/sc - bot"],
        },
    )
    outcomes = {r["order"]: r["outcome"] for r in results}
    assert outcomes["A par - bur"] == "succeeds" and outcomes["A mun - bur"] == "bounced"
    assert outcomes["F tri H"] == "dislodged" and outcomes["F nth C A lon - nwy"] == "succeeds"
    before = position_from_json(
        classic,
        {
            "phase": "S1901M",
            "units": {
                "England": ["F nth", "A lon"],
                "France": ["A par", "A mar", "F bre"],
                "Germany": ["A mun"],
                "Italy": ["A ven", "F adr"],
                "Austria": ["F tri"],
                "Russia": ["F stp/sc"],
            },
        },
    )
    plain = _open(render_map(classic, before))
    drawing = draw_map(classic, before, results)
    image = _open(drawing.png())
    assert image.size == plain.size and image.tobytes() != plain.tobytes()
    assert drawing.png() == render_map(classic, before, results)  # deterministic with orders too
    layout, colours = drawing.layout, power_colours(classic)

    def along(a: str, b: str, start: float = 0.25, end: float = 0.7) -> list[Any]:
        pa, pb = layout.location_point(geo.loc(a)), layout.location_point(geo.loc(b))
        return [
            image.getpixel((round(pa[0] + (pb[0] - pa[0]) * t), round(pa[1] + (pb[1] - pa[1]) * t)))
            for t in (start + (end - start) * i / 24 for i in range(25))
        ]

    moved = along("ven", "tri", 0.3, 0.55)  # a succeeded move: solid in Italy's colour (a pixel may be its edge)
    assert sum(_near(p, colours["Italy"]) for p in moved) >= 0.9 * len(moved)
    bounced = along("mun", "bur", 0.3, 0.6)  # a failed move: dashed, gaps between the dashes
    assert any(_near(p, colours["Germany"]) for p in bounced)
    assert not all(_near(p, colours["Germany"]) for p in bounced)
    pa, pb = layout.location_point(geo.loc("par")), layout.location_point(geo.loc("bur"))
    mar = layout.location_point(geo.loc("mar"))
    middle = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
    support = [
        image.getpixel((round(mar[0] + (middle[0] - mar[0]) * t), round(mar[1] + (middle[1] - mar[1]) * t)))
        for t in (0.3 + 0.4 * i / 30 for i in range(31))
    ]
    assert any(_near(p, colours["France"], 30) for p in support)
    nth = layout.location_point(geo.loc("nth"))
    lon, nwy = layout.location_point(geo.loc("lon")), layout.location_point(geo.loc("nwy"))
    route = ((lon[0] + nwy[0]) / 2, (lon[1] + nwy[1]) / 2)
    box = (min(nth[0], route[0]) - 3, min(nth[1], route[1]) - 3, max(nth[0], route[0]) + 3, max(nth[1], route[1]) + 3)
    assert any(
        _near(image.getpixel((x, y)), CONVOY_INK, 25)
        for x in range(int(box[0]), int(box[2]) + 1)
        for y in range(int(box[1]), int(box[3]) + 1)
    )

    retreat = turn.position  # the Austrian fleet in Trieste is dislodged: drawn beside, ringed in red
    assert retreat.dislodged and retreat.phase.code == "S1901R"
    _, retreats = _played(
        classic,
        {
            "phase": "S1901R",
            "units": {"Italy": ["A tri", "F adr"]},
            "dislodged": {"Austria": [{"unit": "F tri", "attacker_from": "ven"}]},
        },
        {"Austria": ["F tri R alb"]},
    )
    assert retreats == [
        {
            "power": "Austria",
            "input": "F tri R alb",
            "order": "F tri R alb",
            "typed": {"type": "retreat", "unit": "F", "at": "tri", "to": "alb"},
            "outcome": "succeeds",
            "reason": None,
        }
    ]
    after = draw_map(classic, retreat, retreats)
    image = _open(after.png())
    x, y = after.pieces[0].dislodged[geo.loc("tri")]
    ring = [image.getpixel((x + dx, y + dy)) for dx in range(-12, 13) for dy in range(-12, 13)]
    assert any(_near(p, DISLODGED_LINE, 30) for p in ring)
    assert image.getpixel(after.layout.location_point(geo.loc("tri"))) == colours["Italy"]


def test_reading_orders(classic: Variant) -> None:
    geo = classic.geo

    def read(text: str | None, outcome: str = "succeeds") -> tuple[Any, ...] | None:
        # the orders of rows stored before typed orders (migration m007), as the map then draws them
        o = drawn_order(geo, "France", legacy_typed_order(text), outcome)
        return (
            None
            if o is None
            else (o.kind, *(geo.loc_names[i] if i >= 0 else None for i in (o.loc, o.target, o.dest)), o.succeeded)
        )

    assert read("A par - bur") == ("move", "par", None, "bur", True)
    assert read("A lon - nwy via convoy", "no_convoy") == ("move", "lon", None, "nwy", False)
    assert read("F mao - spa/nc", "bounced") == ("move", "mao", None, "spa/nc", False)
    assert read("F nth C A lon - nwy") == ("convoy", "nth", "lon", "nwy", True)
    assert read("A mun S A ber - kie", "cut") == ("support", "mun", "ber", "kie", False)
    assert read("A mun S A ber") == ("support", "mun", "ber", None, True)
    assert read("mun S ber") == ("support", "mun", "ber", None, True)
    assert read("F tri R alb") == ("retreat", "tri", None, "alb", True)
    assert read("A par H", "dislodged") == ("hold", "par", None, None, False)
    assert read("build A par") == ("build", "par", None, None, True)
    assert read("build F stp/nc", "void") == ("build", "stp/nc", None, None, False)
    assert read("F lyo disband", "disbanded") == ("disband", "lyo", None, None, True)
    for nothing in (None, "", "waive", "A xyz - bur", "A par - xyz", "F nth C A lon", "A par jumps"):
        assert read(nothing) is None, nothing


def test_unknown_powers_and_odd_results_do_not_break_the_picture(classic: Variant) -> None:
    position = position_from_json(classic, {})
    results = [
        {"power": "Atlantis", "typed": {"type": "move", "unit": "A", "at": "par", "to": "bur"}, "outcome": "succeeds"},
        {"power": "France", "typed": {"type": "move", "at": 7}, "outcome": "succeeds"},
        {"power": "France", "typed": "A par - bur", "outcome": "succeeds"},
        {"power": "France"},
        {"power": "France", "order": None, "outcome": "void", "input": "garble"},
    ]
    _open(render_map(classic, position, results))


def _tower() -> Variant:
    """A made-up map, tall and narrow: three provinces in a column and a sea beside them."""
    return variant_from_data(
        {
            "name": "Tower",
            "powers": ["Up", "Down"],
            "start": {"year": 2000, "season": "spring"},
            "victory": {"solo": 2},
            "provinces": {
                "top": {"name": "Top", "kind": "land", "centre": True, "home": "Up", "at": [60, 0]},
                "mid": {"name": "Middle", "kind": "coast", "at": [30, 0.5]},
                "bot": {"name": "Bottom", "kind": "land", "centre": True, "home": "Down", "at": [0, 0]},
                "sea": {"name": "Sea", "kind": "sea", "at": [30, 2]},
            },
            "army": {"top": ["mid"], "mid": ["top", "bot"], "bot": ["mid"]},
            "fleet": {"mid": ["sea"], "sea": ["mid"]},
            "units": {"Up": ["A top"], "Down": ["A bot"]},
        },
        "tower",
    )


def test_a_tall_map_is_drawn_narrower() -> None:
    tower = _tower()
    drawing = draw_map(
        tower,
        position_from_json(tower, {}),
        [{"power": "Up", "typed": {"type": "move", "unit": "A", "at": "top", "to": "mid"}, "outcome": "succeeds"}],
    )
    layout = drawing.layout
    assert layout.height <= 1800 and drawing.image.size[0] == 1400
    (tx, ty), (mx, my), (bx, by), (sx, _sy) = (layout.location_point(i) for i in range(4))
    assert ty < my < by and tx == bx < mx < sx and tx > 300 and sx < 1100  # centred, north up, east right
    assert drawing.image.getpixel(layout.centre_marker(0)) == power_colours(tower)["Up"]


def test_without_freetype_the_bitmap_font_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    import judge.reports.maps.fonts as mapdraw

    bitmap = ImageFont.load_default_imagefont()
    monkeypatch.setattr(mapdraw, "_font", lambda size: bitmap)
    mapdraw._glyph.cache_clear()
    mapdraw._missing_glyph.cache_clear()
    mapdraw.drawable.cache_clear()
    try:
        tower = _tower()
        image = _open(render_map(tower, position_from_json(tower, {}), title="tower", language="de"))
        assert image.size[0] == 1400
    finally:
        mapdraw._glyph.cache_clear()
        mapdraw._missing_glyph.cache_clear()
        mapdraw.drawable.cache_clear()


def test_can_draw() -> None:
    assert can_draw("A par - bur 1901") and not can_draw("\ue000")


def test_cold_war_spans_the_world() -> None:
    coldwar = load_variant("coldwar")
    drawing = draw_map(coldwar, position_from_json(coldwar, {}), title="cw — Spring 1960 movement")
    image = _open(drawing.png())
    layout, geo = drawing.layout, coldwar.geo
    assert image.size[0] == 1000 and layout.height < 450
    # the seam runs through the Pacific: Alaska at the left edge, the Bering Sea at the right
    assert layout.location_point(geo.loc("ala"))[0] < 70 < 930 < layout.location_point(geo.loc("ber"))[0]
    assert [e.power for e in drawing.legend] == ["USSR", "NATO", None]
    assert image.getpixel(layout.centre_marker(geo.loc("mos"))) == power_colours(coldwar)["USSR"]
    assert image.getpixel(layout.centre_marker(geo.loc("nyk"))) == power_colours(coldwar)["NATO"]
    # Europe and the Middle East again, enlarged, in a panel between the map and the legend
    inset = layout.inset
    assert inset is not None and layout.height < layout.inset_at and inset.width == 1000
    assert layout.inset_at + inset.height == layout.bottom < drawing.legend[0].swatch[1]
    x, y = inset.centre_marker(geo.loc("mos"))
    assert image.getpixel((x, layout.inset_at + y)) == power_colours(coldwar)["USSR"]
    x, y = inset.location_point(geo.loc("par"))
    assert image.getpixel((x, layout.inset_at + y)) == power_colours(coldwar)["NATO"]
    lon, mos = inset.location_point(geo.loc("lon")), inset.location_point(geo.loc("mos"))
    assert math.dist(lon, mos) > 2.5 * math.dist(
        layout.location_point(geo.loc("lon")), layout.location_point(geo.loc("mos"))
    )
    assert geo.loc("mos") in layout.hidden and geo.loc("mos") not in inset.hidden  # labelled once, in the inset
    assert geo.loc("nyk") not in layout.hidden and geo.loc("nyk") in inset.hidden


def test_legend_languages(classic: Variant) -> None:
    assert legend_words("en")["support"] == "support"
    german = legend_words("de")
    assert german["centres"] == "Versorgungszentren" and german["convoy"] == "Konvoi"
    assert german["support"] in ("Unterstützung", "Unterstuetzung")  # spelled out when the font lacks "ü"
    russian = legend_words("ru")
    if can_draw("Центры снабжения"):
        assert russian["centres"] == "Центры снабжения"
    else:  # Pillow's bundled font has no Cyrillic letters: the legend falls back to English
        assert russian == legend_words("en")
    assert legend_words("fr") == legend_words("en")
    position = position_from_json(classic, {})
    pictures = {lang: render_map(classic, position, language=lang) for lang in ("en", "de", "ru")}
    assert pictures["en"] != pictures["de"]
    _open(pictures["ru"])


# --- judge map -----------------------------------------------------------------------------------------------------


def _judge_map(*argv: str) -> int:
    from judge.cli import main

    return main(["map", *argv])


def _map_words_drawn(variant: Variant, png: bytes, language: str) -> dict[str, str]:
    """The words a picture of ``variant``'s start was drawn with, read back by drawing it again with them."""
    position = position_from_json(variant, {})
    words = map_words(variant, language)
    title = map_title(variant.name, position.phase, language)
    drawing = draw_map(variant, position, title=title, language=language, words=words)
    assert drawing.png() == png
    return drawing.words


def test_judge_map_variant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "classic.png"
    assert _judge_map("--variant", "classic", "-o", str(out)) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    classic = load_variant("classic")
    assert out.read_bytes() == render_map(
        classic, position_from_json(classic, {}), title="Classic - Spring 1901 movement"
    )
    russian = tmp_path / "classic-ru.png"
    assert _judge_map("--variant", "classic", "-o", str(russian), "--language", "ru") == 0
    drawn = _map_words_drawn(classic, russian.read_bytes(), "ru")
    assert drawn["Russia"] == "Россия" and drawn["support"] == "поддержка"
    assert russian.read_bytes() == render_map(
        classic,
        position_from_json(classic, {}),
        title="Classic - Весна 1901, движение",
        language="ru",
        words=map_words(classic, "ru"),
    )
    assert _judge_map("--variant", "nowhere", "-o", str(out)) == 1
    assert "unknown variant 'nowhere'" in capsys.readouterr().err
    assert _judge_map("-o", str(out)) == 2
    assert _judge_map("g", "--variant", "classic") == 2
    assert "give a GAME, or --variant NAME (not both)" in capsys.readouterr().err


def test_judge_map_game(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from judge.game import records, service
    from judge.game.order_sets import merge_orders
    from judge.game.settings import GameSettings
    from judge.store import open_db

    path = tmp_path / "judge.db"
    db = open_db(path)
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    with db.atomic():
        game = service.create_game(db, "cw", "coldwar", GameSettings(), now)
        service.join_game(db, "cw", "ussr@p.test", "pw-ussr", now, power="USSR")
        service.join_game(db, "cw", "nato@p.test", "pw-nato", now, power="NATO")
    monkeypatch.setenv("JUDGE_DB", str(path))
    assert _judge_map("cw", "-o", str(tmp_path / "x.png")) == 1
    assert "has not started" in capsys.readouterr().err
    with db.atomic():
        service.start_game(db, "cw", now, random.Random(1))
        game = records.load_game(db, "cw")
        assert game is not None
        seats = {p.power: p for p in records.players(db, game.id)}
        for power, lines in {"USSR": ["A mos - ukr", "F len/sc - bal"], "NATO": ["A par - wge", "F lon - nts"]}.items():
            for line in lines:
                assert merge_orders(db, game, seats[power], line, now).msgid == "OK: {order}"
        service.process_game(db, "cw", now)

    monkeypatch.chdir(tmp_path)
    assert _judge_map("cw") == 0  # the current position, named after the game and phase
    current = (tmp_path / "cw-F1960M.png").read_bytes()
    coldwar = load_variant("coldwar")
    position = records.load_game(db, "cw").position
    drawn = render_map(coldwar, position, title="cw - Fall 1960 movement", words=map_words(coldwar, "en"))
    assert current == palette_png(drawn)  # as MAP by mail carries it

    assert _judge_map("cw", "s1960m", "-o", "spring.png", "--db", str(path), "--language", "de") == 0
    row = next(iter(db.query("select board_before, results from phases where phase = 'S1960M'")))
    before = position_from_json(coldwar, json.loads(row["board_before"]))
    assert {r["order"] for r in json.loads(row["results"])} >= {
        "A mos - ukr",
        "F len/sc - bal",
        "A par - wge",
        "F lon - nts",
        "A nyk H",
    }
    after = position_from_json(
        coldwar,
        json.loads(next(iter(db.query("select board_after from phases where phase = 'S1960M'")))["board_after"]),
    )
    game = records.load_game(db, "cw")
    assert game is not None
    results = json.loads(row["results"])
    spring = (tmp_path / "spring.png").read_bytes()
    # the results mail's picture, in German (drawn again: the mails went in English)
    assert spring == palette_png(map_picture(game, before, results, "de", after) or b"")
    assert spring == palette_png(
        render_map(
            coldwar,
            before,
            results,
            title="cw - Frühjahr 1960, Bewegung",
            language="de",
            after=after,
            words=map_words(coldwar, "de"),
        )
    )
    assert spring != palette_png(render_map(coldwar, before, title="cw - Frühjahr 1960, Bewegung", language="de"))
    assert _judge_map("cw", "s1960m", "-o", "spring-ru.png", "--language", "ru") == 0
    assert (tmp_path / "spring-ru.png").read_bytes() == palette_png(
        map_picture(game, before, results, "ru", after) or b""
    )
    capsys.readouterr()

    assert _judge_map("cw", "F1961M") == 1
    assert "cw has no played phase F1961M; played: S1960M" in capsys.readouterr().err
    assert _judge_map("cw", "X1") == 1
    assert "is not like S1901M" in capsys.readouterr().err
    assert _judge_map("nope") == 1
    assert "there is no game called 'nope'" in capsys.readouterr().err
    assert _judge_map("cw", "--db", str(tmp_path / "missing.db")) == 1
    assert "there is no database at" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()


# --- the board: province areas from the geometry files -------------------------------------------------------------


def _inside(point: tuple[float, float], ring: Any) -> bool:
    """Whether (x, y) lies inside the polygon ``ring`` (even-odd rule)."""
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(ring, [*ring[1:], ring[0]], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _slot_pixels(variant: Variant, abbr: str) -> list[tuple[int, int]]:
    """The pixels the board's base layer gives to a land province's area (where no label covers it)."""
    from judge.reports.maps.areas import base_layer

    base = base_layer(variant)
    slot = base.slot0 + variant.geo.loc(abbr)
    width = base.image.size[0]
    labels = base.label_mask.tobytes()
    return [(i % width, i // width) for i, v in enumerate(base.image.tobytes()) if v == slot and not labels[i]]


@pytest.mark.parametrize("name", ["classic", "coldwar", "pure"])
def test_geometry_loads_and_covers_every_province(name: str) -> None:
    """Every province an area with its units inside; the game's neighbours share a border on the picture (nine in
    ten of them: straits), except on Pure's board, where seven provinces each beside every other cannot all share
    borders in a plane: the ring's neighbours share one and every other pair is a link across the hub, asserted
    below pair by pair."""
    variant = load_variant(name)
    geometry = board_geometry(variant)
    assert geometry is not None
    assert len(geometry.areas) == len(variant.geo.provinces)
    for prov in variant.geo.provinces:
        area = geometry.areas[prov.id]
        assert area and all(len(ring) >= 3 for poly in area for ring in poly), prov.abbr
        lat, lon = geometry.units[prov.id]  # units stand inside their province
        x = geometry.frame[0] + (lon - geometry.frame[0]) % 360.0
        assert any(
            _inside((x, lat), poly[0]) and not any(_inside((x, lat), hole) for hole in poly[1:]) for poly in area
        ), prov.abbr
    data = json.loads((data_dir("variants") / f"{name}.geo.json").read_text(encoding="utf-8"))
    shared, pairs = data["neighbours_sharing_a_border"]
    if name != "pure":
        assert not geometry.links and geometry.hub is None
        assert shared >= 0.9 * pairs  # the tool's own check: neighbours in the game are neighbours on the board
    else:  # Pure: 7 pairs round the ring share a border, the other 14 meet across the hub, each drawn as a line
        assert (shared, pairs) == (7, 21) and len(geometry.links) == 14 and geometry.hub is not None
        ring = {tuple(sorted((a, (a + 1) % 7))) for a in range(7)}  # the provinces are listed round the ring
        every = {(a, b) for a in range(7) for b in range(a + 1, 7)}
        assert {tuple(sorted(link)) for link in geometry.links} == every - ring
        assert all(b in variant.geo.army_adj[a] for a, b in every)  # and the game makes them all neighbours
        hub_lat, hub_lon, radius = geometry.hub
        for prov in variant.geo.provinces:  # every province reaches the hub's rim
            rim = min(
                math.hypot(lon - hub_lon, lat - hub_lat) for poly in geometry.areas[prov.id] for lon, lat in poly[0]
            )
            assert abs(rim - radius) < 0.05, prov.abbr
    base_pixels = {prov.abbr: 0 for prov in variant.geo.provinces if prov.terrain.name != "SEA"}
    from judge.reports.maps.areas import base_layer

    base = base_layer(variant)
    for value in base.image.tobytes():
        if value >= base.slot0:
            base_pixels[variant.geo.provinces[value - base.slot0].abbr] += 1
    assert all(count >= 20 for count in base_pixels.values()), base_pixels  # every land province shows


def test_areas_are_tinted_by_who_holds_them(classic: Variant) -> None:
    from judge.reports.maps.style import LAND_AREA

    position = position_from_json(
        classic,
        {
            "phase": "F1902M",
            "units": {"France": ["A bur"], "Germany": ["A pic"]},
            "supply_centers": {"France": ["par", "bel"], "Germany": ["mun"]},
        },
    )
    image = _open(render_map(classic, position))
    colours = power_colours(classic)

    def share(abbr: str, colour: tuple[int, int, int]) -> float:
        pixels = _slot_pixels(classic, abbr)
        return sum(1 for p in pixels if image.getpixel(p) == colour) / len(pixels)

    assert share("bel", tint(colours["France"])) > 0.7  # a centre: by its owner
    assert share("par", tint(colours["France"])) > 0.7
    assert share("mun", tint(colours["Germany"])) > 0.7
    assert share("bur", tint(colours["France"])) > 0.7  # no centre: by the power whose unit stands there
    assert share("pic", tint(colours["Germany"])) > 0.7
    assert share("vie", LAND_AREA) > 0.7 and share("gas", LAND_AREA) > 0.7  # nobody's
    assert held_by(classic, position)[classic.geo.loc("bur")] == "France"


def _opening(variant: Variant) -> tuple[Any, Any, list[dict]]:
    units = {
        "England": ["F lon", "F edi", "A lvp"],
        "France": ["A par", "A mar", "F bre"],
        "Germany": ["A mun", "A ber", "F kie"],
        "Italy": ["A ven", "A rom", "F nap"],
        "Austria": ["A vie", "A bud", "F tri"],
        "Russia": ["A mos", "A war", "F sev", "F stp/sc"],
        "Turkey": ["A con", "A smy", "F ank"],
    }
    orders = {
        "England": ["F lon - nth", "F edi - nwg", "A lvp - yor"],
        "France": ["A par - bur", "A mar S A par - bur", "F bre - mao"],
        "Germany": ["A mun - bur", "A ber - kie", "F kie - den"],
        "Italy": ["A ven - tyr", "A rom - ven", "F nap - ion"],
        "Austria": ["A vie - gal", "A bud - ser", "F tri - alb"],
        "Russia": ["A mos - ukr", "A war - gal", "F sev - bla", "F stp/sc - bot"],
        "Turkey": ["A con - bul", "A smy - con", "F ank - bla"],
    }
    before = position_from_json(variant, {"phase": "S1901M", "units": units})
    turn, results = _played(variant, {"phase": "S1901M", "units": units}, orders)
    return before, turn.position, results


def test_a_results_picture_shows_the_board_after_the_phase_and_is_light(classic: Variant) -> None:
    before, after, results = _opening(classic)
    drawing = draw_map(classic, before, results, after=after, title="g — Spring 1901 movement")
    png = drawing.png()
    assert len(png) <= 100_000
    image = _open(png)
    layout, geo, colours = drawing.layout, classic.geo, power_colours(classic)
    assert image.getpixel(layout.location_point(geo.loc("nth"))) == colours["England"]  # moved there
    assert image.getpixel(layout.location_point(geo.loc("mun"))) == colours["Germany"]  # bounced: stayed
    before_only = _open(render_map(classic, before, results))
    assert before_only.getpixel(layout.location_point(geo.loc("nth"))) != colours["England"]


def test_the_legend_counts_centres_after_the_phase(classic: Variant) -> None:
    fall = {
        "phase": "F1901M",
        "units": {"France": ["A bur", "F mao"], "Germany": ["A kie"]},
        "supply_centers": {"France": ["par", "mar", "bre"], "Germany": ["mun", "ber", "kie"]},
    }
    before = position_from_json(classic, fall)
    turn, results = _played(classic, fall, {"France": ["A bur - bel", "F mao - por"], "Germany": ["A kie - hol"]})
    after = turn.position
    assert after.centre_count("France") == 5 and before.centre_count("France") == 3
    drawing = draw_map(classic, before, results, after=after)
    entries = {e.power: e for e in drawing.legend}
    for power in classic.powers:
        assert entries[power].centres == after.centre_count(power)
        assert entries[power].text.endswith(f"  {after.centre_count(power)}")
    assert entries["France"].centres == 5 and entries["Germany"].centres == 4
    assert entries[None].centres == 34 - 9


def test_dislodged_units_and_retreats_are_marked(classic: Variant) -> None:
    spring = {"phase": "S1901M", "units": {"Italy": ["A ven", "F adr"], "Austria": ["F tri"]}}
    before = position_from_json(classic, spring)
    turn, results = _played(classic, spring, {"Italy": ["A ven - tri", "F adr S A ven - tri"], "Austria": ["F tri H"]})
    after = turn.position
    assert after.dislodged
    drawing = draw_map(classic, before, results, after=after)
    image, layout, geo = _open(drawing.png()), drawing.layout, classic.geo
    x, y = drawing.pieces[0].dislodged[geo.loc("tri")]
    ring = [image.getpixel((x + dx, y + dy)) for dx in range(-12, 13) for dy in range(-12, 13)]
    assert any(p == DISLODGED_LINE for p in ring)
    assert image.getpixel((x, y)) == power_colours(classic)["Austria"]  # the fleet itself, there
    assert image.getpixel(layout.location_point(geo.loc("tri"))) == power_colours(classic)["Italy"]
    fleet, army = unit_box(UnitKind.FLEET, (x, y)), unit_box(UnitKind.ARMY, layout.location_point(geo.loc("tri")))
    assert fleet[2] <= army[0] or army[2] <= fleet[0] or fleet[3] <= army[1] or army[3] <= fleet[1]  # beside it
    retreat_turn, retreats = _played(
        classic,
        {
            "phase": "S1901R",
            "units": {"Italy": ["A tri", "F adr"]},
            "dislodged": {"Austria": [{"unit": "F tri", "attacker_from": "ven"}]},
        },
        {"Austria": ["F tri R alb"]},
    )
    picture = draw_map(classic, after, retreats, after=retreat_turn.position)
    shown = _open(picture.png())
    austria = power_colours(classic)["Austria"]
    assert shown.getpixel(picture.layout.location_point(geo.loc("alb"))) == austria  # the fleet retreated there
    (ax, ay), (bx, by) = picture.pieces[0].dislodged[geo.loc("tri")], picture.layout.location_point(geo.loc("alb"))
    arrow = [shown.getpixel((round(ax + (bx - ax) * t), round(ay + (by - ay) * t))) for t in (0.4, 0.45, 0.5, 0.55)]
    assert any(p == austria for p in arrow)  # the retreat's arrow


def test_cyrillic_and_german_render(classic: Variant) -> None:
    from judge.reports.maps.areas import _glyphs

    for word in ("Центры снабжения", "Unterstützung", "Россия"):
        cover, _mask, _ = _glyphs(word, 12, False)
        assert cover.getbbox() is not None and can_draw(word, 12)
    assert legend_words("ru")["centres"] == "Центры снабжения"
    assert legend_words("de")["support"] == "Unterstützung"
    position = position_from_json(classic, {})
    ru = draw_map(classic, position, language="ru", title="Классика — весна 1901")
    en = draw_map(classic, position, language="en", title="Classic — Spring 1901")
    assert ru.words["fleet"] == "флот" and ru.png() != en.png()
    custom = draw_map(classic, position, words={"fleet": "Flotte!", "unknown": "x"})
    assert custom.words["fleet"] == "Flotte!" and "unknown" not in custom.words


def _label_boxes(variant: Variant, part: Any) -> dict[int, tuple[int, int, int, int]]:
    """The boxes of the letters of the labels a part of the board (the map or its inset) draws, as drawn."""
    from judge.reports.maps.fonts import _font

    boxes = {}
    for loc, name in enumerate(variant.geo.loc_names):
        if loc in part.hidden:
            continue
        size = part.label_size if loc < len(variant.geo.provinces) else part.coast_label_size
        left, top, right, bottom = _font(size).getbbox(part.label_text(loc, name))
        x, y = part.labels[loc]
        boxes[loc] = (x, y, x + right - left, y + bottom - top)
    return boxes


@pytest.mark.parametrize("name", ["classic", "coldwar"])
def test_labels_are_readable_at_700_pixels_and_apart(name: str) -> None:
    from judge.reports.maps.areas import base_layer
    from judge.reports.maps.fonts import _font
    from judge.reports.maps.style import ARMY

    variant = load_variant(name)
    base = base_layer(variant)
    layout, geo = base.layout, variant.geo
    shrink = min(1.0, 700 / layout.width)  # what a mail reader 700 pixels wide makes of the picture
    _left, top, _right, bottom = _font(layout.label_size).getbbox("PARNTH")
    assert (bottom - top) * shrink >= 7.5, (bottom - top, layout.width)  # capitals: the labels are upper case
    _left, top, _right, bottom = _font(layout.coast_label_size).getbbox("nc")
    assert (bottom - top) * shrink >= 5.5  # a coast's small letters
    parts = [(layout, 0)] + ([(layout.inset, layout.inset_at)] if layout.inset is not None else [])
    labelled: list[int] = []
    for part, row in parts:
        boxes = _label_boxes(variant, part)
        labelled += boxes
        drawn = base.label_mask.crop((0, row, part.width, row + part.height))
        for loc, box in boxes.items():
            where = geo.loc_names[loc]
            assert min(box[0], box[1]) >= 0 and box[2] <= part.width and box[3] <= part.height, where
            assert drawn.crop(box).getbbox() is not None, where  # the label is there
            for other, seen in boxes.items():  # no label runs into another
                if other != loc:
                    apart = box[2] <= seen[0] or seen[2] <= box[0] or box[3] <= seen[1] or seen[3] <= box[1]
                    assert apart, (where, geo.loc_names[other])
            for prov in geo.provinces:  # nor covers where a unit stands
                x, y = part.location_point(prov.id)
                gap = math.hypot(max(box[0] - x, 0, x - box[2]), max(box[1] - y, 0, y - box[3]))
                assert gap >= ARMY - 1, (where, prov.abbr)
    assert sorted(labelled) == list(range(len(geo.loc_names)))  # every place labelled, once


def _busy(variant: Variant, seed: int) -> tuple[Any, Any, list[dict]]:
    """A crowded movement phase: units on nearly half the provinces, each moving, supporting or holding at random
    (some orders fail, some are void), centres shared out; played as the server plays it."""
    rng = random.Random(seed)
    geo = variant.geo
    provinces = list(geo.provinces)
    rng.shuffle(provinces)
    units: dict[str, list[str]] = {p: [] for p in variant.powers}
    for i, prov in enumerate(provinces[: len(provinces) * 9 // 20]):
        fleet = prov.terrain.name == "SEA" or (prov.terrain.name == "COAST" and rng.random() < 0.4)
        place = f"{prov.abbr}/{prov.coasts[0]}" if fleet and prov.coasts else prov.abbr
        units[variant.powers[i % len(variant.powers)]].append(f"{'F' if fleet else 'A'} {place}")
    centres = sorted(variant.centres)
    rng.shuffle(centres)
    owned = {p: [geo.loc_names[c] for c in centres[i :: len(variant.powers) + 1]] for i, p in enumerate(variant.powers)}
    phase = {"phase": f"F{variant.start_year + 2}M", "units": units, "supply_centers": owned}
    before = position_from_json(variant, phase)
    orders: dict[str, list[str]] = {p: [] for p in variant.powers}
    for unit in before.units.values():
        text = f"{unit.kind.value} {geo.loc_names[unit.loc]}"
        dests = geo.destinations(unit.kind, unit.loc)
        friends = [before.units[geo.loc_province[d]] for d in dests if geo.loc_province[d] in before.units]
        roll = rng.random()
        if roll < 0.55 and dests:
            orders[unit.power].append(f"{text} - {geo.loc_names[rng.choice(dests)]}")
        elif roll < 0.9 and friends:
            other = rng.choice(friends)
            reach = {geo.loc_province[d] for d in dests}
            to = [d for d in geo.destinations(other.kind, other.loc) if geo.loc_province[d] in reach]
            move = f" - {geo.loc_names[geo.loc_province[to[0]]]}" if to and rng.random() < 0.7 else ""
            orders[unit.power].append(f"{text} S {other.kind.value} {geo.loc_names[other.loc]}{move}")
        else:
            orders[unit.power].append(f"{text} H")
    turn, results = _played(variant, phase, orders)
    return before, turn.position, results


@pytest.mark.parametrize("name", ["classic", "coldwar"])
def test_a_busy_results_picture_is_light_and_shows_every_unit(name: str) -> None:
    variant = load_variant(name)
    before, after, results = _busy(variant, 7)
    assert len(results) >= 15 and {"succeeds", "bounced"} <= {r["outcome"] for r in results}
    drawing = draw_map(variant, before, results, after=after, title=f"{name} — Herbst 1903, Bewegung", language="ru")
    png = drawing.png()
    assert len(png) <= 100_000, len(png)
    image, layout, geo = _open(png), drawing.layout, variant.geo
    colours = power_colours(variant)
    parts = [(layout, 0)] + ([(layout.inset, layout.inset_at)] if layout.inset is not None else [])
    shown = 0
    for prov, unit in after.units.items():
        for part, row in parts:  # every unit on the map, and again in the inset when it stands there
            if geo.loc_province[unit.loc] in part.hidden and part is not layout:
                continue
            x, y = part.location_point(unit.loc)
            if part is layout.inset and not (0 <= x < part.width and 0 <= y < part.height):
                continue
            near = [image.getpixel((x + dx, row + y + dy)) for dx in (-2, 0, 2) for dy in (-2, 0, 2)]
            assert colours[unit.power] in near, (geo.provinces[prov].abbr, part is layout)
            shown += 1
    assert shown >= len(after.units)


def test_a_busy_cold_war_results_mail_as_sent_is_light(tmp_path: Path) -> None:
    from gamekit import Table

    from judge.game import records
    from judge.transport.smtp import message_bytes

    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--variant", "coldwar") == 0
    for power in ("USSR", "NATO"):
        email, secret = f"{power.lower()}@p.test", f"pw-{power}"
        assert t.cli("game", "join", "g", "--power", power, "--email", email, "--password", secret) == 0
    assert t.cli("game", "start", "g") == 0
    coldwar = load_variant("coldwar")
    before, _after, results = _busy(coldwar, 7)
    game = records.load_game(t.db, "g")
    assert game is not None
    with t.db.atomic():
        game.position = before
        records.save_game(t.db, game, t.now)
    for power in ("USSR", "NATO"):
        lines = [r["input"] for r in results if r["power"] == power]
        t.mail(f"{power.lower()}@p.test", "\n".join([f"SIGNON {power} g pw-{power}", *lines]))
    assert t.cli("game", "process", "g") == 0
    mails = [m for m in t.outbox() if "Fall 1962 movement" in m["subject"] and m["picture_id"]]
    assert len(mails) == 2 and "bounced" in mails[0]["body"]  # the busy phase was played, its orders drawn
    for row in mails:
        png = next(t.db.query("select png from pictures where id = ?", [row["picture_id"]]))["png"]
        raw = message_bytes(row, "judge@p.test", "g", t.now, png)
        assert len(png) <= 100_000 and len(raw) <= 150_000, (len(png), len(raw))
        assert raw.count(b"Content-Type: image/png") == 1  # the picture carried once


@pytest.mark.parametrize("name", ["classic", "coldwar"])
def test_pictures_are_palette_pngs_under_100_kb(name: str) -> None:
    variant = load_variant(name)
    position = position_from_json(variant, {})
    png = render_map(variant, position, title=f"{name} — a long title to see it fits")
    assert Image.open(io.BytesIO(png)).mode == "P" and len(png) <= 100_000


def test_a_variant_without_geometry_gets_the_diagram(tmp_path: Path) -> None:
    bare = variant_from_data(_variant_data("classic"), "classic-without-geometry")
    assert board_geometry(bare) is None and not has_board(bare)
    drawing = draw_map(bare, position_from_json(bare, {}))
    assert drawing.image.size[0] == 1400 and drawing.image.mode == "RGB"  # today's diagram
    classic = load_variant("classic")
    data = json.loads((data_dir("variants") / "classic.geo.json").read_text(encoding="utf-8"))
    abbrs = tuple(p.abbr for p in classic.geo.provinces)
    assert parse_geometry(data, abbrs) is not None
    del data["provinces"]["par"]  # a geometry that does not fit the provinces is not used
    assert parse_geometry(data, abbrs) is None


def test_the_tool_makes_geometry_from_coordinates_and_coastlines() -> None:
    pytest.importorskip("shapely")
    from judge.reports.maps.tessellate import tessellate

    tower = _tower()
    coast = {
        "source": "made up",
        "layers": {"land": [[[[-5, -5], [1.2, -5], [1.2, 65], [-5, 65], [-5, -5]]]], "lakes": []},
    }
    data, report = tessellate("tower", tower.geo, coast)
    assert set(data["provinces"]) == {"top", "mid", "bot", "sea"}
    assert data["neighbours_sharing_a_border"] == [3, 3] and "3 of 3 neighbouring pairs share a border" in report
    geometry = parse_geometry(data, ("top", "mid", "bot", "sea"))
    assert geometry is not None
    xs = [x for poly in geometry.areas[3] for x, _ in poly[0]]
    assert min(xs) >= 1.2 - 1e-6  # the sea is water only


@pytest.mark.parametrize("name", ["classic", "coldwar", "pure"])
def test_centre_markers_and_units_stand_in_their_province(name: str) -> None:
    from judge.reports.maps.areas import base_layer

    variant = load_variant(name)
    base = base_layer(variant)
    layout, geo = base.layout, variant.geo

    def near(point: tuple[int, int], prov: int) -> bool:  # within 2 pixels (a border line, rounding)
        x, y = point
        return any(
            base.image.getpixel((x + dx, y + dy)) == base.slot0 + prov for dx in range(-2, 3) for dy in range(-2, 3)
        )

    for prov in geo.provinces:
        if prov.centre:
            assert near(layout.centre_marker(prov.id), prov.id), prov.abbr
        if prov.terrain.name != "SEA":
            assert near(layout.location_point(prov.id), prov.id), prov.abbr


def test_builds_and_removals_on_the_board(classic: Variant) -> None:
    winter = {
        "phase": "W1901A",
        "units": {"France": ["A bur"], "Germany": ["A mun", "A ber", "F kie", "A hol"]},
        "supply_centers": {"France": ["par", "bre", "mar"], "Germany": ["mun", "kie"]},
    }
    before = position_from_json(classic, winter)
    turn, results = _played(
        classic, winter, {"France": ["build A par", "build F bre"], "Germany": ["A hol disband", "A ber disband"]}
    )
    assert {r["outcome"] for r in results} <= {"succeeds", "disbanded"}
    drawing = draw_map(classic, before, results, after=turn.position)
    image, layout, geo = _open(drawing.png()), drawing.layout, classic.geo
    france = power_colours(classic)["France"]
    x, y = layout.location_point(geo.loc("par"))
    assert image.getpixel((x, y)) == france  # the new army ...
    assert any(
        image.getpixel((x + 12 + dx, y - 12 + dy)) == france for dx in (-1, 0, 1) for dy in (-1, 0, 1)
    )  # + its plus
    hx, hy = layout.location_point(geo.loc("hol"))
    assert image.getpixel((hx, hy)) != power_colours(classic)["Germany"]  # removed: an x where it stood


@pytest.mark.parametrize("name", ["classic", "coldwar", "pure"])
def test_a_geometry_file_names_the_tool_that_made_it(name: str) -> None:
    import importlib.util
    import re

    data = json.loads((data_dir("variants") / f"{name}.geo.json").read_text(encoding="utf-8"))
    found = re.search(r"made by ([\w.]+) ", data["about"])
    assert found is not None and found.group(1) == "judge.reports.maps.tessellate", data["about"]
    assert importlib.util.find_spec(found.group(1)) is not None  # the module a reader would run
