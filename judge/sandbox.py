"""The ``judge sandbox`` JSON contract: one position and orders in, the adjudicated phase out.

``run(data)`` takes the decoded JSON object and returns the result object; it never raises for bad input, it reports
the problem in ``error``. The format is documented in docs/sandbox.md.
"""

from __future__ import annotations

import json
from typing import Any

from judge.catalog import load_variant
from judge.position_json import PositionError, read_power, position_from_json, position_to_json
from judge.rules.board import Position
from judge.rules.orders import order_text
from judge.rules.turn import TurnResult, parse_submissions, play
from judge.rules.variant import Variant, VariantError


class InputError(ValueError):
    """A sandbox input that cannot be played; the message says why."""


def run_json_line(line: str) -> dict[str, Any]:
    """One line of JSON in, one result object out (errors included)."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        return _error(None, f"malformed JSON: {exc}")
    return run(data)


def run(data: Any) -> dict[str, Any]:
    ident = data.get("id") if isinstance(data, dict) else None
    try:
        if not isinstance(data, dict):
            raise InputError("the input must be a JSON object")
        variant, pos = read_position(data)
        orders = data.get("orders") or {}
        if not isinstance(orders, dict):
            raise InputError("orders must be an object: power -> list of order lines")
        texts: dict[str, list[str]] = {}
        for power_name, lines in orders.items():
            power = read_power(variant, power_name, "orders")
            if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
                raise InputError(f"orders of {power} must be a list of strings")
            texts.setdefault(power, []).extend(lines)
        turn = play(variant, pos, parse_submissions(variant, pos.phase.step, texts))
    except InputError as exc:
        return _error(ident, str(exc))
    return write_result(ident, variant, pos, turn)


def _error(ident: Any, message: str) -> dict[str, Any]:
    return {"id": ident, "phase": None, "results": [], "units": {}, "dislodged": {}, "standoffs": [],
            "supply_centers": {}, "next_phase": None, "winner": None, "error": message}


# --- reading ------------------------------------------------------------------------------------------------------

def read_position(data: dict[str, Any]) -> tuple[Variant, Position]:
    name = data.get("variant", "classic")
    if not isinstance(name, str):
        raise InputError("variant must be a string such as \"classic\"")
    try:
        variant = load_variant(name)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    except VariantError as exc:
        raise InputError(f"variant {name!r} is broken: {exc}") from None
    try:
        return variant, position_from_json(variant, data)
    except PositionError as exc:
        raise InputError(str(exc)) from None


# --- writing ------------------------------------------------------------------------------------------------------

def write_result(ident: Any, variant: Variant, before: Position, turn: TurnResult) -> dict[str, Any]:
    geo = variant.geo
    results = [{"power": r.power, "input": r.input,
                "order": order_text(geo, r.order, before.units) if r.order is not None else None,
                "outcome": r.outcome.value, "reason": r.reason} for r in turn.results]
    board = position_to_json(variant, turn.position)
    return {"id": ident, "phase": turn.phase.code, "results": results, "units": board["units"],
            "dislodged": board["dislodged"], "standoffs": board["standoffs"],
            "supply_centers": board["supply_centers"], "next_phase": board["phase"], "winner": turn.winner,
            "error": None}
