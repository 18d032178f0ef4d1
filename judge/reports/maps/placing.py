"""Where one picture's pieces go: the lines of the phase's orders, each dislodged unit on a free spot inside its
province, and the labels a line or a dislodged unit would run into moved aside. The labels' own placement search
(``judge.reports.maps.layout``: candidates round a spot, then further out inside the province, scored by what they
cover) places the few things a phase adds; what stays the same from phase to phase is placed once per variant."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from PIL import Image, ImageDraw

from judge.reports.maps.drawn_orders import DrawnOrder
from judge.reports.maps.layout import (
    UNIT_WEIGHT,
    Box,
    MapLayout,
    _overlap,
    fixed_boxes,
    label_places,
    label_spec,
    place_near,
)
from judge.reports.maps.style import ARMY, CONVOY_INK, RGB, UNKNOWN_POWER, Point
from judge.rules.board import Position, Unit
from judge.rules.geography import Geography, UnitKind
from judge.rules.phase import Step

LINE_WEIGHT = 5.0  # what covering a pixel of an order line costs a label or a dislodged unit
LABEL_PAD = 2  # a label's white halo round its letters
GAP = 5  # a moved label keeps this far from the letters of any other: their halos apart
HEAD = 13.0  # an arrow's head, from its base to its tip (shorter on a short arrow)
# where each end of a line stops short of the spot it joins: (start, end) by kind
MOVE_CUT = (ARMY + 1, ARMY + 2)
SUPPORT_CUT = (ARMY + 2, ARMY + 5)  # the end only when it ends at a unit (a support of a unit holding)
CONVOY_CUT = (ARMY + 3, 0.0)


@dataclass(frozen=True)
class OrderLine:
    """An order drawn as a line: a move or retreat (an arrow), a support (dotted) or a convoy (teal dashes)."""

    kind: str  # move | retreat | support | convoy
    power: str
    colour: RGB  # the line's colour: the power's, a convoy's teal
    start: Point  # the ordered unit's spot
    end: Point  # where the line goes: the destination, the middle of the helped move, a supported unit's spot
    succeeded: bool
    to_unit: bool = False  # a support of a unit holding: the line stops short of that unit
    start_gap: float = 0.0  # how far from ``start`` an arrow begins: clear of the unit drawn there, if any


@dataclass(frozen=True)
class Pieces:
    """One part of a picture (the map, or its inset) as drawn: where each piece of the phase went."""

    layout: MapLayout
    top: int  # the picture's row of the part's top (0 for the map, the inset's row for the inset)
    lines: tuple[OrderLine, ...]  # supports and convoys first, then moves and retreats: the order drawn
    at: tuple[tuple[int, int], ...]  # each order's unit: where it is drawn (in the order of the orders given)
    dislodged: Mapping[int, tuple[int, int]]  # province -> where the unit dislodged from it is drawn
    labels: tuple[tuple[int, int], ...]  # location -> the top left of its label as drawn
    moved: frozenset[int]  # labels moved from their usual place, off a line or a dislodged unit
    crossed: frozenset[int]  # labels a line still crosses (nowhere free): their letters are drawn over the line


def unit_box(kind: UnitKind, at: Point = (0, 0)) -> Box:
    """The box round a unit's symbol drawn at ``at`` (with its outline)."""
    x, y = at
    if kind is UnitKind.ARMY:
        return (x - ARMY - 1, y - ARMY - 1, x + ARMY + 1, y + ARMY + 1)
    return (x - 11.5, y - 11, x + 11.5, y + 8.5)  # the boat: hull and sail


def segments(layout: MapLayout, a: Point, b: Point) -> list[tuple[Point, Point]]:
    """The straight way from a to b: one segment, or two when the short way crosses the map's seam."""
    dx = b[0] - a[0]
    if abs(dx) <= layout.world_width / 2:
        return [(a, b)]
    shift = layout.world_width if dx < 0 else -layout.world_width
    return [(a, (b[0] + shift, b[1])), ((a[0] - shift, a[1]), b)]


def shorten(a: Point, b: Point, start: float, end: float) -> tuple[Point, Point] | None:
    """The segment a-b without ``start`` pixels at a and ``end`` at b; None when nothing is left."""
    d = math.dist(a, b)
    if d <= start + end + 2:
        return None
    ux, uy = (b[0] - a[0]) / d, (b[1] - a[1]) / d
    return (a[0] + ux * start, a[1] + uy * start), (b[0] - ux * end, b[1] - uy * end)


def head_length(d: float, start_gap: float) -> float:
    """The length of the head of an arrow drawn along ``d`` pixels from a spot ``start_gap`` clear of its start:
    at most two thirds of what is left to draw, so that a short arrow keeps a shaft."""
    return max(6.0, min(HEAD, (d - start_gap - MOVE_CUT[1]) * 2 / 3))


def drawn_segments(layout: MapLayout, line: OrderLine) -> list[tuple[Point, Point]]:
    """The pieces of a line as drawn, each end cut short of the spot it joins (an arrow's up to its tip)."""
    parts = segments(layout, line.start, line.end)
    out: list[tuple[Point, Point]] = []
    for i, (s, e) in enumerate(parts):
        last = i == len(parts) - 1
        if line.kind in ("move", "retreat"):
            cut = shorten(s, e, line.start_gap if i == 0 else 0, MOVE_CUT[1] if last else 0)
        elif line.kind == "support":
            cut = shorten(s, e, SUPPORT_CUT[0], SUPPORT_CUT[1] if line.to_unit and last else 0)
        else:
            cut = shorten(s, e, CONVOY_CUT[0], CONVOY_CUT[1])
        if cut is not None:
            out.append(cut)
    return out


def line_pixels(layout: MapLayout, lines: Sequence[OrderLine]) -> Image.Image:
    """The pixels the lines cover as drawn, outlines and arrow heads included (255; else 0): what a label or a
    dislodged unit should not cover."""
    mask = Image.new("L", (layout.width, layout.height), 0)
    draw = ImageDraw.Draw(mask)
    for line in lines:
        pieces = drawn_segments(layout, line)
        for k, (s, e) in enumerate(pieces):
            draw.line([s, e], fill=255, width=5)
            if line.kind in ("move", "retreat") and k == len(pieces) - 1:  # the head, up to the tip at e
                d = math.dist(s, e)
                head = max(6.0, min(HEAD, d * 2 / 3))
                ux, uy = (e[0] - s[0]) / d, (e[1] - s[1]) / d
                bx, by = e[0] - ux * head, e[1] - uy * head
                draw.polygon([e, (bx - uy * 7.5, by + ux * 7.5), (bx + uy * 7.5, by - ux * 7.5)], fill=255)
    return mask


CELL = 8  # the side of a cell of the coarse grid that says where a mask has any pixel


def _counter(mask: Image.Image, weight: float) -> Callable[[Box], float]:
    """What covering the pixels of ``mask`` in a box costs (``weight`` a pixel). A coarse grid of the mask (the
    mean of each cell of CELL × CELL pixels: not 0 where any pixel is set) answers most boxes, which cover none."""
    width, height = mask.size
    grid = mask.reduce(CELL)
    cells, columns, rows = grid.tobytes(), grid.width, grid.height
    drawn = mask.getbbox() or (0, 0, 0, 0)  # where any pixel is set: a box clear of it covers nothing (a picture
    # of few lines, as a Fog of War player's, answers most boxes here)

    def covers(box: Box) -> float:
        x0, y0 = max(0, math.floor(box[0]), drawn[0]), max(0, math.floor(box[1]), drawn[1])
        x1, y1 = min(width, math.ceil(box[2]), drawn[2]), min(height, math.ceil(box[3]), drawn[3])
        if x1 <= x0 or y1 <= y0:
            return 0.0
        c0, c1 = x0 // CELL, min(columns, -(-x1 // CELL))
        if not any(
            cells[r * columns + c0 : r * columns + c1].strip(b"\0")
            for r in range(y0 // CELL, min(rows, -(-y1 // CELL)))
        ):
            return 0.0
        part = mask.crop((x0, y0, x1, y1))
        return 0.0 if part.getbbox() is None else weight * part.histogram()[255]

    return covers


def place_pieces(
    geo: Geography,
    layout: MapLayout,
    before: Position,
    shown: Position,
    orders: Sequence[DrawnOrder],
    colours: Mapping[str, RGB],
    played: bool,
    top: int = 0,
) -> Pieces:
    """Where the pieces of a picture go on ``layout``: ``shown`` is the position drawn, ``before`` the one the
    ``orders`` were given on (the same when the picture is not of a played phase). First the lines that join
    units standing on their spots; then each dislodged unit on the free place nearest its province's spot, inside
    the province, clear of the units, centre markers, labels and those lines; then the lines from (or to) dislodged
    units; last every label that a line or a dislodged unit runs into is placed again, clear of them too."""
    board = layout.province_at is not None
    retreat = before.phase.step is Step.RETREAT
    to_place: dict[int, Unit] = {prov: d.unit for prov, d in shown.dislodged.items()}
    if retreat:
        to_place.update({prov: d.unit for prov, d in before.dislodged.items() if prov not in to_place})

    def at(loc: int, spots: Mapping[int, tuple[int, int]]) -> tuple[int, int] | None:
        """Where the unit an order names is drawn; None while that is a dislodged unit not yet placed."""
        prov = geo.loc_province[loc]
        if (retreat and prov in before.dislodged) or (played and not retreat and prov in shown.dislodged):
            return spots.get(prov)
        unit = before.units.get(prov)
        return layout.location_point(unit.loc if unit is not None else loc)

    drawn = {layout.location_point(u.loc) for u in shown.units.values()}  # where a unit stands on the picture
    labels = {loc: _label_box(geo, layout, loc, board) for loc in range(len(geo.loc_names)) if loc not in layout.hidden}
    spots: dict[int, tuple[int, int]] = {}
    placed: list[Box] = []
    if to_place:
        fixed = _lines(geo, layout, orders, colours, partial(at, spots={}), drawn)
        covers = _counter(line_pixels(layout, fixed), LINE_WEIGHT)
        near: list[tuple[Box, float]] = [
            (unit_box(u.kind, layout.location_point(u.loc)), UNIT_WEIGHT) for u in shown.units.values()
        ]
        near += [(b, k) for b, k in fixed_boxes(geo, layout, 0.0) if k != UNIT_WEIGHT]  # the centre markers
        frame = (layout.width, layout.height)
        for prov in sorted(to_place):
            unit = to_place[prov]
            x, y = layout.location_point(prov)
            box = unit_box(unit.kind)
            size = (box[2] - box[0], box[3] - box[1])
            own = partial(layout.province_at, prov) if layout.province_at is not None else None
            others = [_padded(b) for b in labels.values()] + placed
            # where the province is not labelled (Cold War's Europe on the world map: too small to place units
            # apart) only the places round its spot are tried
            far = prov not in layout.hidden
            cx, cy, _cost, _extra = place_near(x, y, size, ARMY + 1, near, others, frame, own, True, covers, far)
            spot = (round(cx - box[0]), round(cy - box[1]))
            spots[prov] = spot
            placed.append(unit_box(unit.kind, spot))
            near.append((placed[-1], UNIT_WEIGHT))
    if played:
        drawn |= {spots[prov] for prov in shown.dislodged}
    else:
        drawn |= set(spots.values())
    lines = _lines(geo, layout, orders, colours, partial(at, spots=spots), drawn)
    drawn_at = tuple(at(o.loc, spots) or layout.location_point(o.loc) for o in orders)
    moved, crossed = _labels_off_lines(geo, layout, labels, lines, placed, board)
    shown_labels = tuple(
        (round(labels[loc][0]), round(labels[loc][1])) if loc in labels else layout.labels[loc]
        for loc in range(len(geo.loc_names))
    )
    return Pieces(layout, top, tuple(lines), drawn_at, spots, shown_labels, moved, crossed)


def _lines(
    geo: Geography,
    layout: MapLayout,
    orders: Sequence[DrawnOrder],
    colours: Mapping[str, RGB],
    at: Callable[[int], tuple[int, int] | None],
    drawn: set[tuple[int, int]],
) -> list[OrderLine]:
    """The lines of the orders whose units ``at`` knows where to draw: supports and convoys first, so that the
    moves they help are drawn over them; two units moving at each other keep to their right. An arrow begins
    clear of the unit at its start, or right at the spot where no unit is ``drawn`` (the unit moved away)."""
    out: list[OrderLine] = []
    for o in orders:
        start = at(o.loc)
        if start is None:
            continue
        colour = colours.get(o.power, UNKNOWN_POWER)
        if o.kind == "support":
            target = at(o.target)
            if target is None:
                continue
            end = _midpoint(layout, target, layout.location_point(o.dest)) if o.dest >= 0 else target
            out.append(OrderLine("support", o.power, colour, start, end, o.succeeded, o.dest < 0, SUPPORT_CUT[0]))
        elif o.kind == "convoy":
            target = at(o.target)
            if target is not None:
                end = _midpoint(layout, target, layout.location_point(o.dest))
                out.append(OrderLine("convoy", o.power, CONVOY_INK, start, end, o.succeeded, False, CONVOY_CUT[0]))
    moves = {(geo.loc_province[o.loc], geo.loc_province[o.dest]) for o in orders if o.kind == "move"}
    for o in orders:
        if o.kind not in ("move", "retreat"):
            continue
        start = at(o.loc)
        if start is None:
            continue
        a: Point = start
        b: Point = layout.location_point(o.dest)
        gap = MOVE_CUT[0] if start in drawn else 2.0
        if (geo.loc_province[o.dest], geo.loc_province[o.loc]) in moves:  # two units swapping or bouncing
            nx, ny = normal(a, b, 5.0)
            a, b = (a[0] + nx, a[1] + ny), (b[0] + nx, b[1] + ny)
        out.append(OrderLine(o.kind, o.power, colours.get(o.power, UNKNOWN_POWER), a, b, o.succeeded, start_gap=gap))
    return out


def normal(a: Point, b: Point, length: float) -> Point:
    """The vector of ``length`` at right angles to a-b (to its right on the picture)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    return (-dy / d * length, dx / d * length)


def _midpoint(layout: MapLayout, a: Point, b: Point) -> Point:
    s, e = max(segments(layout, a, b), key=lambda seg: math.dist(*seg))
    return ((s[0] + e[0]) / 2, (s[1] + e[1]) / 2)


def _label_box(geo: Geography, layout: MapLayout, loc: int, board: bool) -> Box:
    _text, _size, (w, h), _r = label_spec(geo, layout, loc, board)
    x, y = layout.labels[loc]
    return (float(x), float(y), x + w, y + h)


def _padded(box: Box, pad: float = LABEL_PAD) -> Box:
    return (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad)


def _touch(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _hits(box: Box, boxes: Sequence[Box]) -> bool:
    return any(_touch(box, b) for b in boxes)


def _labels_off_lines(
    geo: Geography,
    layout: MapLayout,
    labels: dict[int, Box],
    lines: Sequence[OrderLine],
    dislodged: Sequence[Box],
    board: bool,
) -> tuple[frozenset[int], frozenset[int]]:
    """Place again (changing ``labels``) each label, halo and all, that covers a line or a dislodged unit: at the
    first of the places the labels' search tries (``label_places``, cheapest first) that covers nothing, lines and
    dislodged units included, else the least covered, when that covers less than where it is. The labels moved,
    and those a line still crosses."""
    if not lines and not dislodged:
        return frozenset(), frozenset()
    covers = _counter(line_pixels(layout, lines), LINE_WEIGHT)
    hit = [loc for loc, box in labels.items() if _hits(_padded(box), dislodged) or covers(_padded(box)) > 0]
    moved: set[int] = set()
    for loc in hit:
        box = labels[loc]
        size = (box[2] - box[0], box[3] - box[1])
        places = label_places(geo, layout, loc, board)
        x, y = layout.points[loc]
        reach = 1.5 * size[0] + 2 * size[1] + 40  # as far as a place goes, and a label's width beyond
        around = (x - reach, y - reach, x + reach, y + reach)
        others = [b for other, b in labels.items() if other != loc and _touch(b, around)]
        crowd = [d for d in dislodged if _touch(d, around)]
        now = _cost(box[0], box[1], size, 0.0, covers, crowd, others)  # its usual place: free of what stays the same
        best = _cheapest(places, size, covers, crowd, others)
        if best is not None and best[2] + 0.5 < now:
            labels[loc] = (best[0], best[1], best[0] + size[0], best[1] + size[1])
            moved.add(loc)
    crossed = frozenset(loc for loc in hit if covers(_padded(labels[loc])) > 0)
    return frozenset(moved), crossed


def _cost(
    x: float,
    y: float,
    size: tuple[float, float],
    fixed: float,
    covers: Callable[[Box], float],
    dislodged: Sequence[Box],
    others: Sequence[Box],
) -> float:
    """What a label of ``size`` at (x, y) covers: ``fixed`` (what stays the same from picture to picture, as
    ``label_places`` counted it), the lines, the dislodged units and (heavily) the other labels."""
    w, h = size
    inner, outer = (x - 1, y - 1, x + w + 1, y + h + 1), (x - GAP, y - GAP, x + w + GAP, y + h + GAP)
    crowd = sum(_overlap(inner, d) for d in dislodged) * UNIT_WEIGHT
    return fixed + covers(inner) + crowd + 8 * sum(_overlap(outer, b) for b in others)


def _cheapest(
    places: Sequence[tuple[float, float, float, float]],
    size: tuple[float, float],
    covers: Callable[[Box], float],
    dislodged: Sequence[Box],
    others: Sequence[Box],
) -> tuple[float, float, float] | None:
    """The first of ``places`` (cheapest first: free of what stays the same, then by cost and distance) that
    covers nothing at all, else the one that covers least, with its cost and distance: (x, y, cost)."""
    best: tuple[float, float, float] | None = None
    for free in (True, False):  # the places free of what stays the same, then the others
        for x, y, fixed, extra in places:
            if (fixed <= 0.5) != free:
                continue
            if best is not None and fixed + extra >= best[2]:
                break  # in order of cost: none further on is cheaper
            total = _cost(x, y, size, fixed, covers, dislodged, others)
            if total <= 0.5:
                return (x, y, total + extra)
            if best is None or total + extra < best[2]:
                best = (x, y, total + extra)
    return best
