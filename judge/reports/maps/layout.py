"""Where things go: provinces projected from their coordinates, labels placed apart."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial

from PIL import Image, ImageDraw

from judge.reports.maps.fonts import _drawing_font, _font
from judge.reports.maps.geometry import BoardGeometry
from judge.reports.maps.style import (
    ARMY,
    CENTRE,
    CENTRE_AT,
    COAST_LABEL_SIZE,
    DISC,
    INSET_EDGE,
    INSET_GAP,
    LABEL_SIZE,
    MARGIN,
    MAX_MAP_HEIGHT,
    SCALE,
    WIDTH,
    MapError,
    Point,
)
from judge.rules.geography import Geography
from judge.rules.variant import Variant

UNIT_WEIGHT = 6.0  # what covering a pixel of a unit's spot costs (of a label's own province too: it is drawn over it)
MARKER_WEIGHT = 4.0  # of a centre's marker

# --- where things go -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MapLayout:
    """Where a variant's provinces are drawn: the projection and the pixel of every location and label.

    Pixels are those of the final picture, (0, 0) top left. The map takes the top ``height`` rows; the legend is
    below it. Longitudes run from ``left_lon`` eastwards round the globe, so a map that spans the world (Cold War)
    has its seam where the provinces leave the widest gap, and lines across the seam leave one side and come back
    on the other.
    """

    width: int
    height: int
    left_x: float  # the pixel column of left_lon (the margin, more when a tall map is drawn narrower)
    left_lon: float
    top_lat: float
    px_per_lon: float
    px_per_lat: float
    points: tuple[tuple[int, int], ...]  # location id -> pixel
    labels: tuple[tuple[int, int], ...]  # location id -> top left of its label
    top_y: float = MARGIN  # the pixel row of top_lat
    label_texts: tuple[str, ...] = ()  # location id -> its label as drawn (the abbreviation when empty)
    centres: tuple[tuple[int, int], ...] = ()  # province id -> its centre marker (a board's: inside the province)
    hidden: frozenset[int] = frozenset()  # locations not labelled here (labelled in the inset, or outside it)
    label_size: int = LABEL_SIZE  # of the provinces' labels
    coast_label_size: int = COAST_LABEL_SIZE
    inset: MapLayout | None = None  # a region enlarged in a panel below the map, with its own pixels
    inset_at: int = 0  # the picture's row where the inset's panel begins
    # on a board: whether a pixel (x, y) lies inside a province, ``province_at(province, x, y)``
    province_at: Callable[[int, float, float], bool] | None = field(default=None, compare=False, repr=False)

    @property
    def bottom(self) -> int:
        """The first row below the map and its inset: where the legend begins."""
        return self.inset_at + self.inset.height if self.inset is not None else self.height

    @property
    def world_width(self) -> float:
        """Pixels for 360 degrees of longitude."""
        return 360.0 * self.px_per_lon

    def project(self, lat: float, lon: float) -> tuple[float, float]:
        return (
            self.left_x + ((lon - self.left_lon) % 360.0) * self.px_per_lon,
            self.top_y + (self.top_lat - lat) * self.px_per_lat,
        )

    def project_unwrapped(self, lon: float, lat: float) -> tuple[float, float]:
        """The pixel of a point of a board's geometry, (lon, lat) with lon unwrapped from the left edge."""
        return (
            self.left_x + (lon - self.left_lon) * self.px_per_lon,
            self.top_y + (self.top_lat - lat) * self.px_per_lat,
        )

    def label_text(self, loc: int, name: str) -> str:
        return self.label_texts[loc] if self.label_texts else name

    def location_point(self, loc: int) -> tuple[int, int]:
        """The pixel where a unit at this location (province or coast id) is drawn."""
        return self.points[loc]

    def centre_marker(self, province: int) -> tuple[int, int]:
        """The middle pixel of a supply centre's marker (filled in the owner's colour)."""
        if self.centres:
            return self.centres[province]
        x, y = self.points[province]
        return (x + CENTRE_AT[0], y + CENTRE_AT[1])


def map_layout(variant: Variant) -> MapLayout:
    """Project the variant's coordinates to pixels and place the labels; MapError when it has no coordinates."""
    geo = variant.geo
    missing = [p.abbr for p in geo.provinces if p.at is None]
    if missing:
        shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        raise MapError(
            f"cannot draw a map of {variant.name}: its variant file gives no coordinates (at = [lat, lon]) for {shown}"
        )
    places = _geo_points(geo)
    left, span, top, bottom = span_of(places)
    squeeze = max(math.cos(math.radians((top + bottom) / 2)), 0.1)
    per_lat = (WIDTH - 2 * MARGIN) / (span * squeeze)
    if (top - bottom) * per_lat > MAX_MAP_HEIGHT - 2 * MARGIN:
        per_lat = (MAX_MAP_HEIGHT - 2 * MARGIN) / (top - bottom)
    per_lon = per_lat * squeeze
    height = round(2 * MARGIN + (top - bottom) * per_lat)
    left_x = (WIDTH - span * per_lon) / 2
    partial = MapLayout(WIDTH, height, left_x, left, top, per_lon, per_lat, (), ())
    points = tuple((round(x), round(y)) for x, y in (partial.project(lat, lon) for lat, lon in places))
    with_points = MapLayout(WIDTH, height, left_x, left, top, per_lon, per_lat, points, ())
    return MapLayout(WIDTH, height, left_x, left, top, per_lon, per_lat, points, _place_labels(geo, with_points))


def span_of(places: list[Point]) -> tuple[float, float, float, float]:
    """(left longitude, span of longitude, top latitude, bottom latitude) of (lat, lon) places: the left edge is at
    the widest gap of longitude between them, so that a map round the world has its seam in an empty ocean."""
    lats = [lat for lat, _ in places]
    lons = sorted({lon % 360.0 for _, lon in places})
    gaps = [((lons[(i + 1) % len(lons)] - lons[i]) % 360.0 or 360.0, i) for i in range(len(lons))]
    widest, at = max(gaps, key=lambda g: (g[0], -g[1]))
    left = lons[(at + 1) % len(lons)]
    left = left - 360.0 if left > 180.0 else left
    return left, max(360.0 - widest, 1.0), max(lats), min(lats)


def _geo_points(geo: Geography) -> list[Point]:
    """(lat, lon) of every location; a coast without its own point sits just off its province's point."""
    out: list[Point] = []
    for loc, name in enumerate(geo.loc_names):
        prov = geo.province_of(loc)
        assert prov.at is not None
        if loc == prov.id:
            out.append(prov.at)
            continue
        coast = name.partition("/")[2]
        if coast in prov.coast_at:
            out.append(prov.coast_at[coast])
        else:
            dlat, dlon = {"nc": (0.6, 0.0), "sc": (-0.6, 0.0), "ec": (0.0, 0.8), "wc": (0.0, -0.8)}.get(coast, (0, 0))
            out.append((prov.at[0] + dlat, prov.at[1] + dlon))
    return out


Box = tuple[float, float, float, float]
Scored = tuple[float, float, float, float]  # a label's top left, what it covers, how far it is from its spot


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _text_size(text: str, size: int) -> tuple[float, float]:
    font, enlarge = _drawing_font(size)
    left, top, right, bottom = font.getbbox(text)
    return ((right - left) * enlarge / SCALE, (bottom - top) * enlarge / SCALE)


def fixed_boxes(geo: Geography, layout: MapLayout, disc: float) -> list[tuple[Box, float]]:
    """What a label should not cover, and what covering a pixel of each costs: every province's unit spot (a box
    ``disc`` from the point each way), every centre's marker and every coast's spot."""
    fixed: list[tuple[Box, float]] = []
    for prov in geo.provinces:
        x, y = layout.points[prov.id]
        fixed.append(((x - disc, y - disc, x + disc, y + disc), UNIT_WEIGHT))
        if prov.centre:
            cx, cy = layout.centre_marker(prov.id)
            fixed.append(((cx - CENTRE, cy - CENTRE, cx + CENTRE, cy + CENTRE), MARKER_WEIGHT))
    for loc in range(len(geo.provinces), len(geo.loc_names)):
        x, y = layout.points[loc]
        fixed.append(((x - ARMY - 1, y - ARMY - 1, x + ARMY + 1, y + ARMY + 1), UNIT_WEIGHT))
    return fixed


def label_spec(
    geo: Geography,
    layout: MapLayout,
    loc: int,
    board: bool,
    label_size: int | None = None,
    coast_size: int | None = None,
    disc: float | None = None,
) -> tuple[str, int, tuple[float, float], float]:
    """A location's label: its text, font size, the size of its letters as drawn, and the radius of its spot the
    label keeps clear of (sizes and ``disc`` as the layout's when not given)."""
    province = loc < len(geo.provinces)
    name = geo.loc_names[loc]
    text = layout.label_text(loc, name if province else name.partition("/")[2])
    if province:
        size = layout.label_size if label_size is None else label_size
    else:
        size = layout.coast_label_size if coast_size is None else coast_size
    disc = (ARMY + 1 if board else DISC) if disc is None else disc
    return text, size, _label_size(text, size, board), disc + 1 if province else ARMY + 1


def _place_labels(
    geo: Geography,
    layout: MapLayout,
    label_size: int = LABEL_SIZE,
    coast_size: int = COAST_LABEL_SIZE,
    disc: float = DISC,
    inside: Callable[[int, float, float], bool] | None = None,
    hidden: frozenset[int] = frozenset(),
) -> tuple[tuple[int, int], ...]:
    """Put each label near its unit's spot where it covers the fewest discs, markers and other labels (and, on a
    board, inside its own province: ``inside(province, x, y)``): first the eight places round the spot, then the
    same places further out and, on a board, other places inside the province. Placed in two rounds, the second
    moving a label once all the others are known. ``hidden`` locations get no label (their place is (0, 0))."""
    fixed = fixed_boxes(geo, layout, disc)
    frame = (layout.width, layout.height)
    shown = [loc for loc in range(len(geo.loc_names)) if loc not in hidden]
    options: dict[int, tuple[tuple[float, float], list[Scored], Box]] = {}
    more: dict[int, Callable[[], list[Scored]]] = {}
    for loc in shown:
        province = loc < len(geo.provinces)
        _text, _size, (w, h), r = label_spec(geo, layout, loc, inside is not None, label_size, coast_size, disc)
        x, y = layout.points[loc]
        reach = r + 1.5 * w + 2 * h + 12  # as far as a candidate goes
        near = [
            (t, k) for t, k in fixed if t[0] < x + reach and t[2] > x - reach and t[1] < y + reach and t[3] > y - reach
        ]
        own = partial(inside, loc) if inside is not None and province else None
        ring, further = _candidates(x, y, w, h, r, province, inside is not None)
        scored = [(cx, cy, _label_cost((cx, cy), (w, h), near, frame, own), extra) for cx, cy, extra in ring]
        scored.sort(key=lambda c: (c[2] > 0.5, c[2] + c[3]))
        options[loc] = ((w, h), scored, (x - reach, y - reach, x + reach, y + reach))
        more[loc] = partial(_scored, further, (w, h), near, frame, own, scored)
    placed: dict[int, Box] = {}
    for _round in range(2):
        for loc in shown:
            (w, h), scored, around = options[loc]
            placed.pop(loc, None)
            others = [b for b in placed.values() if _overlap(b, around) > 0]
            bx, by, _cost, _extra = choose_place(scored, more[loc], (w, h), others)
            placed[loc] = (bx, by, bx + w, by + h)
    return tuple(
        (round(placed[loc][0]), round(placed[loc][1])) if loc in placed else (0, 0) for loc in range(len(geo.loc_names))
    )


def choose_place(
    scored: list[Scored], more: Callable[[], list[Scored]], size: tuple[float, float], others: list[Box]
) -> Scored:
    """The place for a thing of ``size`` (a label, a dislodged unit): the first of the ``scored`` candidates (in
    order of cost) that covers none of ``others`` (placed labels); when none is free, the further candidates
    ``more()`` gives; else the least covered of them."""
    best = _first_free(scored, size, others)
    if best is None:  # nowhere free round the spot: further places, scored once when first needed
        scored = more()
        best = _first_free(scored, size, others)
    if best is None:
        best = min(_with_labels(c, size, others, i) for i, c in enumerate(scored))
    return scored[best[2]]


def place_near(
    x: float,
    y: float,
    size: tuple[float, float],
    r: float,
    near: list[tuple[Box, float]],
    others: list[Box],
    frame: tuple[int, int],
    inside: Callable[[float, float], bool] | None,
    beside: bool = False,
    covers: Callable[[Box], float] | None = None,
    further: bool = True,
) -> Scored:
    """The top left corner (and its cost) for a thing of ``size`` near the spot (x, y) of radius ``r``, chosen as a
    label is (``_place_labels``): round the spot, then further out, covering as little of ``near`` (boxes and what
    covering a pixel of each costs), of ``others`` and of what ``covers(box)`` counts (the cost of the lines in a
    box) as it can, ``inside`` its province when given. ``beside``: right and left of the spot first (as a coast's
    label), else above and below first. Without ``further``, only the places round the spot are tried."""
    reach = r + 1.5 * size[0] + 2 * size[1] + 12  # as far as a candidate goes
    around = (x - reach, y - reach, x + reach, y + reach)
    near = [(t, k) for t, k in near if _overlap(t, around) > 0]
    others = [b for b in others if _overlap(b, around) > 0]
    ring, out = _candidates(x, y, size[0], size[1], r, not beside, inside is not None)
    scored = [(cx, cy, _label_cost((cx, cy), size, near, frame, inside, covers), extra) for cx, cy, extra in ring]
    scored.sort(key=lambda c: (c[2] > 0.5, c[2] + c[3]))
    more = partial(_scored, out if further else [], size, near, frame, inside, scored, covers)
    return choose_place(scored, more, size, others)


def label_places(geo: Geography, layout: MapLayout, loc: int, board: bool) -> list[Scored]:
    """Every place the labels' search tries for a location's label (``_candidates``: round its spot, then further
    out), each with its cost against what stays the same from picture to picture (unit spots, centre markers, the
    frame, its own province), cheapest first. Worked out once per layout and location, when first asked for: a
    picture that must move a label (off a line of its phase) adds only what is its own."""
    key = (id(layout), loc)
    found = _PLACES.get(key)
    if found is not None and found[0] is layout:
        return found[1]
    _text, _size, (w, h), r = label_spec(geo, layout, loc, board)
    x, y = layout.points[loc]
    province = loc < len(geo.provinces)
    own = partial(layout.province_at, loc) if layout.province_at is not None and province else None
    reach = r + 1.5 * w + 2 * h + 12
    around = (x - reach, y - reach, x + reach, y + reach)
    near = [(t, k) for t, k in fixed_boxes(geo, layout, ARMY + 1 if board else DISC) if _overlap(t, around) > 0]
    ring, further = _candidates(x, y, w, h, r, province, board)
    frame = (layout.width, layout.height)
    places = [(cx, cy, _label_cost((cx, cy), (w, h), near, frame, own), extra) for cx, cy, extra in ring + further]
    places.sort(key=lambda c: (c[2] > 0.5, c[2] + c[3]))
    if len(_PLACES) >= 1024:  # a diagram's layout is made again for every picture: its entries do not last
        _PLACES.clear()
    _PLACES[key] = (layout, places)
    return places


_PLACES: dict[tuple[int, int], tuple[MapLayout, list[Scored]]] = {}  # the layout kept beside: its id stays its own


def _scored(
    candidates: list[tuple[float, float, float]],
    size: tuple[float, float],
    near: list[tuple[Box, float]],
    frame: tuple[int, int],
    own: Callable[[float, float], bool] | None,
    scored: list[Scored],
    covers: Callable[[Box], float] | None = None,
) -> list[Scored]:
    """``scored`` and ``candidates`` scored, in order of cost."""
    out = scored + [
        (cx, cy, _label_cost((cx, cy), size, near, frame, own, covers), extra) for cx, cy, extra in candidates
    ]
    out.sort(key=lambda c: (c[2] > 0.5, c[2] + c[3]))
    return out


def _first_free(scored: list[Scored], size: tuple[float, float], labels: list[Box]) -> tuple[bool, float, int] | None:
    """The rank of the first candidate, in order of cost, that covers nothing."""
    ranks = (_with_labels(c, size, labels, i) for i, c in enumerate(scored))
    return next((r for r in ranks if not r[0]), None)


def _with_labels(
    candidate: Scored, size: tuple[float, float], labels: list[Box], order: int
) -> tuple[bool, float, int]:
    """A candidate's rank: free of everything first, then the least covered (other labels count heavily), then the
    nearest to its spot."""
    x, y, cost, extra = candidate
    box = (x - 2, y - 2, x + size[0] + 2, y + size[1] + 2)
    total = cost + 8 * sum(_overlap(box, t) for t in labels)
    return (total > 0.5, total + extra, order)


@lru_cache(maxsize=4096)
def _label_size(text: str, size: int, board: bool) -> tuple[float, float]:
    """The size of a label's letters as drawn: a board draws at ``size`` (judge.reports.maps.areas), the diagram at
    twice the size, then halves the picture."""
    if not board:
        return _text_size(text, size)
    left, top, right, bottom = _font(size).getbbox(text)
    return (float(right - left), float(bottom - top))


def _candidates(
    x: float, y: float, w: float, h: float, r: float, province: bool, board: bool
) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """Top left corners for a label of size (w, h) near the spot (x, y) of radius ``r``, each with the small cost
    of its distance: the eight places round the spot (on a board also a little further out), and (on a board) more
    places over and round the spot."""
    ring: list[tuple[float, float, float]] = []
    for gap, extra in ((2.0, 0.0), (6.0, 0.2), (12.0, 0.35)) if board else ((2.0, 0.0),):
        places = [
            (x - w / 2, y - r - h - gap),
            (x - w / 2, y + r + gap),
            (x + r + gap, y - h / 2),
            (x - r - gap - w, y - h / 2),
            (x + r - 2, y - r - h - gap + 2),
            (x - r + 2 - w, y - r - h - gap + 2),
            (x + r - 2, y + r + gap - 2),
            (x - r + 2 - w, y + r + gap - 2),
        ]
        if not province:
            places = places[2:4] + places[:2] + places[4:]
        ring.extend((cx, cy, extra) for cx, cy in places)
    further: list[tuple[float, float, float]] = []
    if board:
        step = 5
        span = int((r + w / 2 + h) // step)
        for i in range(-span, span + 1):
            for j in range(-span, span + 1):
                far = math.hypot(i * step, j * step)
                if far > r + 4:
                    further.append((x - w / 2 + i * step, y - h / 2 + j * step, 0.5 + far / 40))
    return ring, further


def board_layout(variant: Variant, geometry: BoardGeometry) -> MapLayout:
    """The layout of a board drawn with areas: the geometry's frame fills the picture's width; units stand at the
    geometry's unit points (a coast's fleet at the coast's point); labels are upper-case abbreviations. With an
    inset the region is laid out a second time, enlarged to the picture's width, in a panel below the map; its
    provinces are labelled there and not on the map."""
    lon0, _lat0, lon1, _lat1 = geometry.frame
    per_lon = geometry.width / (lon1 - lon0)
    if geometry.inset is None:
        return _board_part(variant, geometry, geometry.frame, per_lon, frozenset())
    ilon0, _ilat0, ilon1, _ilat1 = geometry.inset
    inset = _board_part(variant, geometry, geometry.inset, geometry.width / (ilon1 - ilon0), None)
    labelled = frozenset(range(len(variant.geo.loc_names))) - inset.hidden
    world = _board_part(variant, geometry, geometry.frame, per_lon, labelled)
    return replace(world, inset=inset, inset_at=world.height + INSET_GAP)


def _board_part(
    variant: Variant,
    geometry: BoardGeometry,
    frame: tuple[float, float, float, float],
    per_lon: float,
    hidden: frozenset[int] | None,
) -> MapLayout:
    """The layout of ``frame`` (the whole map, or its inset) at ``per_lon`` pixels a degree of longitude. Labels of
    ``hidden`` locations are left out; without it (an inset), those of locations whose spot lies outside."""
    geo = variant.geo
    lon0, lat0, lon1, lat1 = frame
    g_lat0, g_lat1 = geometry.frame[1], geometry.frame[3]
    squeeze = max(math.cos(math.radians((g_lat0 + g_lat1) / 2)), 0.1)  # the whole map's, for the inset too
    per_lat = per_lon / squeeze
    width = round((lon1 - lon0) * per_lon)
    height = round((lat1 - lat0) * per_lat)
    partial = MapLayout(width, height, 0.0, lon0, lat1, per_lon, per_lat, (), (), 0.0)
    places = _geo_points(geo)
    points: list[tuple[int, int]] = []
    for loc, (lat, lon) in enumerate(places):
        if loc < len(geo.provinces):
            lat, lon = geometry.units[loc]
        x, y = partial.project(lat, lon)
        if x > width + 200:  # west of an inset's left edge: to its left, not round the world
            x -= partial.world_width
        points.append((round(x), round(y)))
    texts = tuple(
        name.upper() if loc < len(geo.provinces) else name.partition("/")[2] for loc, name in enumerate(geo.loc_names)
    )
    owner = Image.new("L", (width, height), 0)  # province id + 1 of every pixel: what lies where
    draw = ImageDraw.Draw(owner)
    for prov in geo.provinces:
        for outer, *holes in geometry.areas[prov.id]:
            draw.polygon([partial.project_unwrapped(x, y) for x, y in outer], fill=prov.id + 1)
            for hole in holes:
                draw.polygon([partial.project_unwrapped(x, y) for x, y in hole], fill=0)
    pixels = owner.load()
    assert pixels is not None  # an image made in memory always loads

    def inside(prov: int, x: float, y: float) -> bool:
        px, py = int(x), int(y)
        return 0 <= px < width and 0 <= py < height and pixels[px, py] == prov + 1

    centres: list[tuple[int, int]] = []
    for prov in geo.provinces:  # the marker inside its province: the usual place when it fits, else the nearest
        x, y = points[prov.id]
        spots = [(x + dx, y + dy) for dx, dy in _MARKER_SPOTS]
        fits = [s for s in spots if all(inside(prov.id, s[0] + ex, s[1] + ey) for ex, ey in _MARKER_EDGE)]
        fits = fits or [s for s in spots if inside(prov.id, *s)]  # a thin province: the marker's middle inside
        cx, cy = (fits or [(x, y)])[0]
        centres.append((round(cx), round(cy)))
    if hidden is None:
        edge = INSET_EDGE
        hidden = frozenset(
            loc for loc, (x, y) in enumerate(points) if not (edge <= x <= width - edge and edge <= y <= height - edge)
        )
    size, coast_size = geometry.label_size, geometry.coast_label_size
    with_points = MapLayout(
        width, height, 0.0, lon0, lat1, per_lon, per_lat, tuple(points), (), 0.0, texts, tuple(centres), hidden
    )
    with_points = replace(with_points, label_size=size, coast_label_size=coast_size)
    labels = _place_labels(geo, with_points, size, coast_size, ARMY + 1, inside, hidden)
    return replace(with_points, labels=labels, province_at=inside)


def _label_cost(
    c: tuple[float, float],
    size: tuple[float, float],
    near: list[tuple[Box, float]],
    frame: tuple[int, int],
    inside: Callable[[float, float], bool] | None,
    covers: Callable[[Box], float] | None = None,
) -> float:
    """How bad a label of ``size`` at ``c`` is: the discs, markers and labels it covers (and what ``covers`` counts
    in its box), how far it runs off the ``frame``, and (on a board, ``inside`` its own province) how far out of its
    province it sits."""
    w, h = size
    box = (c[0] - 1, c[1] - 1, c[0] + w + 1, c[1] + h + 1)
    edge = (
        max(0.0, 4 - box[0])
        + max(0.0, box[2] - (frame[0] - 4))
        + max(0.0, 4 - box[1])
        + max(0.0, box[3] - (frame[1] - 4))
    )
    away = 0.0
    if inside is not None and not inside(c[0] + w / 2, c[1] + h / 2):
        away = 120.0 + (0.0 if inside(c[0] + w / 2, c[1]) or inside(c[0] + w / 2, c[1] + h) else 60)
    drawn = covers(box) if covers is not None else 0.0
    return sum(_overlap(box, t) * k for t, k in near) + drawn + 50 * edge + away


_MARKER_SPOTS = [(-15, 8), (15, 8), (-15, -8), (15, -8), (0, 15), (0, -15), (-16, 0), (16, 0)] + [
    (round(r * math.cos(a * math.pi / 8)), round(r * math.sin(a * math.pi / 8)))
    for r in (11, 20, 26, 32)
    for a in range(16)
]  # the usual places first, then rings further out
_MARKER_EDGE = [(0, 0), (-6, 0), (6, 0), (0, -6), (0, 6)]
