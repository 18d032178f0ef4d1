"""`python -m judge.reports.maps.tessellate`, the maintainer's tool that writes a variant's board geometry: its
command line on a made-up tower map, with a lake, an island close to the coast and one far out at sea."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tomli_w

pytest.importorskip("shapely")

from judge.reports.maps.geometry import parse_geometry
from judge.reports.maps.tessellate import main

TOWER: dict[str, Any] = {
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
}


def _square(lon0: float, lat0: float, lon1: float, lat1: float) -> list[list[list[float]]]:
    return [[[lon0, lat0], [lon1, lat0], [lon1, lat1], [lon0, lat1], [lon0, lat0]]]


COAST = {
    "source": "made up for the test",
    "layers": {
        "land": [
            _square(-5, -5, 1.2, 65),  # the tower's land; the sea east of it
            _square(1.45, 29.5, 1.6, 30.5),  # an island just off the coast: it joins the nearest province
            _square(3.6, 59.5, 3.9, 60.5),  # an island far out: drawn as land that is no province
        ],
        "lakes": [_square(-4, 10, -2, 12), _square(-1, 40, -0.9, 40.1)],  # a lake kept, a pond left as land
    },
}


def test_the_command_line_writes_the_geometry_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    variant = tmp_path / "tower.toml"
    variant.write_text(tomli_w.dumps(TOWER), encoding="utf-8")
    coast = tmp_path / "coast.json"
    coast.write_text(json.dumps(COAST), encoding="utf-8")
    assert main([str(variant), str(coast), "--width", "600"]) == 0
    written = tmp_path / "tower.geo.json"  # next to the variant file when no --output is given
    data = json.loads(written.read_text(encoding="utf-8"))
    assert data["width"] == 600 and data["variant"] == "tower"
    assert "made up for the test" in data["about"]
    assert data["off_board"], "the far island is land outside every province"
    geometry = parse_geometry(data, ("top", "mid", "bot", "sea"))
    assert geometry is not None
    mid_lons = [lon for poly in geometry.areas[1] for ring in poly for lon, _ in ring]
    assert max(mid_lons) >= 1.45, "the island off the coast joined the province beside it"
    out = capsys.readouterr().out
    assert f"wrote {written}" in out and "4 province areas; 3 of 3 neighbouring pairs share a border" in out


def test_a_province_without_coordinates_is_refused(tmp_path: Path) -> None:
    data = json.loads(json.dumps(TOWER))
    del data["provinces"]["mid"]["at"]
    variant = tmp_path / "tower.toml"
    variant.write_text(tomli_w.dumps(data), encoding="utf-8")
    coast = tmp_path / "coast.json"
    coast.write_text(json.dumps(COAST), encoding="utf-8")
    with pytest.raises(SystemExit, match="every province needs its coordinates"):
        main([str(variant), str(coast), "-o", str(tmp_path / "out.json")])
    assert not (tmp_path / "out.json").exists()
