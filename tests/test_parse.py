"""The order-text parser on the ways players write orders by email (tests/parse_cases.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from judge.data.catalog import load_variant
from judge.rules.orders import Hold, order_text
from judge.rules.parse import OrderError, parse_order
from judge.rules.phase import Step

_DATA = tomllib.loads((Path(__file__).parent / "parse_cases.toml").read_text(encoding="utf-8"))


def _table(kind: str) -> list[tuple[str, str, str, str]]:
    rows = []
    for group in _DATA[kind]:
        for text, want in group["cases"]:
            rows.append((group.get("variant", "classic"), group.get("step", "M"), text, want))
    return rows


@pytest.mark.parametrize("variant,step,text,want", _table("ok"), ids=lambda x: x if isinstance(x, str) else None)
def test_parses(variant: str, step: str, text: str, want: str) -> None:
    geo = load_variant(variant).geo
    order = parse_order(text, geo, Step(step))
    assert not isinstance(order, OrderError), order
    assert order_text(geo, order) == want


@pytest.mark.parametrize("variant,step,text,want", _table("error"))
def test_errors(variant: str, step: str, text: str, want: str) -> None:
    geo = load_variant(variant).geo
    order = parse_order(text, geo, Step(step))
    if want == "__hold__":  # a bare unit is read as a hold, not an error
        assert isinstance(order, Hold)
        return
    assert isinstance(order, OrderError), order
    assert want in order.reason
