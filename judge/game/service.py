"""The game server's front door: the functions the command line, the command handler and the serve loop call, each
from the module that holds its concern —

- ``lookup``: finding a game, ``GameError``;
- ``setup``: creating, joining, observing, starting;
- ``controls``: pause, resume, rollback, replacing a seat;
- ``adjudication``: adjudicating a phase (the master's ``process``, everyone READY);
- ``scheduling``: reminders, grace and deadlines;
- ``views``: showing a game and the list of games;
- ``duties``: who owes orders;
- ``track_record``: a player's record across games.

Every function works inside the caller's transaction and takes ``now`` from the caller: nothing reads the clock.
Mail to players leaves as notices (values, judge.game.notices) that the mail side renders and queues.
"""

from __future__ import annotations

from judge.game.adjudication import adjudicate, maybe_adjudicate_when_ready, process_game, sides
from judge.game.controls import pause_game, replace_player, resume_game, rollback_game
from judge.game.duties import late_players, owing_powers
from judge.game.lookup import GameError, get_game
from judge.game.scheduling import due_games, remind, tick, tick_game
from judge.game.setup import create_game, join_game, observe_game, start_game
from judge.game.track_record import record_lines, record_of
from judge.game.views import list_games, show_game

__all__ = [
    "GameError",
    "adjudicate",
    "create_game",
    "due_games",
    "get_game",
    "join_game",
    "late_players",
    "list_games",
    "maybe_adjudicate_when_ready",
    "observe_game",
    "owing_powers",
    "pause_game",
    "process_game",
    "record_lines",
    "record_of",
    "remind",
    "replace_player",
    "resume_game",
    "rollback_game",
    "show_game",
    "sides",
    "start_game",
    "tick",
    "tick_game",
]
