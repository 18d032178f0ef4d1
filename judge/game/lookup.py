"""Finding a game by name, and the error every refused request raises."""

from __future__ import annotations

from sqlite_utils import Database

from judge.game.records import (
    Game,
    load_game,
)
from judge.i18n import T


class GameError(Exception):
    """A request that cannot be carried out; the message says why and changes nothing."""


def get_game(db: Database, name: str) -> Game:
    game = load_game(db, name)
    if game is None:
        raise GameError(T("there is no game called {name}", name=repr(name)))
    return game
