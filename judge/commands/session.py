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
from judge.signatures.keys import JudgeKey
from judge.timeutil import format_moment


@dataclass(frozen=True)
class Signer:
    """The good signature of a message: the signer's key (primary fingerprint), when it was made (None inside an
    encrypted message: the library does not say), and the digest that marks it used."""

    fingerprint: str
    created: datetime | None
    digest: str


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
    signer: Signer | None = None  # the key whose good signature covers what is read of this message
    unknown_signer: str = ""  # the key ID a signature names that the judge has no key for ("" none)
    by_key: bool = False  # the player signed on by the seat's key (not by a password)
    master_by_key: bool = False  # the game master signed on by the master's key
    key_only: str = ""  # a game taking only signed mail that a password sign-on reached: only SET KEY acts
    master_key_only: str = ""  # the same for the game master's commands
    judge_key: JudgeKey | None = None  # the judge's own key (GET KEY; decrypting was done before)

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
    if s.key_only:
        raise GameError(key_only_text(s.key_only))
    s.game = service.get_game(db, s.game.name)
    player_id = s.player.id
    s.player = next(p for p in players(db, s.game.id) if p.id == player_id)
    return s.game, s.player


def reader_time(db: Database, s: Session, when: datetime) -> str:
    """A moment as the reader of the answer reads it: their zone and language (judge.timeutil.format_moment)."""
    prefs = user_settings(db, s.reply_to)
    return format_moment(when, prefs["timezone"], prefs["language"])


def key_only_text(game: str) -> Text:
    """Why a password sign-on to a game that takes only signed mail acts for nothing but SET KEY."""
    return T(
        "game {game} takes only mail signed with the seat's OpenPGP key; a password sign-on may only register "
        "it: SET KEY with your public key pasted below it or attached, then sign every mail with it "
        "(docs/signing.md: how, in Thunderbird, Mailvelope, K-9, mutt and Outlook)",
        game=game,
    )
