"""A variant's board geometry: the area of every province, read from the sidecar file ``variants/KEY.geo.json``.

The file is data the project owns, written by ``python -m judge.reports.maps.tessellate`` (see there for how the areas
are made). The judge only reads it: a variant without the file, or with a file that does not fit its provinces, is drawn
as a diagram instead (``None`` here). Coordinates are (longitude, latitude) in degrees, longitudes unwrapped from
the frame's left edge (they may exceed 180 on a map round the world).

Besides the areas the file may set how the board is drawn: ``width`` (pixels, default 800), ``label_size`` and
``coast_label_size`` (pixels of the labels' font, defaults 12 and 10) and ``inset`` ([lon0, lat0, lon1, lat1]: a
crowded region drawn a second time, enlarged to the picture's width, in a panel below the map; its provinces are
labelled there rather than on the map).

A map whose provinces cannot all share the borders the game gives them (Pure: seven provinces, each beside every
other, and no more than four regions of a plane can all share borders) has a ``hub`` (``{"at": [lat, lon], "radius":
degrees of latitude}``: a round place in the middle every province touches) and ``links`` (pairs of neighbouring
provinces that share no border on the picture): each link is drawn as a line across the hub.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from judge.reports.maps.style import BOARD_COAST_LABEL_SIZE, BOARD_LABEL_SIZE
from judge.rules.variant import Variant

Ring = tuple[tuple[float, float], ...]
Area = tuple[tuple[Ring, ...], ...]  # polygons, each its outer ring then its holes


@dataclass(frozen=True)
class BoardGeometry:
    frame: tuple[float, float, float, float]  # lon0, lat0, lon1, lat1 of the picture
    width: int  # the picture's width in pixels
    areas: tuple[Area, ...]  # province id -> its area
    units: tuple[tuple[float, float], ...]  # province id -> (lat, lon) where its units stand
    off_board: Area  # land that belongs to no province
    label_size: int = BOARD_LABEL_SIZE  # of the provinces' labels (pixels)
    coast_label_size: int = BOARD_COAST_LABEL_SIZE
    inset: tuple[float, float, float, float] | None = None  # lon0, lat0, lon1, lat1 of a region drawn enlarged
    hub: tuple[float, float, float] | None = None  # lat, lon and radius (degrees of latitude) of the middle ...
    links: tuple[tuple[int, int], ...] = ()  # ... and the neighbours that meet across it (province ids)


def geometry_file(key: str) -> Path:
    from judge.data.resources import data_dir

    return data_dir("variants") / f"{key}.geo.json"


def board_file(variant: Variant) -> Path:
    """Where the variant's board geometry is: the file the catalog found for it (beside its file, its map's, or a
    map's with the same provinces: ``judge.data.catalog.board_for``), else the shipped ``KEY.geo.json``."""
    return Path(variant.board_file) if variant.board_file else geometry_file(variant.board_name)


def board_geometry(variant: Variant) -> BoardGeometry | None:
    """The variant's board geometry, or None when it has none that fits its provinces."""
    return _load(str(board_file(variant)), tuple(p.abbr for p in variant.geo.provinces))


@lru_cache(maxsize=32)
def _load(path: str, abbrs: tuple[str, ...]) -> BoardGeometry | None:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return parse_geometry(data, abbrs)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def parse_geometry(data: dict[str, Any], abbrs: tuple[str, ...]) -> BoardGeometry | None:
    """The geometry in ``data`` (a geometry file's content) for provinces ``abbrs``; None when it lacks one of them."""
    provinces = data["provinces"]
    if set(provinces) != set(abbrs):
        return None
    lon0, lat0, lon1, lat1 = (float(v) for v in data["frame"])
    if not (lon1 > lon0 and lat1 > lat0):
        return None
    areas = tuple(_area(provinces[a]["area"]) for a in abbrs)
    if any(not area for area in areas):
        return None
    units = tuple((float(provinces[a]["unit"][0]), float(provinces[a]["unit"][1])) for a in abbrs)
    width = int(data.get("width", 800))
    inset = None
    if data.get("inset") is not None:
        ilon0, ilat0, ilon1, ilat1 = (float(v) for v in data["inset"])
        if not (ilon1 > ilon0 and ilat1 > ilat0):
            return None
        inset = (ilon0, ilat0, ilon1, ilat1)
    hub = None
    if data.get("hub") is not None:
        (hub_lat, hub_lon), radius = data["hub"]["at"], float(data["hub"]["radius"])
        if radius <= 0:
            return None
        hub = (float(hub_lat), float(hub_lon), radius)
    ids = {a: i for i, a in enumerate(abbrs)}
    links = tuple((ids[a], ids[b]) for a, b in data.get("links", []))
    if links and hub is None:
        return None
    return BoardGeometry(
        (lon0, lat0, lon1, lat1),
        max(200, min(width, 4000)),
        areas,
        units,
        _area(data.get("off_board", [])),
        max(6, min(int(data.get("label_size", BOARD_LABEL_SIZE)), 40)),
        max(6, min(int(data.get("coast_label_size", BOARD_COAST_LABEL_SIZE)), 40)),
        inset,
        hub,
        links,
    )


def _area(polygons: list[Any]) -> Area:
    return tuple(
        tuple(tuple((float(x), float(y)) for x, y in ring) for ring in poly if len(ring) >= 3)
        for poly in polygons
        if poly and len(poly[0]) >= 3
    )
