"""What a body is read into: one typed item a command (or order line), and the problems of lines that could not be
read. The grammar (judge.commands.grammar) makes them; the handlers (judge.commands.handlers) act on them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from judge.facts import Shade
from judge.rules.words import Reason


@dataclass(frozen=True)
class _Located:
    line: int  # 1-based line number in the original text
    text: str  # the line as written, stripped (for a block: its first line)


@dataclass(frozen=True)
class SignOn(_Located):
    """``SIGNON France mygame secret``, or the classic ``SIGNON Fmygame secret`` (the power's initial, then the game).

    ``initial`` is true when ``power`` is one letter (upper-cased) that the server matches to a power's initial.
    """

    power: str
    game: str
    password: str  # "" when none is given (a mail signed with the seat's key needs none)
    initial: bool
    # ``SIGNON France mygame``: also (power, game) without a password, which a signed mail may mean; the classic
    # reading (initial F, game "rance", password "mygame") stays, and the seat that exists decides
    bare: tuple[str, str] | None = None


@dataclass(frozen=True)
class OrderLine(_Located):
    """A line that is not a command: the game server reads it as an order."""


@dataclass(frozen=True)
class Ready(_Located):
    """``READY`` (true) or ``NOT READY`` / ``UNREADY`` (false)."""

    ready: bool


@dataclass(frozen=True)
class Clear(_Located):
    """``CLEAR``: withdraw all of this power's orders for the current phase."""


DrawAction = Literal["propose", "accept", "reject"]


@dataclass(frozen=True)
class Draw(_Located):
    """``DRAW PROPOSE`` (or ``DRAW``), ``DRAW ACCEPT`` (or ``DRAW YES``), ``DRAW REJECT`` (or ``DRAW NO``).

    ``powers``: the powers a proposal names (``DRAW PROPOSE England France Russia``, names or initials as written);
    empty for a draw among every power still in the game."""

    action: DrawAction
    powers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Resign(_Located):
    """``RESIGN`` or ``SURRENDER``."""


@dataclass(frozen=True)
class Concede(_Located):
    """``CONCEDE``: a game of two powers ends with a win for the other power."""


@dataclass(frozen=True)
class Press(_Located):
    """``PRESS TO France, Germany`` … ``ENDPRESS`` (``to``: the names or initials as written, ``PRESS TO EG``) or
    ``BROADCAST`` … ``ENDPRESS`` (or ``PRESS TO ALL``).

    ``to`` is None for a broadcast (to everyone in the game). ``shade``: ``"grey"`` or ``"white"`` when the header
    asks for one (``PRESS TO EG GREY``), else None (the player's or the game's default). ``postal``: ``POSTAL PRESS``
    … ``ENDPRESS``, published to everyone with the next results.
    """

    to: tuple[str, ...] | None
    body: str
    shade: Shade | None = None
    postal: bool = False


@dataclass(frozen=True)
class Diary(_Located):
    """``DIARY`` … ``ENDDIARY``: an entry kept private until the game ends, then mailed to everyone."""

    body: str


@dataclass(frozen=True)
class SetKey(_Located):
    """``SET KEY``: register the public key in the message (armoured in the body, or attached) for the seat signed
    on to (or the game master's); ``SET KEY NONE`` (``remove``): remove it."""

    remove: bool


@dataclass(frozen=True)
class SetPress(_Located):
    """``SET PRESS GREY`` or ``SET PRESS WHITE``: the player's own default where the game allows both."""

    shade: Shade


@dataclass(frozen=True)
class Join(_Located):
    """``JOIN mygame secret [France Italy …]``: the game, a password, and the powers preferred, best first."""

    game: str
    password: str
    preferences: tuple[str, ...]


@dataclass(frozen=True)
class Observe(_Located):
    """``OBSERVE mygame``."""

    game: str


@dataclass(frozen=True)
class ListGames(_Located):
    """``LIST`` (all games, ``game`` None) or ``LIST mygame``."""

    game: str | None


@dataclass(frozen=True)
class History(_Located):
    """``HISTORY mygame`` or ``HISTORY mygame F1901M`` (``phase`` as a phase code)."""

    game: str
    phase: str | None


@dataclass(frozen=True)
class MyOrders(_Located):
    """``ORDERS``: the sender's orders for this phase and what is still owed, per power they hold."""


@dataclass(frozen=True)
class WhoGame(_Located):
    """``WHOGAME`` (the game signed on to) or ``WHOGAME mygame``: the powers and their players."""

    game: str | None


@dataclass(frozen=True)
class MyRecord(_Located):
    """``RECORD``: the record of the address the reply goes to (deadlines met and missed, resignations, …)."""


@dataclass(frozen=True)
class WhoIs(_Located):
    """``WHOIS someone@example.org``: a player's record, for the game master signed on (MASTER)."""

    email: str


@dataclass(frozen=True)
class Summary(_Located):
    """``SUMMARY`` or ``SUMMARY mygame``: centres per power per year, eliminations, takeovers."""

    game: str | None


@dataclass(frozen=True)
class GetFile(_Located):
    """``GET HELP``, ``GET RULES [mygame]``, ``GET <topic>``: a file the judge keeps, by mail."""

    topic: str  # lower case
    game: str | None


@dataclass(frozen=True)
class MapOf(_Located):
    """``MAP [mygame] [phase]``: the board picture of a phase (the current one when none is named)."""

    game: str | None
    phase: str | None


@dataclass(frozen=True)
class Sandbox(_Located):
    """``SANDBOX`` … ``ENDSANDBOX``: the lines between, for the server to read as a position and orders.
    ``SANDBOX FROM GAME name``: the lines are changes and orders from that game's current position."""

    body: str
    from_game: str | None = None


@dataclass(frozen=True)
class SetPassword(_Located):
    """``SET PASSWORD newsecret``."""

    password: str


@dataclass(frozen=True)
class SetTimezone(_Located):
    """``SET TIMEZONE Europe/Berlin`` (the zone keeps its case; the server checks that it exists)."""

    zone: str


@dataclass(frozen=True)
class SetLanguage(_Located):
    """``SET LANGUAGE ru`` (lower-cased; ``pt_BR`` becomes ``pt-br``)."""

    language: str


@dataclass(frozen=True)
class Help(_Located):
    """``HELP``."""


@dataclass(frozen=True)
class SignOff(_Located):
    """``SIGNOFF``: the message ends here."""


@dataclass(frozen=True)
class SetWait(_Located):
    """``SET WAIT`` (true: no resolution before the deadline or my READY) or ``SET NOWAIT`` (false)."""

    wait: bool


@dataclass(frozen=True)
class SetReminder(_Located):
    """``SET REMINDER 24h 2h`` (up to three lead times as written), ``SET REMINDER NONE`` or ``SET REMINDER DEFAULT``
    (the game's)."""

    words: tuple[str, ...]


@dataclass(frozen=True)
class SetCalendar(_Located):
    """``SET CALENDAR ON`` or ``SET CALENDAR OFF``: deadline invitations in the player's mail, or none."""

    on: bool


@dataclass(frozen=True)
class PhaseFor(_Located):
    """``PHASE F1901R`` (or ``PHASE Fall 1901 retreats``): the order lines after it are for that phase."""

    phase: str  # the phase code


@dataclass(frozen=True)
class SetAbsence(_Located):
    """``SET ABSENCE 2026-12-24 [TO 2027-01-02]`` (``last`` None: one day), or ``SET ABSENCE CLEAR`` (``first``
    None)."""

    first: date | None
    last: date | None


@dataclass(frozen=True)
class MasterSignOn(_Located):
    """``MASTER mygame secret``: sign on as the game master of a game (its master password)."""

    game: str
    password: str


@dataclass(frozen=True)
class CreateGame(_Located):
    """``CREATE mygame secret [variant=classic] [deadline=48h] [press=grey] [anonymous] …``: a new game by mail, the
    sender its game master with the password; ``options``: (key, value) as written, value None for a lone flag."""

    game: str
    password: str
    options: tuple[tuple[str, str | None], ...]


@dataclass(frozen=True)
class SetDeadline(_Located):
    """``SET DEADLINE +24h`` (later), ``SET DEADLINE -12h`` (earlier), ``SET DEADLINE 2026-12-05 18:00`` (a time in
    the game master's zone unless it has an offset): ``by`` (a duration as written) with ``shorten``, or ``to``."""

    by: str | None
    shorten: bool
    to: datetime | None


MasterAction = Literal["process", "pause", "resume"]


@dataclass(frozen=True)
class MasterControl(_Located):
    """``PROCESS`` (adjudicate now), ``PAUSE``, ``RESUME``: the game master's clock controls."""

    action: MasterAction


@dataclass(frozen=True)
class Eject(_Located):
    """``EJECT France``: the game master takes a power from its player."""

    power: str


@dataclass(frozen=True)
class Terminate(_Located):
    """``TERMINATE DRAW England France …`` (``draw``: the powers) or ``TERMINATE ABANDONED`` (``draw`` None)."""

    draw: tuple[str, ...] | None


@dataclass(frozen=True)
class ReplacePower(_Located):
    """``REPLACE France new@example.org secret``: the game master gives a power to another address."""

    power: str
    email: str
    password: str


@dataclass(frozen=True)
class TakeOver(_Located):
    """``TAKEOVER mygame France secret``: ask to play a power in civil disorder, with one's own password."""

    game: str
    power: str
    password: str


@dataclass(frozen=True)
class DecideTakeover(_Located):
    """``APPROVE France`` or ``REJECT France``: the game master's answer to a TAKEOVER that waits."""

    power: str
    approve: bool


Item = (
    SignOn
    | OrderLine
    | Ready
    | Clear
    | Draw
    | Resign
    | Concede
    | Press
    | Join
    | Observe
    | ListGames
    | History
    | MyOrders
    | WhoGame
    | MyRecord
    | WhoIs
    | Summary
    | GetFile
    | MapOf
    | Sandbox
    | SetPassword
    | SetTimezone
    | SetLanguage
    | SetWait
    | SetReminder
    | SetCalendar
    | PhaseFor
    | SetAbsence
    | Diary
    | SetPress
    | SetKey
    | Help
    | SignOff
    | MasterSignOn
    | CreateGame
    | SetDeadline
    | MasterControl
    | Eject
    | Terminate
    | ReplacePower
    | TakeOver
    | DecideTakeover
)


@dataclass(frozen=True)
class LineProblem(_Located):
    """A line that could not be read, and why (with the valid forms where they help): a :class:`Reason`, the English
    sentence that the reply words in the reader's language."""

    reason: Reason


@dataclass(frozen=True)
class ParsedBody:
    """The items of a message in message order, and the problems ordered by line."""

    items: tuple[Item, ...]
    problems: tuple[LineProblem, ...]
    forwarded: bool = False  # reading stopped at a forwarded message (which is not read)
    quoted_mail: bool = False  # reading stopped where a quoted message starts (its header block, Original Message …)
