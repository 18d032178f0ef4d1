"""Loading variants from TOML files (the I/O side of judge.rules.variant).

A variant is named by its file stem and looked up in the host's ``variants_dir`` first, then among the shipped
files; or it is given as a path to a ``.toml`` file (``judge game create --variant ./mine.toml``), which a game then
keeps by its absolute path.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from judge.data.resources import search_dirs
from judge.rules.variant import Variant, VariantError, key_lines, locate, variant_from_data
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


def load_variant_file(path: Path, key: str | None = None) -> Variant:
    """Parse and validate one variant file; raises VariantError listing every problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise VariantError(["not UTF-8 text"], str(path)) from None
    return variant_from_toml(text, key or path.stem, str(path))


def variant_from_toml(text: str, key: str, source: str = "variant") -> Variant:
    """Parse and validate a variant file's text; each problem names its line where it has one."""
    where, twice = key_lines(text)
    if twice:
        raise VariantError(twice, source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError([f"not valid TOML: {exc}"], source) from None
    try:
        return variant_from_data(data, key)
    except VariantError as exc:
        raise VariantError(locate(exc.problems, where), source) from None


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
