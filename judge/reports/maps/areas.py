"""Drawing the board: provinces as areas tinted by who holds them, units, orders, labels and the legend, as a
palette image that makes a small PNG, fast enough for every results mail of a deadline wave.

The picture is an image of palette indices from the start. What does not change from phase to phase is drawn once
per variant and width and kept (``_base``): the areas (each land province filled with its own *slot* index), the
off-board land, the borders and the labels. A picture then maps the slots to the colours of the powers that hold the
provinces (one table lookup over the image), draws the centres, units and orders over it, pastes the labels and
adds the legend. Text is drawn with the shipped DejaVu font; its anti-aliased edges become a few shades between
the text's colour and the white halo behind it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from judge.reports.maps.fonts import _font, drawable, spell_drawable
from judge.reports.maps.geometry import BoardGeometry, board_geometry
from judge.reports.maps.layout import Box, MapLayout, board_layout
from judge.reports.maps.style import (
    BOARD_LEGEND_ROW,
    HUB_DOT,
    HUB_INSIDE,
    HUB_LINE,
    HUB_LINE_WIDTH,
    LABEL_INK,
    LAND_AREA,
    LAND_BORDER,
    NEUTRAL,
    OFF_BOARD,
    OUTLINE,
    RGB,
    SEA_AREA,
    SEA_BORDER,
    SEA_LABEL,
    TINT,
    Point,
)
from judge.rules.board import Position
from judge.rules.geography import Geography, Terrain
from judge.rules.variant import Variant

WHITE: RGB = (255, 255, 255)
SHADES = 4  # shades of anti-aliased text between its colour and the white behind it


class _Palette:
    """Palette indices handed out colour by colour, in the order first asked for (the same drawing, the same
    palette). ``limit`` is the first index kept for the province slots."""

    def __init__(self, colours: Sequence[RGB] = (), limit: int = 256) -> None:
        self.colours: list[RGB] = list(colours)
        self.index: dict[RGB, int] = {c: i for i, c in enumerate(self.colours)}
        self.limit = limit
        self.asked: dict[RGB, None] | None = None  # while set: every colour asked for, in the order first asked

    def __call__(self, colour: RGB) -> int:
        if self.asked is not None:
            self.asked.setdefault(colour, None)
        found = self.index.get(colour)
        if found is None:
            if len(self.colours) >= self.limit:
                return self.index[
                    min(self.index, key=lambda c: sum((a - b) ** 2 for a, b in zip(c, colour, strict=True)))
                ]
            found = self.index[colour] = len(self.colours)
            self.colours.append(colour)
        return found

    def copy(self) -> _Palette:
        return _Palette(self.colours, self.limit)

    def flat(self) -> list[int]:
        return [v for c in self.colours for v in c]


@lru_cache(maxsize=4096)
def _mix(colour: RGB, behind: RGB, share: float) -> RGB:
    red, green, blue = (round(c * share + b * (1 - share)) for c, b in zip(colour, behind, strict=True))
    return (red, green, blue)


def tint(colour: RGB) -> RGB:
    """The colour of a province held by the power of ``colour``."""
    return _mix(colour, WHITE, TINT)


def _letters(text: str, size: int, halo: bool) -> tuple[Image.Image, Image.Image, tuple[int, int]]:
    """``text`` drawn white on black at ``size`` (its coverage), the mask of what it covers (with a halo round it
    when ``halo``), and the offset of the top left of the letters in those images."""
    font = _font(size)
    enlarge = 1
    if not isinstance(font, ImageFont.FreeTypeFont):  # a bitmap font (no FreeType): one size only, enlarged
        enlarge = max(1, round(size / 11))
    pad = 2 if halo else 0
    left, top, right, bottom = font.getbbox(text)
    w, h = max(1, right - left + 2 * pad), max(1, bottom - top + 2 * pad)
    cover = Image.new("L", (w, h), 0)
    ImageDraw.Draw(cover).text((pad - left, pad - top), text, font=font, fill=255)
    if halo:
        ring = Image.new("L", (w, h), 0)
        ImageDraw.Draw(ring).text((pad - left, pad - top), text, font=font, fill=255, stroke_width=pad, stroke_fill=255)
        mask = ring.point(lambda v: 255 if v >= 60 else 0)
    else:
        mask = cover.point(lambda v: 255 if v > 0 else 0)
    if enlarge != 1:
        cover = cover.resize((w * enlarge, h * enlarge), Image.Resampling.NEAREST)
        mask = mask.resize((w * enlarge, h * enlarge), Image.Resampling.NEAREST)
    return cover, mask, (pad, pad)


# Kept for the next picture: the letters of the words every picture of a variant draws (labels, legend words, power
# names with their centre counts), which do not grow with games or phases. The title, which names the game and the
# phase, is drawn once and never kept (BoardCanvas.text, ``keep``): kept, every phase of every game in every language
# added some 12 KB of pictures until the bound (issue 27: the daemon's memory grew 19 MB an hour).
_glyphs = lru_cache(maxsize=2048)(_letters)


def _solid_pixels(cover: Image.Image) -> Image.Image:
    """The pixels of letters of coverage ``cover`` without shades."""
    return cover.point(lambda v: 255 if v >= 110 else 0)


@lru_cache(maxsize=512)
def _solid(text: str, size: int) -> Image.Image:
    """The pixels of ``text`` drawn without shades (kept: see ``_glyphs``)."""
    return _solid_pixels(_glyphs(text, size, False)[0])


class BoardCanvas:
    """Drawing on an image of palette indices ("L"), colours given as RGB; the same methods as the diagram's canvas
    (coordinates in picture pixels)."""

    def __init__(self, image: Image.Image, palette: _Palette) -> None:
        self.image = image
        self.palette = palette
        self.draw = ImageDraw.Draw(image)

    def line(self, points: Sequence[Point], fill: RGB, width: float) -> None:
        self.draw.line([(x, y) for x, y in points], fill=self.palette(fill), width=max(1, round(width)), joint="curve")

    def circle(
        self, centre: Point, radius: float, fill: RGB | None, outline: RGB | None = None, width: float = 1.0
    ) -> None:
        x, y = centre
        self.draw.ellipse(
            (x - radius, y - radius, x + radius, y + radius),
            fill=None if fill is None else self.palette(fill),
            outline=None if outline is None else self.palette(outline),
            width=max(1, round(width)),
        )

    def polygon(
        self, points: Sequence[Point], fill: RGB | None, outline: RGB | None = None, width: float = 1.0
    ) -> None:
        self.draw.polygon(
            [(x, y) for x, y in points],
            fill=None if fill is None else self.palette(fill),
            outline=None if outline is None else self.palette(outline),
            width=max(1, round(width)),
        )

    def rectangle(self, box: Box, fill: RGB | None, outline: RGB | None = None, width: float = 1.0) -> None:
        self.draw.rectangle(
            box,
            fill=None if fill is None else self.palette(fill),
            outline=None if outline is None else self.palette(outline),
            width=max(1, round(width)),
        )

    def text(
        self,
        at: Point,
        text: str,
        size: int,
        fill: RGB,
        halo: RGB | None = None,
        on: RGB | None = WHITE,
        *,
        keep: bool = True,
    ) -> None:
        """``text`` with its top left at ``at``: on a halo of ``halo``, else anti-aliased against ``on`` (the
        colour behind it), else in plain pixels. ``keep``: its letters are kept for the next picture (the words
        every picture draws); a text of this picture alone (the title) passes False."""
        shown = drawable(text, size) if keep else spell_drawable(text, size)
        if not shown.strip():
            return
        if not keep:
            cover, mask, (px, py) = _letters(shown, size, halo is not None)
        else:
            cover, mask, (px, py) = _glyphs(shown, size, halo is not None)
        behind = halo if halo is not None else on
        if behind is None:
            solid = _solid(shown, size) if keep else _solid_pixels(cover)
            self.image.paste(self.palette(fill), (round(at[0]) - px, round(at[1]) - py), solid)
            return
        # the shades' palette indices differ from picture to picture (handed out in the order first asked for): the
        # letters' shade levels are kept, each picture maps them to its own indices
        shades = [self.palette(_mix(fill, behind, k / SHADES)) for k in range(SHADES + 1)]
        levels = _levels(shown, size, halo is not None) if keep else _shade_levels(cover)
        pixels = levels.point(shades + [0] * (256 - len(shades)))
        self.image.paste(pixels, (round(at[0]) - px, round(at[1]) - py), mask)


def _shade_levels(cover: Image.Image) -> Image.Image:
    """The letters of coverage ``cover`` (0..255) as shade levels (0..SHADES)."""
    return cover.point([min(SHADES, (v * SHADES + 127) // 255) for v in range(256)])


@lru_cache(maxsize=2048)
def _levels(text: str, size: int, halo: bool) -> Image.Image:
    """The shade levels of ``text`` (kept: see ``_glyphs``)."""
    return _shade_levels(_glyphs(text, size, halo)[0])


@dataclass(frozen=True)
class _Base:
    image: Image.Image  # the map (fixed colours and province slots) and the legend's white place below it
    labels: Image.Image  # the labels' pixels ...
    label_mask: Image.Image  # ... and where they are
    palette: _Palette
    slot0: int  # land province p is filled with index slot0 + p
    layout: MapLayout
    parts: dict[tuple[int, int, int, int], tuple[Image.Image, Image.Image]] = field(default_factory=dict)

    def label_part(self, box: tuple[int, int, int, int]) -> tuple[Image.Image, Image.Image]:
        """The labels and their mask on the part ``box`` of the picture (the map, or its inset's panel), cut once per
        part: a picture that moves no label pastes them as they are (one that moves some changes a copy)."""
        found = self.parts.get(box)
        if found is None:
            found = self.parts[box] = (self.labels.crop(box), self.label_mask.crop(box))
        return found


def has_board(variant: Variant) -> bool:
    return board_geometry(variant) is not None


def base_layer(variant: Variant) -> _Base:
    """The parts of the picture that stay the same from phase to phase, drawn once per variant (kept)."""
    geometry = board_geometry(variant)
    if geometry is None:
        raise ValueError(f"variant {variant.key} has no board geometry")
    key = (variant.key, tuple(p.abbr for p in variant.geo.provinces), id(geometry))  # a variant reloaded from
    found = _BASES.get(key)  # its file finds its base again
    if found is None:
        if len(_BASES) >= 16:
            _BASES.pop(next(iter(_BASES)))
        found = _BASES[key] = _base(variant, geometry)
    return found


_BASES: dict[tuple[str, tuple[str, ...], int], _Base] = {}


def _rings(layout: MapLayout, area: Iterable[tuple[tuple[tuple[float, float], ...], ...]]) -> list[list[list[Point]]]:
    """Polygons (outer ring, then holes) in degrees, as points on the picture."""
    return [[[layout.project_unwrapped(x, y) for x, y in ring] for ring in poly] for poly in area]


def _fill(draw: ImageDraw.ImageDraw, polys: list[list[list[Point]]], index: int, hole_index: int) -> None:
    for outer, *holes in polys:
        draw.polygon(outer, fill=index)
        for hole in holes:
            draw.polygon(hole, fill=hole_index)


def _outline(draw: ImageDraw.ImageDraw, polys: list[list[list[Point]]], index: int) -> None:
    for poly in polys:
        for ring in poly:
            draw.line(ring + ring[:1], fill=index, width=1)


def _base(variant: Variant, geometry: BoardGeometry) -> _Base:
    geo = variant.geo
    layout = board_layout(variant, geometry)
    slot0 = 256 - len(geo.provinces)
    palette = _Palette(limit=slot0)
    for colour in (WHITE, SEA_AREA, SEA_BORDER, LAND_AREA, LAND_BORDER, OFF_BOARD, OUTLINE, NEUTRAL):
        palette(colour)
    image = Image.new("L", (layout.width, layout.bottom + board_legend_height(variant)), palette(WHITE))
    labels = Image.new("L", image.size, 0)
    mask = Image.new("L", image.size, 0)
    parts = [(layout, 0)] + ([(layout.inset, layout.inset_at)] if layout.inset is not None else [])
    for part, top in parts:
        area = _areas(variant, geometry, part, palette, slot0)
        if part is layout.inset:  # the panel's frame
            ImageDraw.Draw(area).rectangle((0, 0, part.width - 1, part.height - 1), outline=palette(OUTLINE), width=1)
        image.paste(area, (0, top))
        _labels(variant, part, palette, labels, mask, top)
    if layout.inset is not None and geometry.inset is not None:  # where the inset's region lies on the map
        lon0, lat0, lon1, lat1 = geometry.inset
        x0, y0 = layout.project_unwrapped(lon0, lat1)
        x1, y1 = layout.project_unwrapped(lon1, lat0)
        ImageDraw.Draw(image).rectangle((x0, y0, x1, y1), outline=palette(OUTLINE), width=1)
    return _Base(image, labels, mask, palette, slot0, layout)


def _areas(variant: Variant, geometry: BoardGeometry, layout: MapLayout, palette: _Palette, slot0: int) -> Image.Image:
    """The areas and borders of ``layout``'s part of the board (the map or its inset), land provinces in their
    slots."""
    geo = variant.geo
    sea = palette(SEA_AREA)
    image = Image.new("L", (layout.width, layout.height), sea)
    draw = ImageDraw.Draw(image)
    projected = [_rings(layout, area) for area in geometry.areas]
    off = _rings(layout, geometry.off_board)
    _fill(draw, off, palette(OFF_BOARD), sea)
    for prov in geo.provinces:
        if prov.terrain is not Terrain.SEA:
            _fill(draw, projected[prov.id], slot0 + prov.id, sea)
    for prov in geo.provinces:
        if prov.terrain is Terrain.SEA:
            _outline(draw, projected[prov.id], palette(SEA_BORDER))
    _outline(draw, off, palette(LAND_BORDER))
    for prov in geo.provinces:
        if prov.terrain is not Terrain.SEA:
            _outline(draw, projected[prov.id], palette(LAND_BORDER))
    if geometry.hub is not None:
        _hub(draw, geometry, layout, palette)
    return image


def _hub(draw: ImageDraw.ImageDraw, geometry: BoardGeometry, layout: MapLayout, palette: _Palette) -> None:
    """The lines across the hub (Pure): each pair of neighbours that shares no border is joined by a line from the
    place where one touches the hub to the place where the other does, with a dot at each place."""
    assert geometry.hub is not None
    lat, lon, radius = geometry.hub
    cx, cy = layout.project_unwrapped(lon, lat)
    reach = radius * layout.px_per_lat - HUB_INSIDE

    def rim(prov: int) -> Point:
        ux, uy = layout.project_unwrapped(geometry.units[prov][1], geometry.units[prov][0])
        d = math.hypot(ux - cx, uy - cy) or 1.0
        return (cx + (ux - cx) / d * reach, cy + (uy - cy) / d * reach)

    ink = palette(HUB_LINE)
    whole = radius * layout.px_per_lat
    draw.ellipse((cx - whole, cy - whole, cx + whole, cy + whole), fill=palette(OFF_BOARD), outline=ink)
    for a, b in geometry.links:
        draw.line([rim(a), rim(b)], fill=ink, width=HUB_LINE_WIDTH)
    for prov in sorted({p for link in geometry.links for p in link}):
        x, y = rim(prov)
        draw.ellipse((x - HUB_DOT, y - HUB_DOT, x + HUB_DOT, y + HUB_DOT), fill=ink)


def _labels(
    variant: Variant, layout: MapLayout, palette: _Palette, labels: Image.Image, mask: Image.Image, top: int
) -> None:
    """The labels of ``layout``'s part of the board, drawn into ``labels`` and ``mask`` from row ``top``."""
    canvas = BoardCanvas(labels, palette)
    for loc in range(len(variant.geo.loc_names)):
        if loc not in layout.hidden:
            x, y = layout.labels[loc]
            draw_label(canvas, mask, variant.geo, layout, loc, (x, y + top))


def label_look(geo: Geography, layout: MapLayout, loc: int) -> tuple[str, int, RGB]:
    """A label's text, font size and colour (seas and coasts dark blue, land dark grey)."""
    province = loc < len(geo.provinces)
    is_sea = province and geo.provinces[loc].terrain is Terrain.SEA
    text = layout.label_text(loc, geo.loc_names[loc])
    size = layout.label_size if province else layout.coast_label_size
    return text, size, SEA_LABEL if is_sea or not province else LABEL_INK


def draw_label(
    canvas: BoardCanvas, mask: Image.Image, geo: Geography, layout: MapLayout, loc: int, at: tuple[int, int]
) -> None:
    """A label on its white halo, its letters' top left at ``at``; ``mask`` marks the pixels it covers."""
    text, size, ink = label_look(geo, layout, loc)
    _cover, halo, (px, py) = _glyphs(drawable(text, size), size, True)
    canvas.text(at, text, size, ink, WHITE)
    mask.paste(255, (at[0] - px, at[1] - py), halo)


def erase_label(mask: Image.Image, geo: Geography, layout: MapLayout, loc: int, at: tuple[int, int]) -> None:
    """Take a label drawn at ``at`` off ``mask``."""
    text, size, _ink = label_look(geo, layout, loc)
    _cover, halo, (px, py) = _glyphs(drawable(text, size), size, True)
    mask.paste(0, (at[0] - px, at[1] - py), halo)


def label_letters(canvas: BoardCanvas, geo: Geography, layout: MapLayout, loc: int, at: tuple[int, int]) -> None:
    """A label's letters alone, in plain pixels (over a line that crosses it)."""
    text, size, ink = label_look(geo, layout, loc)
    canvas.text(at, text, size, ink, None, None)


def held_by(variant: Variant, position: Position) -> dict[int, str]:
    """Who holds each land province: a supply centre's owner; for any other land province, the power whose unit
    stands there."""
    out: dict[int, str] = {}
    for prov in variant.geo.provinces:
        if prov.terrain is Terrain.SEA:
            continue
        if prov.centre:
            owner = position.owners.get(prov.id)
        else:
            unit = position.units.get(prov.id)
            owner = unit.power if unit is not None else None
        if owner is not None:
            out[prov.id] = owner
    return out


def board_legend_height(variant: Variant) -> int:
    return 36 + max(4, _powers_per_column(variant)) * BOARD_LEGEND_ROW + 10


def _powers_per_column(variant: Variant) -> int:
    return max(4, -(-(len(variant.powers) + 1) // 2))
