"""The state of one message being handled: who signed on, what changed, and what it has spent of its limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlite_utils import Database

from judge.game import service
from judge.game.records import Game, Player, players, user_settings
from judge.game.service import GameError
from judge.i18n import T, Text
from judge.mail.message import Incoming
from judge.timeutil import format_moment


@dataclass
class Session:
    """One message being handled. The handlers read and change it; it lives as long as the message's handling."""

    msg: Incoming
    now: datetime
    game: Game | None = None
    player: Player | None = None
    changed_orders: bool = False
    ready_changed: bool = False
    costly_reads: list[str] = field(default_factory=list)  # MAP and HISTORY answered (a few per message)
    quiet: bool = False  # the reply quota is spent: act on the message, answer nothing
    password_checks: int = 0  # scrypt verifications run for this message (at most one)
    password_hashes: int = 0  # new passwords hashed for this message (JOIN, SET PASSWORD; at most one)
    errors: list[Text] = field(default_factory=list)  # internal failures of single commands
    mentioned: str = ""  # the first game a command named (whose master hears of an internal error before a sign-on)
    future_phase: str | None = None  # PHASE …: the later phase the order lines that follow are kept for
    master_of: str | None = None  # MASTER (or CREATE): the game whose game master signed on in this message
    unproven: Text | None = None  # [judge] sender_check: why this mail acts for no seat (security.sender_unproven)

    @property
    def reply_to(self) -> str:
        """Where answers to this message go."""
        return self.msg.reply_to or self.msg.sender


def signed(db: Database, s: Session, *, setting: bool = False) -> tuple[Game, Player]:
    """The game and player signed on as, read afresh (an earlier line of the message may have changed them).

    ``setting``: the command is a SET (the error says that SET changes the player's settings)."""
    if s.game is None or s.player is None:
        raise GameError(
            T("sign on first (SET changes your settings): SIGNON <power> <game> <password>")
            if setting
            else T("sign on first: SIGNON <power> <game> <password>")
        )
    s.game = service.get_game(db, s.game.name)
    player_id = s.player.id
    s.player = next(p for p in players(db, s.game.id) if p.id == player_id)
    return s.game, s.player


def reader_time(db: Database, s: Session, when: datetime) -> str:
    """A moment as the reader of the answer reads it: their zone and language (judge.timeutil.format_moment)."""
    prefs = user_settings(db, s.reply_to)
    return format_moment(when, prefs["timezone"], prefs["language"])
