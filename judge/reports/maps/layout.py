"""Where things go: provinces projected from their coordinates, labels placed apart."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from PIL import Image, ImageDraw

from judge.reports.maps.fonts import _drawing_font
from judge.reports.maps.geometry import BoardGeometry
from judge.reports.maps.style import (
    ARMY,
    BOARD_COAST_LABEL_SIZE,
    BOARD_LABEL_SIZE,
    CENTRE,
    CENTRE_AT,
    COAST_LABEL_SIZE,
    DISC,
    DISLODGED_AT,
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

    def dislodged_point(self, loc: int) -> tuple[int, int]:
        x, y = self.points[loc]
        return (x + DISLODGED_AT[0], y + DISLODGED_AT[1])


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


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _text_size(text: str, size: int) -> tuple[float, float]:
    font, enlarge = _drawing_font(size)
    left, top, right, bottom = font.getbbox(text)
    return ((right - left) * enlarge / SCALE, (bottom - top) * enlarge / SCALE)


def _place_labels(
    geo: Geography,
    layout: MapLayout,
    label_size: int = LABEL_SIZE,
    coast_size: int = COAST_LABEL_SIZE,
    disc: float = DISC,
    inside: Callable[[int, float, float], bool] | None = None,
) -> tuple[tuple[int, int], ...]:
    """Put each label beside its disc where it covers the fewest other discs, markers and labels (and, on a board,
    inside its own province: ``inside(province, x, y)``)."""
    taken: list[Box] = []
    for prov in geo.provinces:
        x, y = layout.points[prov.id]
        taken.append((x - disc, y - disc, x + disc, y + disc))
        if prov.centre:
            cx, cy = layout.centre_marker(prov.id)
            taken.append((cx - CENTRE, cy - CENTRE, cx + CENTRE, cy + CENTRE))
    for loc in range(len(geo.provinces), len(geo.loc_names)):
        x, y = layout.points[loc]
        taken.append((x - ARMY - 1, y - ARMY - 1, x + ARMY + 1, y + ARMY + 1))
    labels: list[tuple[int, int]] = []
    for loc, name in enumerate(geo.loc_names):
        province = loc < len(geo.provinces)
        text = layout.label_text(loc, name if province else name.partition("/")[2])
        w, h = _text_size(text, label_size if province else coast_size)
        x, y = layout.points[loc]
        r = disc + 1 if province else ARMY + 1
        candidates = [
            (x - w / 2, y - r - h - 2),
            (x - w / 2, y + r + 2),
            (x + r + 2, y - h / 2),
            (x - r - 2 - w, y - h / 2),
            (x + r - 2, y - r - h),
            (x - r + 2 - w, y - r - h),
            (x + r - 2, y + r),
            (x - r + 2 - w, y + r),
        ]
        if not province:
            candidates = candidates[2:4] + candidates[:2] + candidates[4:]

        reach = r + w + h + 4
        near = [t for t in taken if t[0] < x + reach and t[2] > x - reach and t[1] < y + reach and t[3] > y - reach]

        own = partial(inside, loc) if inside is not None and province else None
        costs = [_label_cost(c, (w, h), near, (layout.width, layout.height), own) for c in candidates]
        best = min(range(len(candidates)), key=lambda i: (costs[i] > 0.5, costs[i], i))
        bx, by = candidates[best]
        labels.append((round(bx), round(by)))
        taken.append((bx, by, bx + w, by + h))
    return tuple(labels)


def board_layout(variant: Variant, geometry: BoardGeometry) -> MapLayout:
    """The layout of a board drawn with areas: the geometry's frame fills the picture's width; units stand at the
    geometry's unit points (a coast's fleet at the coast's point); labels are upper-case abbreviations."""
    geo = variant.geo
    lon0, lat0, lon1, lat1 = geometry.frame
    squeeze = max(math.cos(math.radians((lat0 + lat1) / 2)), 0.1)
    per_lon = geometry.width / (lon1 - lon0)
    per_lat = per_lon / squeeze
    height = round((lat1 - lat0) * per_lat)
    partial = MapLayout(geometry.width, height, 0.0, lon0, lat1, per_lon, per_lat, (), (), 0.0)
    places = _geo_points(geo)
    points: list[tuple[int, int]] = []
    for loc, (lat, lon) in enumerate(places):
        if loc < len(geo.provinces):
            lat, lon = geometry.units[loc]
        x, y = partial.project(lat, lon)
        points.append((round(x), round(y)))
    texts = tuple(
        name.upper() if loc < len(geo.provinces) else name.partition("/")[2] for loc, name in enumerate(geo.loc_names)
    )
    owner = Image.new("L", (geometry.width, height), 0)  # province id + 1 of every pixel: what lies where
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
        return 0 <= px < geometry.width and 0 <= py < height and pixels[px, py] == prov + 1

    centres: list[tuple[int, int]] = []
    for prov in geo.provinces:  # the marker inside its province: the usual place when it fits, else the nearest
        x, y = points[prov.id]
        spots = [(x + dx, y + dy) for dx, dy in _MARKER_SPOTS]
        fits = [s for s in spots if all(inside(prov.id, s[0] + ex, s[1] + ey) for ex, ey in _MARKER_EDGE)]
        fits = fits or [s for s in spots if inside(prov.id, *s)]  # a thin province: the marker's middle inside
        cx, cy = (fits or [(x, y)])[0]
        centres.append((round(cx), round(cy)))
    with_points = MapLayout(
        geometry.width, height, 0.0, lon0, lat1, per_lon, per_lat, tuple(points), (), 0.0, texts, tuple(centres)
    )
    labels = _place_labels(geo, with_points, BOARD_LABEL_SIZE, BOARD_COAST_LABEL_SIZE, ARMY + 1, inside)
    return MapLayout(
        geometry.width, height, 0.0, lon0, lat1, per_lon, per_lat, tuple(points), labels, 0.0, texts, tuple(centres)
    )


def _label_cost(
    c: tuple[float, float],
    size: tuple[float, float],
    near: list[Box],
    frame: tuple[int, int],
    inside: Callable[[float, float], bool] | None,
) -> float:
    """How bad a label of ``size`` at ``c`` is: the discs, markers and labels it covers, how far it runs off the
    ``frame``, and (on a board, ``inside`` its own province) how far out of its province it sits."""
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
    return sum(_overlap(box, t) for t in near) + 50 * edge + away


_MARKER_SPOTS = [(-15, 8), (15, 8), (-15, -8), (15, -8), (0, 15), (0, -15), (-16, 0), (16, 0)] + [
    (round(r * math.cos(a * math.pi / 8)), round(r * math.sin(a * math.pi / 8)))
    for r in (11, 20, 26, 32)
    for a in range(16)
]  # the usual places first, then rings further out
_MARKER_EDGE = [(0, 0), (-6, 0), (6, 0), (0, -6), (0, 6)]
