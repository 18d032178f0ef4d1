"""Drawing the picture: the map, the units, the orders and the legend."""

from __future__ import annotations

import io
import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from PIL import Image, ImageDraw

from judge.reports.maps.areas import (
    BoardCanvas,
    _Base,
    base_layer,
    board_legend_height,
    draw_label,
    erase_label,
    has_board,
    held_by,
    label_letters,
    tint,
)
from judge.reports.maps.drawn_orders import DrawnOrder, drawn_order
from judge.reports.maps.fonts import _drawing_font, drawable, legend_words, spell_drawable
from judge.reports.maps.layout import Box, MapLayout, _text_size, map_layout
from judge.reports.maps.placing import (
    CONVOY_CUT,
    MOVE_CUT,
    SUPPORT_CUT,
    Pieces,
    head_length,
    normal,
    place_pieces,
    segments,
    shorten,
)
from judge.reports.maps.style import (
    ARMY,
    ARMY_EDGE,
    BACKGROUND,
    BOARD_LEGEND_ROW,
    BOARD_LEGEND_SIZE,
    BOARD_TITLE_SIZE,
    CENTRE,
    CENTRE_AT,
    COAST_DOT,
    COAST_LABEL_SIZE,
    CONVOY_INK,
    DISC,
    DISLODGED_LINE,
    FAILED_MARK,
    FLEET_EDGE,
    FOG,
    FOG_CENTRE,
    LABEL_INK,
    LABEL_SIZE,
    LAND_AREA,
    LAND_FILL,
    LAND_LINE,
    LEGEND_COLUMNS,
    LEGEND_ROW,
    LEGEND_SIZE,
    NEUTRAL,
    OUTLINE,
    PALETTE,
    RGB,
    SCALE,
    SEA_FILL,
    SEA_LINE,
    TITLE_SIZE,
    UNKNOWN_POWER,
    Point,
    palette_colour,
)
from judge.rules.board import Position, Unit
from judge.rules.geography import Geography, Terrain, UnitKind
from judge.rules.variant import Variant
from judge.rules.visibility import fogged

# --- drawing -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LegendEntry:
    """One power (or the neutral centres) in the legend: its colour, centre count and the swatch's middle pixel."""

    power: str | None  # None for the neutral centres
    text: str
    colour: RGB
    centres: int
    swatch: tuple[int, int]


@dataclass(frozen=True)
class MapDrawing:
    image: Image.Image
    layout: MapLayout
    legend: tuple[LegendEntry, ...]
    words: dict[str, str]  # the legend's words as drawn
    pieces: tuple[Pieces, ...] = ()  # where the phase's pieces went: on the map, then (a board's) in its inset

    def png(self) -> bytes:
        """The PNG bytes; a board (palette image) is compressed by zlib's run-length strategy, which suits rows of
        flat colour: 12 % smaller than level 1 of the default strategy in the same time, and three times faster than
        the default level (bench/map_pictures.py). Every mail carries these bytes, so they are what a send costs."""
        buffer = io.BytesIO()
        if self.image.mode == "P":
            self.image.save(buffer, format="PNG", compress_level=1, compress_type=zlib.Z_RLE)
        else:
            self.image.save(buffer, format="PNG")
        return buffer.getvalue()


def power_colours(variant: Variant) -> dict[str, RGB]:
    """Each power's colour: the variant's own (``[colours]``), else the palette by the power's place among the map's
    powers (France is sky blue on every variant of the classic map) or, for a power of its own, the variant's list."""
    order = variant.colour_order or variant.powers
    place = {p: i for i, p in enumerate(order)}
    out: dict[str, RGB] = {}
    for i, p in enumerate(variant.powers):
        given = variant.colours.get(p)
        if given is not None:
            out[p] = (int(given[1:3], 16), int(given[3:5], 16), int(given[5:7], 16))
        else:
            out[p] = palette_colour(place.get(p, i))
    return out


def render_map(
    variant: Variant,
    position: Position,
    results: Iterable[Mapping[str, Any]] | None = None,
    *,
    title: str = "",
    language: str = "en",
    after: Position | None = None,
    words: Mapping[str, str] | None = None,
    seen: frozenset[int] | None = None,
) -> bytes:
    """The PNG picture of ``position``, with the orders of ``results`` (as the game server stores them: dicts with
    "power", "typed" (the order as JSON, judge.rules.order_json) and "outcome") drawn over it. With ``after`` (the
    position the phase led to) the picture is the results picture: the board after the phase (units, dislodged
    units, who holds what, the legend's centres) with the phase's orders drawn from where the units stood. ``words``
    overrides the legend's words (keys as in ``legend_words``). A variant with board geometry is drawn as a board (a
    palette PNG), any other as a diagram. The same input gives the same bytes. MapError when the variant has no
    coordinates. With ``seen`` (Fog of War: the provinces the reader sees on the board drawn), the units, the
    dislodged units and the centres' owners elsewhere are left out and the land there is drawn in the fog's grey; the
    legend's centre counts stay every power's (they are public)."""
    return draw_map(
        variant, position, results, title=title, language=language, after=after, words=words, seen=seen
    ).png()


def draw_map(
    variant: Variant,
    position: Position,
    results: Iterable[Mapping[str, Any]] | None = None,
    *,
    title: str = "",
    language: str = "en",
    after: Position | None = None,
    words: Mapping[str, str] | None = None,
    seen: frozenset[int] | None = None,
) -> MapDrawing:
    """The picture as a Pillow image together with its layout and legend (see ``render_map``)."""
    shown_words = legend_words(language)
    if words:  # the legend's words, and power names (keys as in the variant) as the caller spells them
        shown_words.update({k: str(v) for k, v in words.items() if k in shown_words or k in variant.powers})
    geo = variant.geo
    orders = [
        o
        for o in (
            drawn_order(geo, str(r.get("power", "")), r.get("typed"), r.get("outcome"))
            for r in (results or ())
            if isinstance(r, Mapping)
        )
        if o is not None
    ]
    shown = after if after is not None else position
    counted = shown  # the legend's centre counts: every power's, even in the fog
    if seen is not None:
        shown = fogged(shown, seen)
        position = shown if after is None else position
    heading = title or f"{variant.name} — {shown.phase.long_name}"
    if has_board(variant):
        return _draw_board(variant, position, shown, orders, heading, shown_words, after is not None, seen, counted)
    layout = map_layout(variant)
    canvas = _ScaledCanvas(layout.width, layout.height + _legend_height(variant))
    colours = power_colours(variant)
    played = after is not None
    pieces = place_pieces(geo, layout, position, shown, orders, colours, played)
    _draw_edges(canvas, geo, layout)
    _draw_provinces(canvas, geo, layout, shown.owners, colours)
    _draw_labels(canvas, geo, layout, pieces.labels, BACKGROUND)  # placed off the phase's lines where it can be
    _draw_units(canvas, layout, shown, colours, pieces.dislodged)
    _draw_orders(canvas, layout, pieces, orders, colours, played)
    _draw_labels(canvas, geo, layout, pieces.labels, None, pieces.crossed)  # letters over a line that crosses them
    legend = _draw_legend(canvas, variant, counted, layout, shown_words, colours, heading)
    image = canvas.image.reduce(SCALE)
    return MapDrawing(image, layout, legend, shown_words, (pieces,))


def _draw_board(
    variant: Variant,
    before: Position,
    shown: Position,
    orders: list[DrawnOrder],
    heading: str,
    words: Mapping[str, str],
    played: bool,
    seen: frozenset[int] | None = None,
    counted: Position | None = None,
) -> MapDrawing:
    """The board: areas tinted by who holds them, centres, units, orders, labels and the legend, in palette colours;
    with ``seen``, the land not seen in the fog's grey (``counted``: the board whose centres the legend counts)."""
    base = base_layer(variant)
    layout, geo = base.layout, variant.geo
    colours = power_colours(variant)
    palette = base.palette.copy()
    table = list(range(256))
    land = palette(LAND_AREA)
    for slot in range(base.slot0, 256):
        table[slot] = land
    for held, power in held_by(variant, shown).items():
        table[base.slot0 + held] = palette(tint(colours.get(power, UNKNOWN_POWER)))
    if seen is not None:
        fog = palette(FOG)
        for prov in geo.provinces:
            if prov.id not in seen and prov.terrain is not Terrain.SEA:
                table[base.slot0 + prov.id] = fog
    image = base.image.point(table)
    canvas = BoardCanvas(image, palette)
    inset = layout.inset
    panel = None if inset is None else image.crop((0, layout.inset_at, inset.width, layout.inset_at + inset.height))
    parts = [_draw_pieces(canvas, geo, layout, 0, base, before, shown, orders, colours, played, seen)]
    if inset is not None and panel is not None:  # the inset's region again, enlarged, drawn on its own panel
        on_panel = BoardCanvas(panel, palette)
        parts.append(
            _draw_pieces(on_panel, geo, inset, layout.inset_at, base, before, shown, orders, colours, played, seen)
        )
        ImageDraw.Draw(panel).rectangle((0, 0, panel.width - 1, panel.height - 1), outline=palette(OUTLINE))
        image.paste(panel, (0, layout.inset_at))
    legend = _kept_board_legend(canvas, variant, counted or shown, layout, words, colours, heading)
    image.putpalette(palette.flat())
    return MapDrawing(image, layout, legend, dict(words), tuple(parts))


def _draw_pieces(
    canvas: BoardCanvas,
    geo: Geography,
    layout: MapLayout,
    top: int,
    base: _Base,
    before: Position,
    shown: Position,
    orders: list[DrawnOrder],
    colours: Mapping[str, RGB],
    played: bool,
    seen: frozenset[int] | None = None,
) -> Pieces:
    """What changes from picture to picture on a part of the board (the map or its inset, from the picture's row
    ``top``): the centres' owners, the labels (moved off the phase's lines where they can be), the units and the
    orders. A line drawn over a label's halo, where no free place was found for the label, has the label's letters
    drawn over it again."""
    pieces = place_pieces(geo, layout, before, shown, orders, colours, played, top)
    for prov in geo.provinces:
        if prov.centre:
            owner = shown.owners.get(prov.id)
            fill = NEUTRAL if owner is None else colours.get(owner, UNKNOWN_POWER)
            if seen is not None and prov.id not in seen:
                fill = FOG_CENTRE
            canvas.circle(layout.centre_marker(prov.id), CENTRE - 0.5, fill, OUTLINE, 1.5)
    box = (0, top, layout.width, top + layout.height)
    labels, mask = base.label_part(box)
    if pieces.moved:
        labels, mask = labels.copy(), mask.copy()
        on_labels = BoardCanvas(labels, canvas.palette)
        for loc in sorted(pieces.moved):
            erase_label(mask, geo, layout, loc, layout.labels[loc])
        for loc in sorted(pieces.moved):
            draw_label(on_labels, mask, geo, layout, loc, pieces.labels[loc])
    canvas.image.paste(labels, (0, 0), mask)
    _draw_units(canvas, layout, shown, colours, pieces.dislodged)
    _draw_orders(canvas, layout, pieces, orders, colours, played)
    for loc in sorted(pieces.crossed):
        label_letters(canvas, geo, layout, loc, pieces.labels[loc])
    return pieces


class _Canvas(Protocol):
    """What the drawing functions draw on: the diagram's :class:`_ScaledCanvas` or the board's ``BoardCanvas``
    (coordinates in picture pixels, colours as RGB)."""

    image: Image.Image

    def line(self, points: Sequence[Point], fill: RGB, width: float) -> None: ...

    def circle(
        self, centre: Point, radius: float, fill: RGB | None, outline: RGB | None = None, width: float = 1.0
    ) -> None: ...

    def polygon(
        self, points: Sequence[Point], fill: RGB | None, outline: RGB | None = None, width: float = 1.0
    ) -> None: ...

    def text(
        self, at: Point, text: str, size: int, fill: RGB, halo: RGB | None = None, *, keep: bool = True
    ) -> None: ...

    def rectangle(self, box: Box, fill: RGB | None, outline: RGB | None = None, width: float = 1.0) -> None: ...


class _ScaledCanvas:
    """A Pillow drawing SCALE times larger than the picture; all coordinates given in picture pixels."""

    def __init__(self, width: int, height: int) -> None:
        self.image = Image.new("RGB", (width * SCALE, height * SCALE), BACKGROUND)
        self.draw = ImageDraw.Draw(self.image)

    @staticmethod
    def _s(points: Iterable[Point]) -> list[tuple[float, float]]:
        return [(x * SCALE, y * SCALE) for x, y in points]

    def line(self, points: Sequence[Point], fill: RGB, width: float) -> None:
        self.draw.line(self._s(points), fill=fill, width=max(1, round(width * SCALE)), joint="curve")

    def circle(
        self, centre: Point, radius: float, fill: RGB | None, outline: RGB | None = None, width: float = 1.0
    ) -> None:
        x, y = centre[0] * SCALE, centre[1] * SCALE
        r = radius * SCALE
        self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=outline, width=max(1, round(width * SCALE)))

    def polygon(
        self, points: Sequence[Point], fill: RGB | None, outline: RGB | None = None, width: float = 1.0
    ) -> None:
        self.draw.polygon(self._s(points), fill=fill, outline=outline, width=max(1, round(width * SCALE)))

    def text(self, at: Point, text: str, size: int, fill: RGB, halo: RGB | None = None, *, keep: bool = True) -> None:
        font, enlarge = _drawing_font(size)
        shown = drawable(text, size) if keep else spell_drawable(text, size)
        left, top, right, bottom = font.getbbox(shown)
        if enlarge == 1:
            self.draw.text(
                (at[0] * SCALE - left, at[1] * SCALE - top),
                shown,
                font=font,
                fill=fill,
                stroke_width=SCALE if halo else 0,
                stroke_fill=halo,
            )
            return
        mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
        ImageDraw.Draw(mask).text((-left, -top), shown, font=font, fill=255)
        mask = mask.resize((mask.width * enlarge, mask.height * enlarge), Image.Resampling.NEAREST)
        self.image.paste(fill, (round(at[0] * SCALE), round(at[1] * SCALE)), mask)

    def rectangle(self, box: Box, fill: RGB | None, outline: RGB | None = None, width: float = 1.0) -> None:
        self.draw.rectangle(
            tuple(v * SCALE for v in box),
            fill=fill,
            outline=outline,
            width=max(1, round(width * SCALE)),
        )


def _draw_edges(canvas: _Canvas, geo: Geography, layout: MapLayout) -> None:
    pts = layout.points

    def shore(a: int, b: int) -> bool:
        """Both armies and fleets cross between these provinces, and neither has split coasts (a fleet edge to a
        split coast is drawn to that coast's point)."""
        return (
            not geo.provinces[a].coasts
            and not geo.provinces[b].coasts
            and b in geo.army_adj[a]
            and b in geo.fleet_reach[a]
        )

    for a in range(len(geo.provinces)):
        for b in sorted(geo.army_adj[a]):
            if a < b:
                both = shore(a, b)
                for s, e in segments(layout, pts[a], pts[b]):
                    if both:  # a shore both kinds of unit can follow: brown beside blue
                        nx, ny = normal(s, e, 1.3)
                        canvas.line([(s[0] + nx, s[1] + ny), (e[0] + nx, e[1] + ny)], ARMY_EDGE, 1.6)
                        canvas.line([(s[0] - nx, s[1] - ny), (e[0] - nx, e[1] - ny)], FLEET_EDGE, 1.6)
                    else:
                        canvas.line([s, e], ARMY_EDGE, 1.8)
    for a in range(len(geo.loc_names)):
        for b in sorted(geo.fleet_adj[a]):
            if a < b and not shore(geo.loc_province[a], geo.loc_province[b]):
                for s, e in segments(layout, pts[a], pts[b]):
                    canvas.line([s, e], FLEET_EDGE, 1.8)
    for loc in range(len(geo.provinces), len(geo.loc_names)):  # a coast hangs on its province
        canvas.line([pts[geo.loc_province[loc]], pts[loc]], SEA_LINE, 1.2)


def _draw_provinces(
    canvas: _Canvas, geo: Geography, layout: MapLayout, owners: Mapping[int, str], colours: Mapping[str, RGB]
) -> None:
    for prov in geo.provinces:
        at = layout.points[prov.id]
        if prov.terrain is Terrain.SEA:
            canvas.circle(at, DISC, SEA_FILL, SEA_LINE, 1.2)
        else:
            canvas.circle(at, DISC, LAND_FILL, SEA_LINE if prov.terrain is Terrain.COAST else LAND_LINE, 1.2)
    for loc in range(len(geo.provinces), len(geo.loc_names)):
        canvas.circle(layout.points[loc], COAST_DOT, SEA_FILL, SEA_LINE, 1.2)
    for prov in geo.provinces:
        if prov.centre:
            owner = owners.get(prov.id)
            fill = NEUTRAL if owner is None else colours.get(owner, UNKNOWN_POWER)
            canvas.circle(layout.centre_marker(prov.id), CENTRE, fill, OUTLINE, 1.1)


def _draw_labels(
    canvas: _Canvas,
    geo: Geography,
    layout: MapLayout,
    at: Sequence[tuple[int, int]],
    halo: RGB | None,
    only: Iterable[int] | None = None,
) -> None:
    """The diagram's labels at ``at`` (provinces' on a ``halo``; with ``halo`` None, the letters alone), of the
    locations ``only`` names when given."""
    for loc in sorted(only) if only is not None else range(len(geo.loc_names)):
        name = geo.loc_names[loc]
        province = loc < len(geo.provinces)
        text = layout.label_text(loc, name if province else name.partition("/")[2])
        canvas.text(
            at[loc],
            text,
            LABEL_SIZE if province else COAST_LABEL_SIZE,
            LABEL_INK if province else SEA_LINE,
            halo if province else None,
        )


def _draw_unit(
    canvas: _Canvas, kind: UnitKind, at: Point, fill: RGB, outline: RGB = OUTLINE, width: float = 1.3
) -> None:
    x, y = at
    if kind is UnitKind.ARMY:
        canvas.circle(at, ARMY, fill, outline, width)
        return
    boat = [(-10.5, 1), (-1.5, 1), (-1.5, -10), (8, 1), (10.5, 1), (6.5, 7.5), (-6.5, 7.5)]  # hull and sail
    canvas.polygon([(x + dx, y + dy) for dx, dy in boat], fill, outline, width)


def _unit_colour(colours: Mapping[str, RGB], unit: Unit) -> RGB:
    return colours.get(unit.power, UNKNOWN_POWER)


def _draw_units(
    canvas: _Canvas,
    layout: MapLayout,
    position: Position,
    colours: Mapping[str, RGB],
    dislodged_at: Mapping[int, tuple[int, int]],
) -> None:
    """The units on their spots, and each dislodged unit outlined in red where ``dislodged_at`` placed it."""
    for prov in sorted(position.units):
        unit = position.units[prov]
        _draw_unit(canvas, unit.kind, layout.location_point(unit.loc), _unit_colour(colours, unit))
    for prov in sorted(position.dislodged):
        unit = position.dislodged[prov].unit
        spot = dislodged_at.get(prov, layout.location_point(unit.loc))
        _draw_unit(canvas, unit.kind, spot, _unit_colour(colours, unit), DISLODGED_LINE, 2.2)


def _draw_orders(
    canvas: _Canvas,
    layout: MapLayout,
    pieces: Pieces,
    orders: Sequence[DrawnOrder],
    colours: Mapping[str, RGB],
    played: bool = False,
) -> None:
    """The orders of the phase: the lines ``pieces`` placed (supports and convoys first, so that the moves they
    help are drawn over them), then holds, builds and disbands. ``played``: the units are drawn where the phase
    left them, so a build's plus goes beside the new unit rather than over it."""
    for line in pieces.lines:
        if line.kind == "support":
            _support(canvas, layout, line.start, line.end, line.colour, line.succeeded, line.to_unit)
        elif line.kind == "convoy":
            _convoy(canvas, layout, line.start, line.end, line.succeeded)
        else:
            _arrow(canvas, layout, line.start, line.end, line.colour, line.succeeded, line.start_gap)
    for o, at in zip(orders, pieces.at, strict=True):
        colour = colours.get(o.power, UNKNOWN_POWER)
        if o.kind == "hold":
            canvas.circle(at, ARMY + 5, None, OUTLINE, 3.4)
            canvas.circle(at, ARMY + 5, None, colour, 2.0)
        elif o.kind == "build":
            x, y = layout.location_point(o.loc)
            _plus(
                canvas,
                (x + 12, y - 12) if played else (x, y),
                colour if o.succeeded else UNKNOWN_POWER,
                6.0 if played else 9.0,
            )
        elif o.kind == "disband":
            _cross(canvas, at, (20, 20, 20), 8)


def _dashes(a: Point, b: Point, on: float, off: float) -> list[tuple[Point, Point]]:
    d = math.dist(a, b)
    if d == 0:
        return []
    ux, uy = (b[0] - a[0]) / d, (b[1] - a[1]) / d
    out, t = [], 0.0
    while t < d:
        u = min(t + on, d)
        out.append(((a[0] + ux * t, a[1] + uy * t), (a[0] + ux * u, a[1] + uy * u)))
        t = u + off
    return out


def _arrow(
    canvas: _Canvas, layout: MapLayout, a: Point, b: Point, fill: RGB, solid: bool, start_gap: float = MOVE_CUT[0]
) -> None:
    """An arrow from a unit at ``a`` (``start_gap`` pixels clear of it) to the spot ``b``, its tip short of it;
    a short arrow has a shorter head."""
    parts = segments(layout, a, b)
    for i, (s, e) in enumerate(parts):
        last = i == len(parts) - 1
        head = head_length(math.dist(s, e), start_gap if i == 0 else 0)
        cut = shorten(s, e, start_gap if i == 0 else 0, (MOVE_CUT[1] + head - 2) if last else 0)
        pieces = [] if cut is None else [cut] if solid else _dashes(*cut, 9, 5)
        for p, q in pieces:
            canvas.line([p, q], OUTLINE, 5.0)
        tip_cut = shorten(s, e, 0, MOVE_CUT[1]) if last else None
        if tip_cut is not None:
            tip = tip_cut[1]
            ux, uy = (e[0] - s[0]) / math.dist(s, e), (e[1] - s[1]) / math.dist(s, e)
            base = (tip[0] - ux * head, tip[1] - uy * head)
            shape = [tip, (base[0] - uy * 6.5, base[1] + ux * 6.5), (base[0] + uy * 6.5, base[1] - ux * 6.5)]
            canvas.polygon(shape, fill, OUTLINE, 1.3)
        for p, q in pieces:  # over the head's outline: shaft and head in one piece
            canvas.line([p, q], fill, 2.8)


def _support(canvas: _Canvas, layout: MapLayout, a: Point, b: Point, fill: RGB, ok: bool, to_unit: bool) -> None:
    for s, e in segments(layout, a, b):
        cut = shorten(s, e, SUPPORT_CUT[0], SUPPORT_CUT[1] if to_unit and e == b else 0)
        if cut is None:
            continue
        s2, e2 = cut
        d = math.dist(s2, e2)
        n = max(1, int(d // 6))
        for i in range(n + 1):
            p = (s2[0] + (e2[0] - s2[0]) * i / n, s2[1] + (e2[1] - s2[1]) * i / n)
            canvas.circle(p, 2.3, fill, OUTLINE, 0.8)
        if e == b or to_unit:
            canvas.circle(e2, 3.8, fill, OUTLINE, 1.0)
            if not ok:
                _cross(canvas, e2, FAILED_MARK, 5.5)


def _convoy(canvas: _Canvas, layout: MapLayout, a: Point, b: Point, ok: bool) -> None:
    for s, e in segments(layout, a, b):
        cut = shorten(s, e, CONVOY_CUT[0], CONVOY_CUT[1])
        if cut is None:
            continue
        for p, q in _dashes(*cut, 5, 4):
            canvas.line([p, q], CONVOY_INK, 2.2)
        if e == b:
            canvas.circle(cut[1], 3.5, CONVOY_INK, OUTLINE, 1.0)
            if not ok:
                _cross(canvas, cut[1], FAILED_MARK, 5.5)


def _plus(canvas: _Canvas, at: Point, fill: RGB, arm: float = 9.0) -> None:
    x, y = at
    w = arm / 3
    shape = [
        (x - w, y - arm),
        (x + w, y - arm),
        (x + w, y - w),
        (x + arm, y - w),
        (x + arm, y + w),
        (x + w, y + w),
        (x + w, y + arm),
        (x - w, y + arm),
        (x - w, y + w),
        (x - arm, y + w),
        (x - arm, y - w),
        (x - w, y - w),
    ]
    canvas.polygon(shape, fill, OUTLINE, 1.2)


def _cross(canvas: _Canvas, at: Point, fill: RGB, size: float) -> None:
    x, y = at
    for a, b in (((x - size, y - size), (x + size, y + size)), ((x - size, y + size), (x + size, y - size))):
        canvas.line([a, b], (255, 255, 255), size / 2 + 2.4)
        canvas.line([a, b], fill, size / 2)


def _powers_per_column(variant: Variant) -> int:
    """Rows of powers in the legend: three, more when the powers and the neutral centres need more columns."""
    return max(3, -(-(len(variant.powers) + 1) // LEGEND_COLUMNS))


def _legend_height(variant: Variant) -> int:
    return 44 + (max(4, _powers_per_column(variant) + 1)) * LEGEND_ROW + 14


def _draw_legend(
    canvas: _Canvas,
    variant: Variant,
    position: Position,
    layout: MapLayout,
    words: Mapping[str, str],
    colours: Mapping[str, RGB],
    title: str,
) -> tuple[LegendEntry, ...]:
    top = layout.height
    canvas.rectangle((0, top, layout.width - 1, top + _legend_height(variant) - 1), (255, 255, 255), (200, 195, 185), 1)
    canvas.text((16, top + 12), _cut(title, TITLE_SIZE, layout.width - 32, False), TITLE_SIZE, OUTLINE, keep=False)
    y0 = top + 44
    canvas.text((16, y0 + 2), words["centres"], LEGEND_SIZE, OUTLINE)
    entries: list[LegendEntry] = []
    rows: list[tuple[str | None, RGB, int]] = [(p, colours[p], position.centre_count(p)) for p in variant.powers]
    rows.append((None, NEUTRAL, len(variant.centres) - sum(1 for c in position.owners if c in variant.centres)))
    per_column = _powers_per_column(variant)
    column_width = 150
    for i, (power, colour, count) in enumerate(rows):
        x = 16 + (i // per_column) * column_width
        y = y0 + LEGEND_ROW * (1 + i % per_column)
        swatch = (x + 7, y + 8)
        canvas.circle(swatch, 6, colour, OUTLINE, 1.1)
        name = power if power is not None else words["neutral"]
        label = _fit(name, LEGEND_SIZE, column_width - 52)
        _legend_row(canvas, (x + 19, y + 2), x + column_width - 14, label, count, LEGEND_SIZE)
        entries.append(LegendEntry(power, f"{label}  {count}", colour, count, swatch))
    kx = layout.width - 650
    samples = [
        ("moved", "moved"),
        ("failed", "failed"),
        ("support", "support"),
        ("convoy", "convoy"),
        ("hold", "hold"),
        ("build", "build"),
        ("disband", "disband"),
        ("dislodged", "dislodged"),
        ("army", "army"),
        ("fleet", "fleet"),
        ("centre", "centre"),
    ]
    sample_colour = PALETTE[1]
    for i, (key, word) in enumerate(samples):
        x = kx + (i // 4) * 215
        y = y0 + LEGEND_ROW * (i % 4)
        _sample(canvas, layout, key, x, y, sample_colour)
        canvas.text((x + 62, y + 2), words[word], LEGEND_SIZE, OUTLINE)
    return tuple(entries)


SAMPLES = ("moved", "failed", "support", "convoy", "hold", "build", "disband", "dislodged", "army", "fleet", "centre")


def _sample(
    canvas: _Canvas,
    layout: MapLayout,
    key: str,
    x: float,
    y: float,
    sample_colour: RGB,
    land: RGB = LAND_FILL,
    length: float = 52,
    board: bool = False,
) -> None:
    """The legend's picture of ``key`` (a line style or shape), about ``length`` pixels wide from (x, y)."""
    mid = (x + 22 * length / 52, y + 9)
    if key in ("moved", "failed"):
        _arrow(canvas, layout, (x - ARMY, y + 9), (x + length + ARMY, y + 9), sample_colour, key == "moved")
    elif key == "support":
        _support(canvas, layout, (x - ARMY, y + 9), (x + length - 8, y + 9), sample_colour, True, False)
    elif key == "convoy":
        _convoy(canvas, layout, (x - ARMY, y + 9), (x + length - 8, y + 9), True)
    elif key == "hold":
        _draw_unit(canvas, UnitKind.ARMY, mid, sample_colour)
        ring = ARMY + (5 if length >= 52 else 2.5)
        canvas.circle(mid, ring, None, OUTLINE, 3.4)
        canvas.circle(mid, ring, None, sample_colour, 2.0)
    elif key == "build":
        _plus(canvas, mid, sample_colour)
    elif key == "disband":
        _draw_unit(canvas, UnitKind.ARMY, mid, sample_colour)
        _cross(canvas, mid, (20, 20, 20), 8)
    elif key == "dislodged":
        _draw_unit(canvas, UnitKind.ARMY, mid, sample_colour, DISLODGED_LINE, 2.2)
    elif key in ("army", "fleet"):
        _draw_unit(canvas, UnitKind.ARMY if key == "army" else UnitKind.FLEET, mid, sample_colour)
    elif board:  # the board's marker: in the middle of the sample
        canvas.circle(mid, CENTRE - 0.5, sample_colour, OUTLINE, 1.5)
    else:
        canvas.circle(mid, DISC, land, LAND_LINE, 1.2)
        canvas.circle((mid[0] + CENTRE_AT[0], mid[1] + CENTRE_AT[1]), CENTRE, sample_colour, OUTLINE, 1.1)


_LEGENDS: dict[tuple[Any, ...], tuple[Image.Image, tuple[RGB, ...], tuple[RGB, ...], tuple[LegendEntry, ...]]] = {}
_LEGENDS_KEPT = 32  # the legends of the last pictures drawn (a Fog of War phase draws 7 with the same legend)


def _kept_board_legend(
    canvas: BoardCanvas,
    variant: Variant,
    position: Position,
    layout: MapLayout,
    words: Mapping[str, str],
    colours: Mapping[str, RGB],
    title: str,
) -> tuple[LegendEntry, ...]:
    """The legend (``_draw_board_legend``), drawn once for the pictures that share it (the same title, words and
    centre counts: every power's picture of a Fog of War phase) and pasted into the others. The colours it uses are
    asked of the picture's palette in the order the drawing first asked for them, so a pasted legend gives the same
    palette, and the same bytes, as one drawn."""
    counts = tuple(position.centre_count(p) for p in variant.powers)
    neutral = len(variant.centres) - sum(1 for c in position.owners if c in variant.centres)
    key: tuple[Any, ...] = (variant.key, variant.board_file, layout.width, layout.bottom, title)
    key += (tuple(sorted(words.items())), counts, neutral, tuple(sorted(colours.items())))
    box = (0, layout.bottom, layout.width, layout.bottom + board_legend_height(variant))
    palette = canvas.palette
    kept = _LEGENDS.get(key)
    if kept is None:
        palette.asked = {}
        try:
            entries = _draw_board_legend(canvas, variant, position, layout, words, colours, title)
            asked = tuple(palette.asked)
        finally:
            palette.asked = None
        if len(_LEGENDS) >= _LEGENDS_KEPT:
            _LEGENDS.pop(next(iter(_LEGENDS)))
        _LEGENDS[key] = (canvas.image.crop(box), tuple(palette.colours), asked, entries)
        return entries
    pixels, then, asked, entries = kept
    for colour in asked:
        palette(colour)
    table = list(range(256))
    for _count, index in pixels.getcolors(256) or ():
        assert isinstance(index, int), "a legend is drawn in palette indices"
        table[index] = palette(then[index])
    canvas.image.paste(pixels.point(table), box[:2])
    return entries


def _draw_board_legend(
    canvas: BoardCanvas,
    variant: Variant,
    position: Position,
    layout: MapLayout,
    words: Mapping[str, str],
    colours: Mapping[str, RGB],
    title: str,
) -> tuple[LegendEntry, ...]:
    """Below the board: the title, each power's centres (with the neutral ones) and the line styles and shapes,
    in two columns of powers and three of samples, fitted to the picture's width."""
    top, width = layout.bottom, layout.width
    canvas.rectangle((0, top, width - 1, top + board_legend_height(variant) - 1), (255, 255, 255), (200, 195, 185), 1)
    canvas.text((10, top + 8), _cut(title, BOARD_TITLE_SIZE, width - 20, False), BOARD_TITLE_SIZE, OUTLINE, keep=False)
    y0 = top + 34
    rows: list[tuple[str | None, RGB, int]] = [(p, colours[p], position.centre_count(p)) for p in variant.powers]
    rows.append((None, NEUTRAL, len(variant.centres) - sum(1 for c in position.owners if c in variant.centres)))
    per_column = max(4, -(-len(rows) // 2))
    column_width = min(150, max(110, (width - 3 * 150) // 2))
    entries: list[LegendEntry] = []
    for i, (power, colour, count) in enumerate(rows):
        x = 10 + (i // per_column) * column_width
        y = y0 + BOARD_LEGEND_ROW * (i % per_column)
        swatch = (x + 7, y + 7)
        canvas.rectangle((x, y, x + 14, y + 14), tint(colour) if power is not None else LAND_AREA, OUTLINE, 1)
        canvas.circle(swatch, 4, colour, OUTLINE, 1)
        name = words.get(power, power) if power is not None else words["neutral"]  # a power's name as given
        label = _fit(name, BOARD_LEGEND_SIZE, column_width - 48)
        _legend_row(canvas, (x + 20, y + 1), x + column_width - 8, label, count, BOARD_LEGEND_SIZE)
        entries.append(LegendEntry(power, f"{label}  {count}", colour, count, swatch))
    kx = 10 + 2 * column_width
    sample_width = min(260, (width - kx - 6) // 3)
    length = 30 if sample_width < 200 else 52
    for i, key in enumerate(SAMPLES):
        x = kx + (i // 4) * sample_width + 10
        y = y0 + BOARD_LEGEND_ROW * (i % 4) - 1
        _sample(canvas, layout, key, x, y - 1, PALETTE[1], LAND_AREA, length, True)
        canvas.text(
            (x + length + 16, y + 1),
            _fit(words[key], BOARD_LEGEND_SIZE, sample_width - length - 20),
            BOARD_LEGEND_SIZE,
            OUTLINE,
        )
    return tuple(entries)


def _legend_row(canvas: _Canvas, at: tuple[float, float], right: float, label: str, count: int, size: int) -> None:
    """A power's row of the legend: its name at ``at`` and its centres right-aligned at ``right``, drawn apart. Each
    piece's letters are kept for the next picture; drawn as one text ("France  5"), every count of every power in
    every language was a picture of letters of its own, which filled the cache for hours (issue 27's soak)."""
    canvas.text(at, label, size, OUTLINE)
    number = str(count)
    canvas.text((right - _text_size(number, size)[0], at[1]), number, size, OUTLINE)


@lru_cache(maxsize=1024)
def _fit(text: str, size: int, width: float) -> str:
    """``text`` cut short (with "...") to fit ``width`` pixels (kept: the words every picture draws)."""
    return _cut(text, size, width, True)


def _cut(text: str, size: int, width: float, keep: bool) -> str:
    """``text`` cut short (with "...") to fit ``width`` pixels; ``keep``: its spelling is kept (see ``drawable``)."""
    shown = drawable(text, size) if keep else spell_drawable(text, size)
    if _text_size(shown, size)[0] <= width:
        return shown
    while shown and _text_size(shown + "...", size)[0] > width:
        shown = shown[:-1]
    return shown + "..."
