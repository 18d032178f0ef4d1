"""SANDBOX FROM GAME: a game's current position, then the player's changes and orders, played under the game's own
victory settings. The game is only read: nothing of it is written (its position, orders, draws stay as they are).

Changes replace a power's whole list: ``units`` (power -> units) and ``supply_centers`` (power -> centres), as in the
sandbox JSON (docs/sandbox.md); a centre given to one power is taken from whoever owned it in the game.
"""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database

from judge.game import fog
from judge.game.adjudication import sides
from judge.game.records import load_game
from judge.game.sandbox import InputError, _error, play_input
from judge.rules.position_json import PositionError, position_from_json, position_to_json, read_power
from judge.rules.variant import Variant
from judge.store.statuses import GameStatus


def from_game(db: Database, name: str, data: Any, reader: str | None = None) -> dict[str, Any]:
    """The sandbox result of ``data`` (changes and orders) played from game ``name``; never raises. ``reader``: the
    address the result goes to (None: the host's command line, which sees everything); in a Fog of War game that
    has not ended, a player's sandbox starts from the board as his powers see it, and nobody else's has a board."""
    try:
        if not isinstance(data, dict):
            raise InputError("the input must be a JSON object")
        for key in ("variant", "phase", "rules"):
            if data.get(key) is not None:
                raise InputError(f"a sandbox from a game plays the game's {key}; leave out {key!r}")
        game = load_game(db, name.strip())
        if game is None:
            shown = name.strip()
            raise InputError(f"there is no game {shown[:40]!r}{'…' if len(shown) > 40 else ''}")
        if game.position is None:
            raise InputError(f"game {game.name} has not started: it has no position yet")
        variant = game.variant
        powers = fog.reader_powers(db, game, reader)
        start = game.position
        if powers is not None:
            if not powers:
                raise InputError(f"game {game.name} is played in the fog of war: only its players see its board")
            start = fog.position_seen(variant, start, powers)
        base = _changed(variant, position_to_json(variant, start), data)
        pos = position_from_json(variant, base)
        # an anonymous game that runs keeps who holds which powers to itself: each power counts alone here
        hidden = game.settings.anonymous and game.status != GameStatus.FINISHED
        held = () if hidden else sides(db, game)
        return play_input(
            data.get("id"), variant, pos, data, game.settings.victory(variant), held, edition=game.settings.rules
        )
    except (InputError, PositionError) as exc:
        return _error(None, str(exc))
    except (RecursionError, MemoryError):
        return _error(None, "the input is too large or too deeply nested")
    except Exception as exc:  # noqa: BLE001 - a sandbox input must never crash the judge
        return _error(None, f"the judge could not play this input ({type(exc).__name__}); please report it")


def _changed(variant: Variant, base: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """The game's board ``base`` (as JSON) with the changes of ``data``: each power named gets its whole list."""
    for key in ("units", "supply_centers"):
        changes = data.get(key) or {}
        if not isinstance(changes, dict):
            raise InputError(f"{key} must be an object: power -> list")
        for power_name, items in changes.items():
            power = read_power(variant, power_name, key)
            if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
                raise InputError(f"{key} of {power} must be a list of strings")
            if key == "supply_centers":
                taken = {x.strip().lower() for x in items}
                for other, held in base[key].items():
                    base[key][other] = [c for c in held if c.lower() not in taken]
            base[key][power] = items
    return base
