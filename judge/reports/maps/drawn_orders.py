"""Reading the orders of a played phase, as the game server stores them, for drawing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judge.reports.maps.style import SUCCESS
from judge.rules.geography import Geography

# --- orders as the server stores them ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawnOrder:
    """One order read from its canonical text (``A par - bur``, ``F nth C A lon - nwy``, ``build F stp/nc``)."""

    power: str
    kind: str  # move | retreat | hold | support | convoy | build | disband
    loc: int  # the ordered unit's location (for build: where)
    target: int = -1  # supported / convoyed unit's location
    dest: int = -1  # where the unit (or the supported / convoyed unit) goes
    succeeded: bool = True


def read_order(geo: Geography, power: str, text: str | None, outcome: str | None) -> DrawnOrder | None:
    """The drawable order in ``text``, or None when there is nothing to draw (waive, no order, unknown words)."""
    words = text.split() if isinstance(text, str) else []
    ok = outcome == SUCCESS
    if not words:
        return None
    if words[0].lower() == "build" and len(words) >= 3:
        loc = geo.by_loc_name.get(words[2].lower())
        return None if loc is None else DrawnOrder(power, "build", loc, succeeded=ok)
    loc, rest = _unit_place(geo, words)
    if loc is None or not rest:
        return None
    verb = rest[0].lower()
    if verb == "h":
        return DrawnOrder(power, "hold", loc, succeeded=ok or outcome is None)
    if verb == "disband":
        return DrawnOrder(power, "disband", loc, succeeded=ok or outcome == "disbanded")
    if verb in ("-", "r") and len(rest) >= 2:
        dest = geo.by_loc_name.get(rest[1].lower())
        return (
            None
            if dest is None
            else DrawnOrder(power, "move" if verb == "-" else "retreat", loc, dest=dest, succeeded=ok)
        )
    if verb in ("s", "c"):
        target, more = _unit_place(geo, rest[1:])
        if target is None:
            return None
        dest = geo.by_loc_name.get(more[1].lower(), -1) if len(more) >= 2 and more[0] == "-" else -1
        if verb == "c" and dest < 0:
            return None
        return DrawnOrder(power, "support" if verb == "s" else "convoy", loc, target, dest, ok)
    return None


def _unit_place(geo: Geography, words: Sequence[str]) -> tuple[int | None, list[str]]:
    """The location of ``[A|F] place`` at the start of ``words``, and the words after it."""
    if words and words[0].upper() in ("A", "F") and len(words) >= 2:
        words = words[1:]
    if not words:
        return None, []
    return geo.by_loc_name.get(words[0].lower()), list(words[1:])
