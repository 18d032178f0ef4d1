"""Where a board picture puts the pieces of a played phase (judge.reports.maps.placing): dislodged units on a free
spot inside their own province, and order lines that stay visible in the final picture (labels moved off them).
Checked on real adjudicated phases of classic and Cold War with dislodgements, supports and convoys, and their
retreat phases."""

from __future__ import annotations

import io
import math
from typing import Any

import pytest
from PIL import Image

from judge.data.catalog import load_variant
from judge.reports.maps import DISLODGED_LINE, draw_map, power_colours
from judge.reports.maps.areas import base_layer
from judge.reports.maps.fonts import _font
from judge.reports.maps.placing import OrderLine, Pieces, drawn_segments, line_pixels, unit_box
from judge.rules.board import Position
from judge.rules.order_json import order_to_json
from judge.rules.position_json import position_from_json
from judge.rules.turn import parse_submissions, play
from judge.rules.variant import Variant

Box = tuple[float, float, float, float]

# Fall 1901 of a classic game as the audit played it: A tyr - ven supported by F tri dislodges Italy's A ven;
# convoys through the North Sea and the Ionian Sea, supported moves, bounces.
CLASSIC = (
    {
        "phase": "F1901M",
        "units": {
            "Austria": ["A tyr", "F tri", "A ser"],
            "Italy": ["A ven", "A apu", "F ion"],
            "Germany": ["A mun", "A kie", "F den"],
            "France": ["A bur", "A spa", "F mao"],
            "England": ["F nth", "A yor", "F nwg"],
            "Russia": ["A ukr", "A gal", "F sev", "F bot"],
            "Turkey": ["A bul", "F bla", "A con"],
        },
        "supply_centers": {
            "Austria": ["vie", "bud", "tri"],
            "Italy": ["ven", "rom", "nap"],
            "Germany": ["ber", "mun", "kie"],
            "France": ["par", "mar", "bre"],
            "England": ["lon", "edi", "lvp"],
            "Russia": ["mos", "war", "sev", "stp"],
            "Turkey": ["ank", "con", "smy"],
        },
    },
    {
        "Austria": ["A tyr - ven", "F tri S A tyr - ven", "A ser - gre"],
        "Italy": ["A ven H", "A apu - tun", "F ion C A apu - tun"],
        "Germany": ["A mun - bur", "A kie - hol", "F den - swe"],
        "France": ["A bur - bel", "A spa - por", "F mao S A spa - por"],
        "England": ["F nth C A yor - nwy", "A yor - nwy", "F nwg S A yor - nwy"],
        "Russia": ["A ukr - rum", "A gal S A ukr - rum", "F sev - bla", "F bot - swe"],
        "Turkey": ["A bul - rum", "F bla - sev", "A con - bul"],
    },
    {"Italy": ["A ven R pie"]},
)

# Spring 1960 of a Cold War game: two units dislodged (USSR's A yug, NATO's F ist), a convoy through the North Sea,
# supports, a bounce.
COLDWAR = (
    {
        "phase": "S1960M",
        "units": {
            "NATO": ["A ita", "F ion", "A lon", "F nts", "A par", "F ist"],
            "USSR": ["A yug", "F alb", "A wge", "A ukr", "F bla", "A mos"],
        },
    },
    {
        "NATO": ["A ita - yug", "F ion S A ita - yug", "A lon - den", "F nts C A lon - den", "A par - wge", "F ist H"],
        "USSR": ["A yug H", "F alb - grc", "A wge H", "A ukr - ist", "F bla S A ukr - ist", "A mos H"],
    },
    {"USSR": ["A yug R alb"], "NATO": ["F ist R eme"]},
)


def _play(variant: Variant, before: Position, orders: dict[str, list[str]]) -> tuple[Position, list[dict[str, Any]]]:
    """One phase played as the game server plays it, the results as it stores them."""
    turn = play(variant, before, parse_submissions(variant, before.phase.step, orders))
    results = [
        {
            "power": r.power,
            "typed": order_to_json(variant.geo, r.order, before.units) if r.order is not None else None,
            "outcome": r.outcome.value,
        }
        for r in turn.results
    ]
    return turn.position, results


def _phases(name: str) -> list[tuple[Variant, Position, Position, list[dict[str, Any]]]]:
    """The movement phase and the retreat phase after it: (variant, before, after, results) of each."""
    variant = load_variant(name)
    start, orders, retreats = CLASSIC if name == "classic" else COLDWAR
    before = position_from_json(variant, start)
    after, results = _play(variant, before, orders)
    assert after.dislodged and after.phase.step.name == "RETREAT"
    outcomes = {r["outcome"] for r in results}
    assert {"succeeds", "dislodged", "bounced"} <= outcomes
    kinds = {r["typed"]["type"] for r in results if r["typed"]}
    assert {"move", "support", "convoy", "hold"} <= kinds
    later, retreat_results = _play(variant, after, retreats)
    assert {r["outcome"] for r in retreat_results} == {"succeeds"}
    return [(variant, before, after, results), (variant, after, later, retreat_results)]


def _pixels(drawing: Any) -> Image.Image:
    return Image.open(io.BytesIO(drawing.png())).convert("RGB")


def _apart(a: Box, b: Box) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def _letters(variant: Variant, part: Pieces, loc: int) -> Box:
    """The box of a label's letters as drawn in this part."""
    layout = part.layout
    size = layout.label_size if loc < len(variant.geo.provinces) else layout.coast_label_size
    left, top, right, bottom = _font(size).getbbox(layout.label_text(loc, variant.geo.loc_names[loc]))
    x, y = part.labels[loc]
    return (x, y, x + right - left, y + bottom - top)


def _middle(image: Image.Image, part: Pieces, line: OrderLine) -> list[tuple[int, int, int]]:
    """The pixels along the middle of the line as drawn (from 30 % to 70 % of its longest piece), inside the
    part's frame."""
    layout = part.layout
    pieces = drawn_segments(layout, line)
    assert pieces, line
    (sx, sy), (ex, ey) = max(pieces, key=lambda p: math.dist(*p))
    d = math.dist((sx, sy), (ex, ey))
    out = []
    for i in range(round(0.3 * d), round(0.7 * d) + 1):
        t = i / d if d else 0.0
        x, y = round(sx + (ex - sx) * t), round(sy + (ey - sy) * t)
        if 0 <= x < layout.width and 0 <= y < layout.height:
            out.append(image.getpixel((x, part.top + y)))
    return out


def _visible(pixels: list[tuple[int, int, int]], colour: tuple[int, int, int], window: int = 8) -> bool:
    """Whether the line's colour shows in every stretch of ``window`` pixels (a dashed or dotted line's gaps are
    shorter), or at least once along a middle shorter than that."""
    if len(pixels) <= window:
        return colour in pixels
    return all(colour in pixels[i : i + window] for i in range(len(pixels) - window + 1))


@pytest.mark.parametrize("name", ["classic", "coldwar"])
def test_dislodged_units_stand_on_a_free_spot_inside_their_province(name: str) -> None:
    for variant, before, after, results in _phases(name):
        drawing = draw_map(variant, before, results, after=after)
        image, geo = _pixels(drawing), variant.geo
        colours = power_colours(variant)
        drawn_dislodged = before if before.phase.step.name == "RETREAT" else after
        for part in drawing.pieces:
            layout = part.layout
            assert layout.province_at is not None
            units = {prov: unit_box(u.kind, layout.location_point(u.loc)) for prov, u in after.units.items()}
            # checked where the province is labelled (Cold War's Europe: in the inset; its world map draws Europe's
            # units as crowded as they are at that scale)
            spots = {prov: part.dislodged[prov] for prov in drawn_dislodged.dislodged if prov not in layout.hidden}
            labels = [_letters(variant, part, loc) for loc in range(len(geo.loc_names)) if loc not in layout.hidden]
            for prov, spot in spots.items():
                unit = drawn_dislodged.dislodged[prov].unit
                box = unit_box(unit.kind, spot)
                where = geo.provinces[prov].abbr
                assert layout.province_at(prov, *spot), where  # inside its own province
                assert all(_apart(box, other) for other in units.values()), where  # off every other unit
                assert all(
                    _apart(box, unit_box(drawn_dislodged.dislodged[p].unit.kind, s))
                    for p, s in spots.items()
                    if p != prov
                )
                assert all(_apart(box, label) for label in labels), where  # and every label
                if prov in after.dislodged:  # drawn: in its colour, outlined in red
                    assert image.getpixel((spot[0], part.top + spot[1])) == colours[unit.power], where
                    ring = [
                        image.getpixel((spot[0] + dx, part.top + spot[1] + dy))
                        for dx in range(-12, 13)
                        for dy in range(-12, 13)
                        if 0 <= spot[1] + dy < layout.height
                    ]
                    assert DISLODGED_LINE in ring, where
                    # the order lines of other units keep off it
                    others = [line for line in part.lines if spot not in (line.start, line.end)]
                    under = line_pixels(layout, others).crop(tuple(round(v) for v in box))
                    assert under.getbbox() is None, where


@pytest.mark.parametrize("name", ["classic", "coldwar"])
def test_every_order_line_shows_in_the_final_picture(name: str) -> None:
    checked = 0
    for variant, before, after, results in _phases(name):
        drawing = draw_map(variant, before, results, after=after)
        image, geo = _pixels(drawing), variant.geo
        drawn_kinds = [r["typed"]["type"] for r in results if r["typed"]]
        lines = sum(k in ("move", "retreat", "support", "convoy") for k in drawn_kinds)
        for part in drawing.pieces:
            layout = part.layout
            assert len(part.lines) == lines  # every move, retreat, support and convoy is a line
            for r in results:  # each move starts at its unit and ends at its destination
                typed = r["typed"]
                if typed and typed["type"] == "move":
                    start, end = (
                        layout.location_point(geo.loc(typed["at"])),
                        layout.location_point(geo.loc(typed["to"])),
                    )
                    assert any(
                        math.dist(line.start, start) <= 5.5 and math.dist(line.end, end) <= 5.5 for line in part.lines
                    ), typed
            for line in part.lines:
                pixels = _middle(image, part, line)
                if len(pixels) < 4:  # the line leaves this part (drawn in full on the other)
                    continue
                assert _visible(pixels, line.colour), (name, part.top, line)
                checked += 1
            boxes = {loc: _letters(variant, part, loc) for loc in range(len(geo.loc_names)) if loc not in layout.hidden}
            for loc, box in boxes.items():  # the labels, moved or not, stay apart and inside the part
                assert min(box[0], box[1]) >= 0 and box[2] <= layout.width and box[3] <= layout.height
                assert all(_apart(box, other) for o, other in boxes.items() if o != loc), geo.loc_names[loc]
    assert checked >= 20


def test_the_checks_catch_what_the_audit_saw() -> None:
    """The audit's picture had the dislodged A ven on F tri and the VEN label over the TYR-VEN arrow: the checks
    above fail on such a picture."""
    (variant, before, after, results), _retreat = _phases("classic")
    geo = variant.geo
    drawing = draw_map(variant, before, results, after=after)
    part = drawing.pieces[0]
    layout = part.layout
    ven, tri = geo.loc("ven"), geo.loc("tri")
    x, y = layout.location_point(ven)
    old = unit_box(after.dislodged[ven].unit.kind, (x + 17, y - 9))  # where it was drawn before: a fixed offset
    assert not _apart(old, unit_box(after.units[tri].kind, layout.location_point(tri)))
    arrow = next(line for line in part.lines if line.start == layout.location_point(geo.loc("tyr")))
    image = _pixels(drawing)
    assert _visible(_middle(image, part, arrow), arrow.colour)
    base = base_layer(variant)  # the labels pasted last, at their usual places, as the picture was drawn before
    covered = drawing.image.copy()
    covered.paste(base.labels, (0, 0), base.label_mask)
    assert not _visible(_middle(covered.convert("RGB"), part, arrow), arrow.colour)
    assert ven in part.moved  # VEN's label moved off the arrow
