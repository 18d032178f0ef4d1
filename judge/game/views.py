"""What a game looks like to the game master's command line: one game in full, and the list of games."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database

from judge.facts import Bots
from judge.game.lookup import get_game
from judge.game.records import (
    Game,
    Player,
    game_names,
    orders_of,
    players,
)
from judge.rules.position_json import position_to_json
from judge.store.phases import phase_codes
from judge.store.statuses import GameStatus, Role
from judge.timeutil import iso_utc


def plays_bot(game: Game, seat: Player) -> bool:
    """Whether the stand-in bot plays this seat's power now: a power in civil disorder, in a game with ``bots``."""
    return (
        game.settings.bots is not Bots.NONE
        and seat.role == Role.PLAYER
        and seat.power is not None
        and seat.resigned
        and not seat.eliminated
    )


def show_game(db: Database, name: str) -> dict[str, Any]:
    game = get_game(db, name)
    board = position_to_json(game.variant, game.position) if game.position else {"units": {}, "supply_centers": {}}
    given = orders_of(db, game.id, game.phase) if game.phase else {}
    phases = phase_codes(db, game.id)
    return {
        "name": game.name,
        "variant": game.variant.key,
        "status": game.status,
        "phase": game.phase,
        "deadline": iso_utc(game.deadline) if game.deadline else None,
        "rules": game.settings.rules.value,  # the rules edition the game is adjudicated by
        "units": board["units"],
        "supply_centers": board["supply_centers"],
        "players": [
            {
                "power": p.power,
                "email": p.email,
                "ready": p.ready,
                "resigned": p.resigned,
                "eliminated": p.eliminated,
                "orders_submitted": bool(p.power and given.get(p.power)),
                "bot": plays_bot(game, p),
            }
            for p in players(db, game.id)
            if p.role == Role.PLAYER
        ],
        "result": game.result,
        "phases": phases + ([game.phase] if game.phase and game.status != GameStatus.FINISHED else []),
    }


def list_games(db: Database) -> list[dict[str, Any]]:
    out = []
    for name in game_names(db):
        game = get_game(db, name)
        out.append(
            {
                "name": game.name,
                "variant": game.variant.key,
                "status": game.status,
                "phase": game.phase,
                "deadline": iso_utc(game.deadline) if game.deadline else None,
            }
        )
    return out
