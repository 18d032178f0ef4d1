"""Finding a game by name, and the error every refused request raises."""

from __future__ import annotations

from sqlite_utils import Database

from judge.game.records import (
    Game,
    load_game,
)
from judge.i18n import T, Text
from judge.rules.words import Reason


class GameError(Exception):
    """A request that cannot be carried out, and changes nothing. ``why`` says why as a sentence not yet in any
    language (a :class:`Text`, or the engine's :class:`Reason`): a reply words it in its reader's language, the
    command line prints ``str(error)``, the English."""

    def __init__(self, why: Text | Reason) -> None:
        super().__init__(why)
        self.why = why


class Unchanged(GameError):
    """A request already carried out (a second eject, replace, pause, resume or end): nothing changed and nobody is
    mailed. The command line says ``nothing changed: …`` and exits 0; a reply gives ``why`` as its answer."""


def get_game(db: Database, name: str) -> Game:
    game = load_game(db, name)
    if game is None:
        raise GameError(T("there is no game called {name}", name=repr(name)))
    return game


def no_such_power(game: Game, name: str) -> Text:
    """Why ``name`` names no power of the game's variant, with the powers it has (each in the reader's words)."""
    return T(
        "{variant} has no power {name}; it has {powers}",
        variant=game.variant.title,
        name=repr(name),
        powers=[game.variant.power(p) for p in game.variant.powers],
    )


def unknown_variant(exc: KeyError) -> Text | Reason:
    """Why a variant could not be loaded, as the variant loader said it (``KeyError(Reason(…))``)."""
    why = exc.args[0] if exc.args else ""
    return why if isinstance(why, (Text, Reason)) else Reason(str(why))
