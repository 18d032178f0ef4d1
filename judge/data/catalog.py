"""Loading variants from TOML files (the I/O side of judge.rules.variant).

A variant is named by its file stem and looked up in the host's ``variants_dir`` first, then among the shipped
files; or it is given as a path to a ``.toml`` file (``judge game create --variant ./mine.toml``), which a game then
keeps by its absolute path.

A variant on another variant's map names it (``map = "classic"``): the map's file is read too (beside the variant's
file first, then the host's folder, then the shipped one) and every section the variant does not give is the map's
(``judge.rules.variant.inherit``). Its board (``judge.reports.maps``) is found here as well (``board_for``).
"""

from __future__ import annotations

import tomllib
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from judge.data.resources import search_dirs
from judge.rules.variant import (
    Variant,
    VariantError,
    inherit,
    key_lines,
    locate,
    province_shape,
    variant_from_data,
)
from judge.rules.words import Reason


def variant_files() -> dict[str, Path]:
    """Every known variant name and its file; the host's file wins over a shipped one of the same name."""
    found: dict[str, Path] = {}
    for folder in search_dirs("variants"):
        for path in sorted(folder.glob("*.toml")):
            found.setdefault(path.stem, path)
    return dict(sorted(found.items()))


def variant_names() -> list[str]:
    return list(variant_files())


def is_path(name: str) -> bool:
    return name.endswith(".toml") or "/" in name or "\\" in name


GEOMETRY = ".geo.json"  # a board's geometry file beside its variant file: classic.toml, classic.geo.json
MAX_MAP_DEPTH = 4  # a map named by a map named by ...: deeper is a loop or a mistake


def load_variant_file(path: Path, key: str | None = None) -> Variant:
    """Parse and validate one variant file (with the map it names); raises VariantError listing every problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise VariantError(["not UTF-8 text"], str(path)) from None
    variant = variant_from_toml(text, key or path.stem, str(path), path.parent)
    return replace(variant, board_file=board_for(path, variant.map))


def variant_from_toml(text: str, key: str, source: str = "variant", folder: Path | None = None) -> Variant:
    """Parse and validate a variant file's text; each problem names its line where it has one. A variant that
    names a map is merged with the map's file (looked up beside it in ``folder``, then in the variants' folders)."""
    where, twice = key_lines(text)
    if twice:
        raise VariantError(twice, source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError([f"not valid TOML: {exc}"], source) from None
    map_powers: tuple[str, ...] = ()
    if isinstance(data.get("map"), str) and data["map"]:
        base = _map_data(data["map"], folder, 1)
        if isinstance(base, str):
            line = where.get(("", "map"))
            raise VariantError([f"line {line}: {base}" if line else base], source)
        map_powers = tuple(p for p in base.get("powers", ()) if isinstance(p, str))
        data = inherit(data, base)
    try:
        return variant_from_data(data, key, map_powers)
    except VariantError as exc:
        raise VariantError(locate(exc.problems, where), source) from None


def map_file(name: str, folder: Path | None = None) -> Path | None:
    """The variant file of the map ``name``: beside the variant's own file, else the host's, else the shipped one."""
    stem = name.strip().lower()
    if folder is not None and (folder / f"{stem}.toml").is_file():
        return folder / f"{stem}.toml"
    return variant_files().get(stem)


def _map_data(name: str, folder: Path | None, depth: int) -> dict[str, Any] | str:
    """The parsed data of the map's file (merged with its own map, if it names one), or a problem."""
    path = map_file(name, folder)
    if path is None:
        return f"map {name!r}: there is no variant file {name}.toml beside this one or among the variants"
    if depth > MAX_MAP_DEPTH:
        return f"map {name!r}: maps name each other in a loop"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return f"map {name!r}: {path} cannot be read: {exc}"
    if isinstance(data.get("map"), str) and data["map"]:
        base = _map_data(data["map"], path.parent, depth + 1)
        if isinstance(base, str):
            return base
        data = inherit(data, base)
    return data


def board_for(path: Path, map_name: str = "") -> str | None:
    """The board geometry file a variant file gets: ``NAME.geo.json`` beside it; else its map's (``map =
    "classic"``); else that of a map with the same provinces and coasts (a variant file that copies a map); None
    when there is none (the map is drawn as a diagram). Whether the file fits the provinces is the drawing's check."""
    beside = path.with_name(path.stem + GEOMETRY)
    if beside.is_file():
        return str(beside)
    if map_name:
        found = map_file(map_name, path.parent)
        if found is not None and found.with_name(found.stem + GEOMETRY).is_file():
            return str(found.with_name(found.stem + GEOMETRY))
    try:
        shape = province_shape(tomllib.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    if shape is None:
        return None
    for other in variant_files().values():
        board = other.with_name(other.stem + GEOMETRY)
        if other != path and board.is_file() and _shape_of(other, other.stat().st_mtime_ns) == shape:
            return str(board)
    return None


@cache
def _shape_of(path: Path, mtime: int) -> frozenset[tuple[str, tuple[str, ...]]] | None:
    del mtime  # part of the cache key only: a changed file is read again
    try:
        return province_shape(tomllib.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def load_variant(name: str) -> Variant:
    """The variant called ``name`` (or at the path ``name``); if there is none, KeyError with a Reason that names the
    known ones."""
    return _load(name.strip(), search_dirs("variants"))


@cache
def _load(name: str, dirs: tuple[Path, ...]) -> Variant:
    del dirs  # part of the cache key only: another configuration, another lookup
    if is_path(name):
        path = Path(name).expanduser().resolve()
        if not path.is_file():
            raise KeyError(Reason("there is no variant file {name}", name=name))
        return load_variant_file(path, key=str(path))
    key = name.lower()
    found = variant_files().get(key) if key.replace("_", "").replace("-", "").isalnum() else None
    if found is None:
        raise KeyError(
            Reason("unknown variant {name}; known: {names}", name=repr(name), names=", ".join(variant_names()))
        )
    return load_variant_file(found)
