"""Fog of War in the game server: who sees what of a game whose variant has ``[rules] fog = true``, and the facts a
mail, HISTORY, a picture or the sandbox gets for one reader (docs/rules.md "Fog of War").

A reader is told by the powers he holds (``Sight.powers``): a player the powers of his seats, an observer none, and
the game master (or anyone once the game has ended, or in a game without fog) everything (``None``). The rule of what
a power sees is ``judge.rules.visibility``'s; this module applies it to the values the mail side renders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from judge.game.records import Game, Player, players
from judge.rules.board import Position
from judge.rules.position_json import position_to_json
from judge.rules.variant import Variant
from judge.rules.visibility import fogged, order_seen, visible_provinces
from judge.store.statuses import GameStatus, Role


def fog_on(game: Game) -> bool:
    """Whether ``game`` hides anything now: a Fog of War game that has not ended (its end shows the whole game)."""
    return game.variant.fog and game.status != GameStatus.FINISHED


def reader_powers(
    db: Database, game: Game, address: str | None, seats: Sequence[Player] | None = None
) -> tuple[str, ...] | None:
    """What ``address`` sees of ``game``: None for everything (no fog now, the game master, or no address: the host's
    command line); else the powers of its seats not given up (none: an observer, or anyone else, sees no board).
    ``seats``: the game's seats, when the caller has them."""
    if not fog_on(game) or address is None:
        return None
    address = address.lower()
    if game.settings.master and game.settings.master.lower() == address:
        return None
    order = {p: i for i, p in enumerate(game.variant.powers)}
    held = {
        p.power
        for p in (players(db, game.id) if seats is None else seats)
        if p.role == Role.PLAYER and p.power and p.email.lower() == address and not p.resigned
    }
    return tuple(sorted(held, key=lambda p: order.get(p, len(order))))


def viewer_key(powers: Sequence[str]) -> str:
    """The name a picture drawn for ``powers`` is kept under, after its phase (``S1901M France``)."""
    return "+".join(powers) if powers else "-"


@dataclass(frozen=True)
class Sight:
    """What the powers ``powers`` see of one phase: the provinces seen on the board before it and after it."""

    powers: tuple[str, ...]
    before: frozenset[int]
    after: frozenset[int]

    @property
    def either(self) -> frozenset[int]:
        return self.before | self.after


def sight(variant: Variant, powers: Sequence[str], before: Position, after: Position | None = None) -> Sight:
    """The provinces ``powers`` see before a phase and after it (the board ``after``; the same as before when the
    phase is the current one)."""
    seen_before = visible_provinces(variant.geo, before, powers) if powers else frozenset()
    if after is None:
        return Sight(tuple(powers), seen_before, seen_before)
    seen_after = visible_provinces(variant.geo, after, powers) if powers else frozenset()
    return Sight(tuple(powers), seen_before, seen_after)


def board_seen(variant: Variant, whole: Mapping[str, Any], seen: frozenset[int]) -> dict[str, Any]:
    """The board ``whole`` as JSON (judge.rules.position_json) with only what stands in ``seen``: units, dislodged
    units (with their retreats as the whole board allows them), standoffs and centres."""
    board = dict(whole)
    geo = variant.geo

    def here(name: str) -> bool:
        loc = geo.by_loc_name.get(name.split()[-1])
        return loc is not None and geo.loc_province[loc] in seen

    board["units"] = {p: kept for p, us in board["units"].items() if (kept := [u for u in us if here(u)])}
    board["dislodged"] = {
        p: kept for p, ds in board["dislodged"].items() if (kept := [d for d in ds if here(d["unit"])])
    }
    board["standoffs"] = [s for s in board["standoffs"] if here(s)]
    board["supply_centers"] = {
        p: kept for p, cs in board["supply_centers"].items() if (kept := [c for c in cs if here(c)])
    }
    return board


def lines_seen(variant: Variant, lines: Sequence[Mapping[str, Any]], seen: Sight) -> list[Mapping[str, Any]]:
    """The order lines of a phase that the powers of ``seen`` are shown: their own, and those of the units they saw
    before or after it (judge.rules.visibility.order_seen)."""
    mine = set(seen.powers)
    return [
        line for line in lines if line.get("power") in mine or order_seen(variant.geo, line.get("typed"), seen.either)
    ]


def tally_seen(tally: Sequence[Mapping[str, Any]], seen: Sight, variant: Variant) -> list[dict[str, Any]]:
    """The tally rows (judge.game.notices.tally) as the powers of ``seen`` read them: every power's counts (public),
    but another power's units only where they are seen, and its gains and losses only of centres seen."""
    geo = variant.geo
    seen_names = {geo.provinces[p].named for p in seen.either}
    mine = set(seen.powers)
    out = []
    for row in tally:
        if row["power"] in mine:
            out.append(dict(row))
            continue
        units = [u for u in row["unit_list"] if _loc_province(variant, u.split()[-1]) in seen.after]
        out.append(
            {
                **row,
                "gains": [g for g in row["gains"] if g in seen_names],
                "losses": [c for c in row["losses"] if c in seen_names],
                "unit_list": units,
            }
        )
    return out


def _loc_province(variant: Variant, name: str) -> int | None:
    loc = variant.geo.by_loc_name.get(name)
    return variant.geo.loc_province[loc] if loc is not None else None


def results_seen(
    variant: Variant, facts: Mapping[str, Any], before: Position, after: Position, powers: Sequence[str]
) -> dict[str, Any]:
    """A results mail's facts (judge.game.notices.results, summaries.phase_results) as the powers ``powers`` see the
    phase: the orders of the units they saw, the board after it where they see, the tally's units and centres
    seen."""
    seen = sight(variant, powers, before, after)
    flat = [line for lines in facts["results"].values() for line in lines]
    by_power: dict[str, list[Mapping[str, Any]]] = {}
    for line in lines_seen(variant, flat, seen):
        by_power.setdefault(line["power"], []).append(line)
    told = {
        **facts,
        "results": by_power,
        "board": board_seen(variant, facts.get("board") or position_to_json(variant, after), seen.after),
        "tally": tally_seen(facts["tally"], seen, variant),
        "fog": True,
    }
    neutral = facts.get("neutral")
    if neutral:  # the neutral units seen: what became of those seen before or after, those standing where seen
        told["neutral"] = {
            "fates": [n for n in neutral["fates"] if _loc_province(variant, n["unit"].split()[-1]) in seen.either],
            "after": [u for u in neutral["after"] if _loc_province(variant, u.split()[-1]) in seen.after],
        }
    return told


def position_seen(variant: Variant, pos: Position, powers: Sequence[str]) -> Position:
    """``pos`` as the powers ``powers`` see it (their sandbox's board): only what stands where they see."""
    return fogged(pos, visible_provinces(variant.geo, pos, powers) if powers else frozenset())
