"""Loading variants from TOML files (the I/O side of judge.rules.variant)."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from judge.resources import data_dir
from judge.rules.variant import Variant, VariantError, variant_from_data


def variant_names() -> list[str]:
    return sorted(p.stem for p in data_dir("variants").glob("*.toml"))


def load_variant_file(path: Path) -> Variant:
    """Parse and validate one variant file; raises VariantError listing every problem."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise VariantError([f"not valid TOML: {exc}"], str(path)) from None
    try:
        return variant_from_data(data, path.stem)
    except VariantError as exc:
        raise VariantError(exc.problems, str(path)) from None


@lru_cache(maxsize=None)
def load_variant(name: str) -> Variant:
    """The variant called ``name`` from the variants folder; KeyError with the known names if there is none."""
    key = name.strip().lower()
    path = data_dir("variants") / f"{key}.toml"
    if not key.replace("_", "").replace("-", "").isalnum() or not path.is_file():
        raise KeyError(f"unknown variant {name!r}; known: {', '.join(variant_names())}")
    return load_variant_file(path)
