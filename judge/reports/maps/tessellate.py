"""Make a variant's board geometry: the area of every province, from its coordinates, its adjacency and coastlines.

    python -m judge.reports.maps.tessellate VARIANT COASTLINES.json [--width 800] [-o variants/VARIANT.geo.json]
    python -m judge.reports.maps.tessellate VARIANT --hub [--width 800]      (a map of land provinces round a hub)

A tool of the project, run by whoever adds or changes a variant's map; the judge itself never runs it (it only reads
the file this writes, see ``judge.reports.maps.geometry``). It needs shapely (``pip install '.[mapgen]'``).

How the areas are made, in a plane where a degree of longitude is shortened by the cosine of the map's middle
latitude (so that distances look as on the picture):

1. The coastlines (land polygons, minus the large lakes) are simplified once, so that every province derived from
   them shares the very same shore line with its neighbours. Land is cut to the picture's frame; water is the
   frame minus land.
2. Every province gets *seeds*: its own point (``at``, moved onto land or water when it lies on the wrong side of
   the coast) and points on the way to each neighbour the game gives it, up to just short of the middle. Seeds on
   the wrong side of the coast are dropped (a coast province reaches towards its seas only as far as its shore).
3. Land provinces share out the land, sea provinces the water: in each connected piece of land (or water), the
   Voronoi cells of the seeds on that piece, joined per province. Because neighbours' seeds meet half way, provinces
   the game makes neighbours tend to share a border, and provinces it does not tend to be kept apart.
4. A land province reaches no further than ``reach`` from its seeds; land nobody reaches stays off the board
   (drawn as impassable land). A small island with no seed joins the province it lies closest to, when that is very
   close (Sicily to Naples, Zealand to Denmark); other islands without seeds stay off the board.

With ``--hub`` (a map whose provinces are all mutually neighbours, as Pure's seven: more than four regions cannot all
share borders in a plane) there are no coastlines: the land is a disc round the provinces' points with a round *hub*
in its middle, and each province is the Voronoi cell of its point alone, a wedge from the hub to the rim. Provinces
next to each other round the ring share a border; every other pair of neighbours meets across the hub, written as a
*link* and drawn as a line over the hub (``judge.reports.maps.areas``). Every province must touch the hub (the tool
refuses otherwise).

The file written holds, per province, its area as polygons in (longitude, latitude) — longitudes unwrapped from the
frame's left edge, so that a map round the world has one seam — and the point where its units stand, plus the
off-board land and the frame. It reports how many of the game's neighbouring pairs share a border on the picture.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from judge.rules.geography import Geography, Terrain

SIMPLIFY = 0.03  # degrees (scaled plane) of coastline simplification
MIN_LAKE = 0.5  # lakes smaller than this (square degrees) are left as land
SEED_STEPS = (0.1, 0.2, 0.3, 0.38, 0.45)  # seeds on the way to each neighbour, as fractions of the way
ISLAND_JOIN = 0.45  # a seedless island this close to a province joins it ...
ISLAND_SHARE = 2.0  # ... when it is smaller than this share of the province's area
SHARED = 0.15  # a border at least this long (scaled degrees) counts as shared
ROUND = 3  # decimals kept in the file
ROUNDS = 3  # rounds of reaching towards a neighbour not yet touching


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m judge.reports.maps.tessellate",
        description="Write a variant's board geometry (province areas) from its "
        "coordinates, adjacency and a coastline file.",
    )
    parser.add_argument("variant", help="a variant name (classic) or a variant TOML file")
    parser.add_argument(
        "coastlines", nargs="?", default=None, help="coastline JSON ({'layers': {'land': [...], 'lakes': [...]}})"
    )
    parser.add_argument(
        "--hub",
        action="store_true",
        help="no coastlines: the provinces round a central hub; neighbours that share no border meet across it",
    )
    parser.add_argument("-o", "--output", default=None, help="where to write (default: next to the variant's TOML)")
    parser.add_argument("--width", type=int, default=800, help="the picture's width in pixels (default: 800)")
    parser.add_argument("--label-size", type=int, default=None, help="the labels' font size in pixels (default: 12)")
    parser.add_argument(
        "--coast-label-size", type=int, default=None, help="the coasts' labels' font size in pixels (default: 10)"
    )
    parser.add_argument(
        "--inset",
        type=float,
        nargs=4,
        metavar=("LON0", "LAT0", "LON1", "LAT1"),
        default=None,
        help="a crowded region drawn again, enlarged to the picture's width, in a panel below the map",
    )
    parser.add_argument(
        "--reach",
        type=float,
        default=None,
        help="how far (scaled degrees) a land province reaches from its seeds (default: from the map)",
    )
    args = parser.parse_args(argv)
    from judge.data.catalog import load_variant, load_variant_file
    from judge.data.resources import data_dir

    given = Path(args.variant)
    if given.suffix == ".toml" and given.is_file():
        variant, folder = load_variant_file(given), given.parent
    else:
        variant, folder = load_variant(args.variant), data_dir("variants")
    if any(p.at is None for p in variant.geo.provinces):
        raise SystemExit(f"{variant.key}: every province needs its coordinates (at = [lat, lon]) first")
    if args.hub == (args.coastlines is not None):
        parser.error("give a coastline file or --hub (one of them)")
    if args.hub:
        data, report = tessellate_hub(variant.key, variant.geo)
    else:
        coast = json.loads(Path(args.coastlines).read_text(encoding="utf-8"))
        data, report = tessellate(variant.key, variant.geo, coast, reach=args.reach)
    data["width"] = args.width
    for key, value in (("label_size", args.label_size), ("coast_label_size", args.coast_label_size)):
        if value is not None:
            data[key] = value
    if args.inset is not None:
        data["inset"] = list(args.inset)
    target = Path(args.output) if args.output else folder / f"{variant.key}.geo.json"
    target.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {target} ({target.stat().st_size} bytes)")
    print(report)
    return 0


def frame_of(geo: Geography) -> tuple[float, float, float, float]:
    """The picture's frame (lon0, lat0, lon1, lat1) round the provinces' points, lon0 at the widest gap of
    longitude (a world map has its seam in the ocean); lon1 may exceed 180."""
    from judge.reports.maps.layout import span_of

    places = [p.at for p in geo.provinces if p.at is not None]
    left, span, top, bottom = span_of(places)
    squeeze = max(math.cos(math.radians((top + bottom) / 2)), 0.1)
    pad = 0.04 * max(span * squeeze, top - bottom)
    return (
        round(left - pad / squeeze, 2),
        round(max(bottom - pad, -89.0), 2),
        round(left + span + pad / squeeze, 2),
        round(min(top + pad, 89.0), 2),
    )


def tessellate(
    key: str, geo: Geography, coast: dict[str, Any], *, reach: float | None = None
) -> tuple[dict[str, Any], str]:
    """The geometry file's content, and a report of how well it fits the game's adjacency."""
    plane = _Plane(geo, coast)
    seeds: dict[tuple[float, float], int] = {}
    for p in geo.provinces:
        seeds.setdefault(_rounded(plane.anchors[p.id]), p.id)
    for a, b in sorted(plane.neighbours):
        plane.sow(seeds, a, plane.anchors[a], plane.anchors[b], SEED_STEPS)
        plane.sow(seeds, b, plane.anchors[b], plane.anchors[a], SEED_STEPS)
    if reach is None:
        gaps = sorted(math.hypot(*plane.way(plane.anchors[a], plane.anchors[b])) for a, b in plane.neighbours)
        reach = gaps[len(gaps) // 2] * 1.1
    areas = plane.cut(seeds, reach)
    for _ in range(ROUNDS):  # neighbours kept apart by a third province: each reaches towards the other
        if not plane.reach_towards(areas, seeds):
            break
        areas = plane.cut(seeds, reach)
    missing = [geo.provinces[p].abbr for p in range(len(geo.provinces)) if p not in areas]
    if missing:
        raise SystemExit(f"no area for {', '.join(missing)}: check their coordinates against the coastlines")
    off_board = plane.join_islands(areas, seeds)
    return plane.file(key, coast, areas, off_board)


HUB_RIM = 1.45  # the land's rim, in the mean distance of the provinces' points from the middle
HUB_SIZE = 0.35  # the hub's radius, in the same measure


def tessellate_hub(key: str, geo: Geography) -> tuple[dict[str, Any], str]:
    """The geometry of a map of land provinces round a hub (``--hub``): the content of the file, and the report."""
    if any(p.terrain is not Terrain.LAND for p in geo.provinces):
        raise SystemExit(f"{key}: --hub draws land provinces only")
    places = [p.at for p in geo.provinces if p.at is not None]
    lat_c = sum(lat for lat, _ in places) / len(places)
    lon_c = sum(lon for _, lon in places) / len(places)
    squeeze = max(math.cos(math.radians(lat_c)), 0.1)
    mean = sum(math.hypot(lat - lat_c, (lon - lon_c) * squeeze) for lat, lon in places) / len(places)
    rim, hub = HUB_RIM * mean, HUB_SIZE * mean
    pad = 0.04 * rim

    def circle(radius: float) -> list[list[float]]:
        steps = 96
        return [
            [
                lon_c + radius * math.sin(2 * math.pi * k / steps) / squeeze,
                lat_c + radius * math.cos(2 * math.pi * k / steps),
            ]
            for k in range(steps + 1)
        ]

    coast = {
        "layers": {"land": [[circle(rim)]], "lakes": [[circle(hub)]]},
        "source": "no coastlines: a disc of land round a hub (--hub)",
    }
    half = (rim + pad) / squeeze
    frame = (round(lon_c - half, 2), round(lat_c - rim - pad, 2), round(lon_c + half, 2), round(lat_c + rim + pad, 2))
    plane = _Plane(geo, coast, frame=frame)
    areas = {p.id: _nearest_cell(plane, p.id).intersection(plane.land).buffer(0) for p in geo.provinces}
    areas = {p: area for p, area in areas.items() if not area.is_empty}
    missing = [geo.provinces[p].abbr for p in range(len(geo.provinces)) if p not in areas]
    if missing:
        raise SystemExit(f"no area for {', '.join(missing)}: check their coordinates")
    from shapely.geometry import Point

    middle = Point(plane.plane(lon_c, lat_c)).buffer(hub * 1.02, 96)
    apart = [geo.provinces[p].abbr for p in areas if areas[p].intersection(middle).area <= 0]
    if apart:
        raise SystemExit(f"{', '.join(apart)} do not touch the hub: put the points round it")
    data, report = plane.file(key, coast, areas, [])
    links = [(a, b) for a, b in sorted(plane.neighbours) if not plane.share(areas, a, b)]
    data["hub"] = {"at": [round(lat_c, 3), round(lon_c, 3)], "radius": round(hub, 3)}
    data["links"] = [[geo.provinces[a].abbr, geo.provinces[b].abbr] for a, b in links]
    shared = data["neighbours_sharing_a_border"][0]
    report = (
        f"{key}: {len(geo.provinces)} province areas round a hub; {shared} of {len(plane.neighbours)} neighbouring "
        f"pairs share a border, the other {len(links)} meet across the hub (drawn as lines over it)"
    )
    return data, report


def _nearest_cell(plane: _Plane, prov: int) -> Any:
    """The part of the frame nearer ``prov``'s point than any other province's: its Voronoi cell, cut from the frame
    half-plane by half-plane (GEOS's Voronoi diagram breaks on points all on one circle, where every cell meets one
    vertex)."""
    from shapely.geometry import Polygon

    x0, y0 = plane.anchors[prov]
    far = 4 * (plane.width + plane.lat1 - plane.lat0)
    cell: Any = plane.frame
    for other, (x1, y1) in plane.anchors.items():
        if other == prov:
            continue
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        dx, dy = x1 - x0, y1 - y0  # the half-plane on prov's side of the bisector: away from (dx, dy)
        nx, ny = -dy, dx
        cell = cell.intersection(
            Polygon(
                [
                    (mx + nx * far, my + ny * far),
                    (mx - nx * far, my - ny * far),
                    (mx - nx * far - dx * far, my - ny * far - dy * far),
                    (mx + nx * far - dx * far, my + ny * far - dy * far),
                ]
            )
        )
    return cell


class _Plane:
    """The picture's frame as a plane (longitude scaled by the cosine of the middle latitude), the land and water in
    it, where each province's seeds start (its anchor) and the pairs of provinces the game makes neighbours."""

    def __init__(
        self, geo: Geography, coast: dict[str, Any], frame: tuple[float, float, float, float] | None = None
    ) -> None:
        import shapely.prepared
        from shapely.geometry import box
        from shapely.ops import unary_union

        self.geo = geo
        self.lon0, self.lat0, self.lon1, self.lat1 = frame if frame is not None else frame_of(geo)
        self.squeeze = max(math.cos(math.radians((self.lat0 + self.lat1) / 2)), 0.1)
        self.width = (self.lon1 - self.lon0) * self.squeeze
        self.world = 360.0 * self.squeeze  # a map round the world: the short way may cross the seam
        self.frame = box(0.0, self.lat0, self.width, self.lat1)
        land = unary_union(self._polygons(coast["layers"]["land"]))
        lakes = [p for p in self._polygons(coast["layers"].get("lakes", [])) if p.area >= MIN_LAKE]
        if lakes:
            land = land.difference(unary_union(lakes))
        self.land = land.simplify(SIMPLIFY).buffer(0).intersection(self.frame)
        water = self.frame.difference(self.land)
        self.land_parts, self.water_parts = _parts(self.land), _parts(water)
        self.sea = [p.terrain is Terrain.SEA for p in geo.provinces]
        self.medium = {True: water, False: self.land}
        self.anchors = {p.id: self._anchor(p.id) for p in geo.provinces}
        self.neighbours = _neighbours(geo)
        self.prepared_medium = {k: shapely.prepared.prep(v) for k, v in self.medium.items()}

    def plane(self, lon: float, lat: float) -> tuple[float, float]:
        return ((lon - self.lon0) * self.squeeze, lat)

    def _polygons(self, layer: Iterable[list[list[list[float]]]]) -> list[Any]:
        from shapely.geometry import Polygon

        out = []
        for rings in layer:
            for shift in (-360.0, 0.0, 360.0):  # a polygon across the seam is cut and comes back on the other side
                poly = Polygon(
                    [self.plane(x + shift, y) for x, y in rings[0]],
                    [[self.plane(x + shift, y) for x, y in r] for r in rings[1:]],
                )
                if not poly.is_valid:
                    poly = poly.buffer(0)
                if poly.intersects(self.frame):
                    out.append(poly.intersection(self.frame))
        return out

    def _anchor(self, prov: int) -> tuple[float, float]:
        """The province's point, moved onto its own side of the coast when it is on the wrong one."""
        from shapely.geometry import Point
        from shapely.ops import nearest_points

        at = self.geo.provinces[prov].at
        assert at is not None  # main() asks for every province's point first
        lat, lon = at
        pt = Point(self.plane(self.lon0 + (lon - self.lon0) % 360.0, lat))
        own = self.medium[self.sea[prov]]
        if own.contains(pt):
            return (pt.x, pt.y)
        near = nearest_points(own, pt)[0]
        dx, dy = near.x - pt.x, near.y - pt.y
        d = math.hypot(dx, dy) or 1.0
        inside = Point(near.x + dx / d * 0.15, near.y + dy / d * 0.15)
        if not own.contains(inside):  # a thin or small piece: a point well inside the nearest piece
            inside = min(_parts(own), key=lambda g: g.distance(pt)).point_on_surface()
        return (inside.x, inside.y)

    def way(self, src: tuple[float, float], dst: tuple[float, float]) -> tuple[float, float]:
        dx = dst[0] - src[0]
        if abs(dx) > self.world / 2:
            dx -= math.copysign(self.world, dx)
        return dx, dst[1] - src[1]

    def on_frame(self, q: tuple[float, float]) -> tuple[float, float] | None:
        x = q[0]
        if x < 0 and x + self.world <= self.width:
            x += self.world
        elif x > self.width and x - self.world >= 0:
            x -= self.world
        return (x, q[1]) if 0 <= x <= self.width else None

    def sow(
        self,
        seeds: dict[tuple[float, float], int],
        prov: int,
        start: tuple[float, float],
        towards: tuple[float, float],
        steps: Iterable[float],
    ) -> None:
        """Seeds of ``prov`` on the way from ``start`` towards ``towards``, while on the province's side of the
        coast."""
        from shapely.geometry import Point

        dx, dy = self.way(start, towards)
        for t in steps:
            q = self.on_frame((start[0] + dx * t, start[1] + dy * t))
            if q is None or not self.prepared_medium[self.sea[prov]].contains(Point(q)):
                break  # the way has left the province's side of the coast (or the picture): no further
            seeds.setdefault(_rounded(q), prov)

    def share(self, areas: dict[int, Any], a: int, b: int) -> bool:
        """Whether a and b share a border of at least SHARED (across the seam too)."""
        from shapely.affinity import translate

        other = areas[b].buffer(0.02)
        for shift in (0.0, self.world, -self.world):
            near = translate(other, shift) if shift else other
            if areas[a].boundary.intersection(near).length >= SHARED:
                return True
        return False

    def cut(self, seeds: dict[tuple[float, float], int], reach: float) -> dict[int, Any]:
        """Each province's area: the Voronoi cells of its seeds on its side of the coast; a land province reaches no
        further than ``reach`` from its seeds (cut once: no slivers)."""
        from shapely.geometry import Point
        from shapely.ops import unary_union

        cells = self._cells(seeds)
        areas = {}
        for prov, found in cells.items():
            if found:
                area = unary_union(found)
                if not self.sea[prov]:
                    area = area.intersection(
                        unary_union([Point(q).buffer(reach, 24) for q, owner in seeds.items() if owner == prov])
                    )
                areas[prov] = area.buffer(0)
        return areas

    def _cells(self, seeds: dict[tuple[float, float], int]) -> dict[int, list[Any]]:
        import shapely
        import shapely.prepared
        from shapely.geometry import MultiPoint, Point

        cells: dict[int, list[Any]] = {p.id: [] for p in self.geo.provinces}
        for is_sea, pieces in ((False, self.land_parts), (True, self.water_parts)):
            mine = [(q, prov) for q, prov in seeds.items() if self.sea[prov] == is_sea]
            for piece in pieces:
                prepared = shapely.prepared.prep(piece)
                inside = [(q, prov) for q, prov in mine if prepared.contains(Point(q))]
                if len(inside) == 1:
                    cells[inside[0][1]].append(piece)
                    continue
                if not inside:
                    continue
                voronoi = shapely.voronoi_polygons(
                    MultiPoint([q for q, _ in inside]), extend_to=self.frame, ordered=True
                )
                for (_q, prov), cell in zip(inside, voronoi.geoms, strict=True):
                    part = cell.intersection(piece)
                    if not part.is_empty:
                        cells[prov].append(part)
        return cells

    def reach_towards(self, areas: dict[int, Any], seeds: dict[tuple[float, float], int]) -> bool:
        """Seeds for neighbours not sharing a border, each towards the other; False when all of them share one."""
        from shapely.ops import nearest_points

        apart = [
            (a, b) for a, b in sorted(self.neighbours) if a in areas and b in areas and not self.share(areas, a, b)
        ]
        for a, b in apart:
            pa, pb = nearest_points(areas[a], areas[b])
            middle = ((pa.x + pb.x) / 2, (pa.y + pb.y) / 2)
            self.sow(seeds, a, (pa.x, pa.y), middle, (0.35, 0.7, 1.05))
            self.sow(seeds, b, (pb.x, pb.y), middle, (0.35, 0.7, 1.05))
        return bool(apart)

    def join_islands(self, areas: dict[int, Any], seeds: dict[tuple[float, float], int]) -> list[Any]:
        """Land no province reached: a small seedless island very close to a province joins it (changing ``areas``);
        the rest is returned, to be drawn as off-board land."""
        from shapely.geometry import Point
        from shapely.ops import unary_union

        sea = self.sea
        covered = unary_union([areas[p] for p in areas if not sea[p]])
        off_board = []
        for piece in _parts(self.land.difference(covered.buffer(1e-6))):
            if piece.area < 1e-4:
                continue
            d, prov = min((piece.distance(areas[p]), p) for p in areas if not sea[p])
            touches_seed = any(piece.contains(Point(q)) for q, owner in seeds.items() if not sea[owner])
            if (
                not touches_seed
                and d <= ISLAND_JOIN
                and piece.area <= ISLAND_SHARE * areas[prov].area
                and _is_island(piece, self.land_parts)
            ):
                areas[prov] = unary_union([areas[prov], piece])
            else:
                off_board.append(piece)
        return off_board

    def _ring(self, coords: Iterable[tuple[float, float]]) -> list[list[float]]:
        return [[round(self.lon0 + x / self.squeeze, ROUND), round(y, ROUND)] for x, y in coords]

    def _multipolygon(self, geom: Any) -> list[list[list[list[float]]]]:
        return [
            [self._ring(poly.exterior.coords), *(self._ring(r.coords) for r in poly.interiors)] for poly in _parts(geom)
        ]

    def file(
        self, key: str, coast: dict[str, Any], areas: dict[int, Any], off_board: list[Any]
    ) -> tuple[dict[str, Any], str]:
        """The geometry file's content and the report of the neighbours sharing a border on the picture."""
        from shapely.geometry import Point
        from shapely.ops import unary_union

        geo = self.geo
        provinces: dict[str, Any] = {}
        for p in geo.provinces:
            area = areas[p.id]
            stand = Point(self.anchors[p.id])
            if not area.contains(stand):
                stand = area.point_on_surface()
            provinces[p.abbr] = {
                "area": self._multipolygon(area),
                "unit": [round(stand.y, 2), round(self.lon0 + stand.x / self.squeeze, 2)],
            }
        shared, untouched = 0, []
        for a, b in sorted(self.neighbours):
            if self.share(areas, a, b):
                shared += 1
            else:
                untouched.append(f"{geo.provinces[a].abbr}-{geo.provinces[b].abbr}")
        data = {
            "about": "Province areas of this variant for drawing its board, made by judge.reports.maps.tessellate "
            "from the provinces' coordinates and adjacency, clipped to coastlines: "
            + str(coast.get("source", "public-domain coastlines")),
            "variant": key,
            "frame": [self.lon0, self.lat0, self.lon1, self.lat1],
            "provinces": provinces,
            "off_board": self._multipolygon(unary_union(off_board)) if off_board else [],
            "neighbours_sharing_a_border": [shared, len(self.neighbours)],
        }
        report = (
            f"{key}: {len(provinces)} province areas; {shared} of {len(self.neighbours)} neighbouring pairs share a "
            f"border" + (f"; not touching on the picture: {', '.join(untouched)}" if untouched else "")
        )
        return data, report


def _parts(geom: Any) -> list[Any]:
    return [g for g in getattr(geom, "geoms", [geom]) if g.area > 0 and g.geom_type == "Polygon"]


def _neighbours(geo: Geography) -> set[tuple[int, int]]:
    """The pairs of provinces (lower id first) a unit can move between, in either direction."""
    neighbours: set[tuple[int, int]] = set()
    for a in range(len(geo.provinces)):
        for b in geo.army_adj[a]:
            neighbours.add((min(a, b), max(a, b)))
    for loc, targets in enumerate(geo.fleet_reach):
        for b in targets:
            a = geo.loc_province[loc]
            if a != b:
                neighbours.add((min(a, b), max(a, b)))
    return neighbours


def _rounded(q: tuple[float, float]) -> tuple[float, float]:
    return (round(q[0], 4), round(q[1], 4))


def _is_island(piece: Any, land_parts: list[Any]) -> bool:
    """Whether ``piece`` is a whole piece of land (not a far corner of a continent)."""
    return any(abs(piece.area - part.area) < 1e-3 and piece.intersects(part) for part in land_parts)


if __name__ == "__main__":
    sys.exit(main())
