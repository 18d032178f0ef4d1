"""The ``judge sandbox`` JSON contract: one position and orders in, the adjudicated phase out.

``run(data)`` takes the decoded JSON object and returns the result object; it never raises for bad input, it reports
the problem in ``error``. The format is documented in docs/sandbox.md.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any, TextIO

from judge.game.ports import load_variant
from judge.rules.board import Position
from judge.rules.edition import RulesEdition
from judge.rules.orders import order_text
from judge.rules.position_json import PositionError, position_from_json, position_to_json, read_power
from judge.rules.turn import TurnResult, parse_submissions, play
from judge.rules.variant import Variant, VariantError
from judge.rules.victory import Victory


class InputError(ValueError):
    """A sandbox input that cannot be played; the message says why."""


MAX_INPUT_CHARS = 1_000_000  # one JSON input (a position and its orders are a few KB)
MAX_DEPTH = 8  # nesting of arrays and objects (the format needs 4)
MAX_ORDER_LINES = 1000  # order lines in one input, all powers together
MAX_LINE_CHARS = 1000  # characters of one order line
_VARIANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")


def run_json_line(line: str) -> dict[str, Any]:
    """One line of JSON in, one result object out (errors included). Never raises."""
    if not isinstance(line, str):
        return _error(None, "the input must be text")
    if len(line) > MAX_INPUT_CHARS:
        return _error(None, f"the input is longer than {MAX_INPUT_CHARS} characters")
    if _depth(line) > MAX_DEPTH:
        return _error(None, f"the input nests arrays and objects deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:
        return _error(None, f"malformed JSON: {exc}")
    printable: dict[str, Any] = _printable(run(data))
    return printable


def read_lines(stream: TextIO) -> Iterator[str]:
    """The lines of a JSON Lines stream without their line ends; a line longer than ``MAX_INPUT_CHARS`` is never held
    in memory whole: its first part is given (and reported as too long) and the rest skipped."""
    while True:
        line = stream.readline(MAX_INPUT_CHARS + 1)
        if not line:
            return
        if not line.endswith("\n") and len(line) > MAX_INPUT_CHARS:
            while True:  # skip to the end of the over-long line
                rest = stream.readline(MAX_INPUT_CHARS)
                if not rest or rest.endswith("\n"):
                    break
        yield line.rstrip("\r\n")


def _depth(text: str) -> int:
    """How deep arrays and objects nest in JSON ``text`` (brackets inside strings are not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _printable(value: Any) -> Any:
    """``value`` with lone surrogates (which JSON escapes can make) replaced, so that it can be written as UTF-8."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, list):
        return [_printable(v) for v in value]
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    return value


def _ident(data: Any) -> Any:
    """The ``id`` of an input, echoed only when it is a plain JSON scalar."""
    ident = data.get("id") if isinstance(data, dict) else None
    if isinstance(ident, float) and not math.isfinite(ident):
        return None
    if isinstance(ident, str):
        return ident[:200]
    return ident if isinstance(ident, (int, float, bool)) or ident is None else None


def run(data: Any) -> dict[str, Any]:
    """Play one decoded input. Never raises: whatever is wrong with the input comes back in ``error``."""
    ident = _ident(data)
    try:
        if not isinstance(data, dict):
            raise InputError("the input must be a JSON object")
        if "id" in data and data["id"] is not None and ident is None:
            raise InputError("id must be a string, a number or null")
        variant, pos = read_position(data)
        return play_input(ident, variant, pos, data, edition=read_rules(data))
    except (InputError, PositionError) as exc:
        return _error(ident, str(exc))
    except (RecursionError, MemoryError):
        return _error(ident, "the input is too large or too deeply nested")
    except Exception as exc:  # noqa: BLE001 - a sandbox input must never crash the judge or stop a batch
        return _error(ident, f"the judge could not play this input ({type(exc).__name__}); please report it")


def play_input(
    ident: Any,
    variant: Variant,
    pos: Position,
    data: dict[str, Any],
    victory: Victory | None = None,
    sides: tuple[tuple[str, ...], ...] = (),
    *,
    edition: RulesEdition,
) -> dict[str, Any]:
    """Play ``data["orders"]`` from ``pos`` by the rules ``edition``, under ``victory`` (the variant's rule when
    None); raises InputError."""
    orders = data.get("orders") or {}
    if not isinstance(orders, dict):
        raise InputError("orders must be an object: power -> list of order lines")
    texts: dict[str, list[str]] = {}
    count = 0
    for power_name, lines in orders.items():
        power = read_power(variant, power_name, "orders")
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            raise InputError(f"orders of {power} must be a list of strings")
        count += len(lines)
        if count > MAX_ORDER_LINES:
            raise InputError(f"more than {MAX_ORDER_LINES} order lines")
        if any(len(x) > MAX_LINE_CHARS for x in lines):
            raise InputError(f"an order line of {power} is longer than {MAX_LINE_CHARS} characters")
        texts.setdefault(power, []).extend(lines)
    turn = play(variant, pos, parse_submissions(variant, pos.phase.step, texts), victory, sides, edition=edition)
    return write_result(ident, variant, pos, turn, victory, edition)


def _error(ident: Any, message: str) -> dict[str, Any]:
    return {
        "id": ident,
        "phase": None,
        "results": [],
        "units": {},
        "dislodged": {},
        "standoffs": [],
        "supply_centers": {},
        "next_phase": None,
        "winner": None,
        "draw": [],
        "scores": None,
        "uses_points": False,
        "rules": None,
        "error": message,
    }


# --- reading ------------------------------------------------------------------------------------------------------


def read_rules(data: dict[str, Any]) -> RulesEdition:
    """The input's ``rules``: the rules edition, "2000" (the default) or "datc-3"."""
    text = data.get("rules", RulesEdition.Y2000.value)
    try:
        return RulesEdition(text) if isinstance(text, str) else RulesEdition("")
    except ValueError:
        shown = repr(text)[:40]
        choices = " or ".join(f'"{e.value}"' for e in RulesEdition)
        raise InputError(f"rules must be {choices} (the rules edition), not {shown}") from None


def read_position(data: dict[str, Any]) -> tuple[Variant, Position]:
    name = data.get("variant", "classic")
    if not isinstance(name, str):
        raise InputError('variant must be a string such as "classic"')
    if not _VARIANT_NAME.match(name.strip()):
        raise InputError(
            f"{name[:40]!r}{'…' if len(name) > 40 else ''} is not a variant name: one word of letters, "
            f"digits, - and _, at most 64 characters"
        )
    phase = data.get("phase")
    if phase is not None and not isinstance(phase, str):
        raise InputError('phase must be a string such as "S1901M"')
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


def write_result(
    ident: Any,
    variant: Variant,
    before: Position,
    turn: TurnResult,
    victory: Victory | None = None,
    edition: RulesEdition = RulesEdition.Y2000,
) -> dict[str, Any]:
    geo = variant.geo
    results = [
        {
            "power": r.power,
            "input": r.input,
            "order": order_text(geo, r.order, before.units) if r.order is not None else None,
            "outcome": r.outcome.value,
            "reason": r.reason,
        }
        for r in turn.results
    ]
    board = position_to_json(variant, turn.position)
    return {
        "id": ident,
        "phase": turn.phase.code,
        "results": results,
        "units": board["units"],
        "dislodged": board["dislodged"],
        "standoffs": board["standoffs"],
        "supply_centers": board["supply_centers"],
        "next_phase": board["phase"],
        "winner": turn.winner,
        "draw": list(turn.draw),
        "scores": turn.scores,
        "uses_points": (victory or variant.victory).uses_points,
        "rules": edition.value,
        "error": None,
    }
