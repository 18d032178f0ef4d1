"""The SANDBOX mail command: a position and orders written as text, adjudicated with the engine, the answer as text.

    variant classic phase F1901M          (each optional: classic, the variant's first phase; with rules datc-3
    rules datc-3                           or rules 2000, the rules edition, 2000 by default; any order, any lines)
    England: F nth, A lon                 (units per power; a power's lines may repeat)
    France: A par
    centres England: lon, edi, lvp        (optional: centre ownership per power; default the variant's start)
    ORDERS
    England: F nth - bel
    France: A par - bur

No game is touched; this only runs ``judge.game.sandbox.run`` on the same JSON the sandbox command line takes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from judge.commands.reply import Lines, Row
from judge.game.sandbox import run
from judge.i18n import T, Text, outcome_of, outcome_word
from judge.rules.orders import Outcome

_HEADER_VALUES = {
    "variant": re.compile(r"[\w-]+"),
    "phase": re.compile(r"[SFW]\d{4}[MRAB]", re.I),
    "rules": re.compile(r"\S+"),
}


def header_line(line: str) -> dict[str, str] | None:
    """The settings of a header line (``variant classic phase F1901M rules datc-3``: each key at most once, in any
    order), or None when the line is not one. A rules edition the judge does not know is kept, for ``run`` to say
    which there are."""
    words = line.split()
    if not words or len(words) % 2:
        return None
    found: dict[str, str] = {}
    for key, value in zip(words[0::2], words[1::2], strict=True):
        key = key.lower()
        pattern = _HEADER_VALUES.get(key)
        if pattern is None or key in found or not pattern.fullmatch(value):
            return None
        found[key] = value
    return found


def sandbox_input(body: str) -> dict[str, Any]:
    """The sandbox JSON input a SANDBOX block describes (problems are left for ``run`` to report)."""
    data: dict[str, Any] = {"variant": "classic", "units": {}, "orders": {}}
    in_orders = False
    for raw in body.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.upper() == "ORDERS":
            in_orders = True
            continue
        header = None if in_orders else header_line(line)
        if header is not None:
            if "variant" in header:
                data["variant"] = header["variant"].lower()
            if "phase" in header:
                data["phase"] = header["phase"].upper()
            if "rules" in header:
                data["rules"] = header["rules"].lower()
            continue
        power, sep, rest = line.partition(":")
        if not sep:
            data.setdefault("problems", []).append(line)
            continue
        power = power.strip()
        if in_orders:
            data["orders"].setdefault(power, []).append(rest.strip())
        elif power.lower().startswith("centres ") or power.lower().startswith("centers "):
            who = power.split(None, 1)[1]
            data.setdefault("supply_centers", {}).setdefault(who, []).extend(
                x.strip() for x in rest.split(",") if x.strip()
            )
        else:
            data["units"].setdefault(power, []).extend(x.strip() for x in rest.split(",") if x.strip())
    if not data["units"]:
        data.pop("units")  # the variant's starting position
    return data


def run_sandbox_text(
    body: str, from_game: Callable[[dict[str, Any]], dict[str, Any]] | None = None, game: str | None = None
) -> Lines:
    """The SANDBOX answer; with ``from_game`` (SANDBOX FROM GAME) the block's units and centres are changes to the
    game's position, and ``from_game`` plays them under the game's own victory settings."""
    data = sandbox_input(body)
    problems = data.pop("problems", [])
    if problems:
        return Lines(
            (
                T("SANDBOX: these lines are not 'Power: …' lines: {lines}", lines="; ".join(problems)),
                T("Write units as 'England: F nth, A lon', then ORDERS, then 'England: F nth - bel'."),
            )
        )
    if from_game is not None:
        if data["variant"] != "classic" or "phase" in data or "rules" in data:
            return Lines(
                (
                    T(
                        "SANDBOX FROM GAME: the game's variant, phase and rules edition are played; leave out the "
                        "variant, phase and rules line"
                    ),
                )
            )
        data.pop("variant")
        result = from_game(data)
    else:
        result = run(data)
    if result["error"]:
        return Lines((T("SANDBOX: {error}", error=result["error"]),))
    source = T("from game {game}", game=game or "") if from_game is not None else data["variant"]
    return Lines(tuple(_result_lines(result, source, with_points=from_game is not None)))


def _result_lines(result: dict[str, Any], source: Text | str, *, with_points: bool) -> list[Text | str | Row]:
    """The adjudicated phase: each order and what became of it, the units and centres after, the next phase."""
    lines: list[Text | str | Row] = [
        T("SANDBOX: {phase} ({source})", phase=result["phase"], source=source),
        T("Rules edition: {edition}", edition=result["rules"]),
    ]
    for r in result["results"]:
        text = r["order"] or r["input"]
        became = outcome_of(r)
        reason = f"({r['reason']})" if r["reason"] and became is not Outcome.SUCCEEDS else ""
        outcome = outcome_word(became) if became is not None else T(str(r["outcome"]))
        lines.append(Row(((T(r["power"]), 10), (f"{text}:", 0), (outcome, 0), (reason, 0)), indent="  ", trim=True))
    lines.append(T("Units after:"))
    for power, units in result["units"].items():
        lines.append(Row(((T(power), 10), (", ".join(units), 0)), indent="  "))
    for power, dislodged in result["dislodged"].items():
        for d in dislodged:
            places = ", ".join(d["retreats"])
            said = (
                T("{unit} dislodged; may retreat to {places}", unit=d["unit"], places=places)
                if places
                else T("{unit} dislodged; may retreat nowhere", unit=d["unit"])
            )
            lines.append(Row(((T(power), 10), (said, 0)), indent="  "))
    lines.append(T("Centres after:"))
    for power, centres in result["supply_centers"].items():
        lines.append(Row(((T(power), 10), (f"{len(centres):>2}: {', '.join(centres)}", 0)), indent="  "))
    if result.get("scores") and with_points and result.get("uses_points"):
        scores = ", ".join(f"{p} {n}" for p, n in result["scores"].items())
        lines.append(T("Points after: {scores}", scores=scores))
    if result["winner"]:
        lines.append(T("Next phase: {phase}; {winner} wins", phase=result["next_phase"], winner=T(result["winner"])))
    elif result.get("draw"):
        draw = [T(p) for p in result["draw"]]
        lines.append(T("Next phase: {phase}; a draw among {powers}", phase=result["next_phase"], powers=draw))
    else:
        lines.append(T("Next phase: {phase}", phase=result["next_phase"]))
    return lines


# The adjudicator's outcome names as a player reads them (the catalogs have these words).
