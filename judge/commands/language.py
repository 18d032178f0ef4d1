"""From the body of a player's email to commands, order lines and problems, each with its line number.

The command language is line based: a line whose first word is a command word (in any case) is a command, any
other line is an order line for the game server to read with the rules engine. ``PRESS``/``BROADCAST``/``POSTAL
PRESS`` … ``ENDPRESS``, ``DIARY`` … ``ENDDIARY`` and ``SANDBOX`` … ``ENDSANDBOX`` enclose blocks whose lines are kept
as written.

What real mail programs add is not read: the message ends at ``SIGNOFF``, a signature (``--``, or a closing line
with a short signature under it), the judge's own marker (``[judge-mail]``, on top of every mail it sends), a quoted
message (its Outlook header block, ``-----Original Message-----``, a line of underscores, an attribution over
unquoted text) or a forwarded message. Lines quoted with ``>`` are skipped, and so is an attribution over them, so
bottom-posted and interleaved replies are read. Client footers and PGP armour are skipped quietly (the signed text is
read, dash-escaping undone); list markers and invisible characters are dropped. See docs/commands.md, docs/mail.md.

This module is pure: no I/O, clock, database or printing. It never raises on a string, and its work is linear in
the length of the text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import Enum
from typing import Literal

from judge.facts import is_game_name
from judge.rules.phase import Phase
from judge.rules.words import Reason

# --- what a body is read into ---------------------------------------------------------------------------------------


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
    password: str
    initial: bool


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
PressShade = Literal["white", "grey"]  # signed, or without the sender's name


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
class Press(_Located):
    """``PRESS TO France, Germany`` … ``ENDPRESS`` (``to``: the names or initials as written, ``PRESS TO EG``) or
    ``BROADCAST`` … ``ENDPRESS`` (or ``PRESS TO ALL``).

    ``to`` is None for a broadcast (to everyone in the game). ``shade``: ``"grey"`` or ``"white"`` when the header
    asks for one (``PRESS TO EG GREY``), else None (the player's or the game's default). ``postal``: ``POSTAL PRESS``
    … ``ENDPRESS``, published to everyone with the next results.
    """

    to: tuple[str, ...] | None
    body: str
    shade: PressShade | None = None
    postal: bool = False


@dataclass(frozen=True)
class Diary(_Located):
    """``DIARY`` … ``ENDDIARY``: an entry kept private until the game ends, then mailed to everyone."""

    body: str


@dataclass(frozen=True)
class SetPress(_Located):
    """``SET PRESS GREY`` or ``SET PRESS WHITE``: the player's own default where the game allows both."""

    shade: PressShade


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
    | Press
    | Join
    | Observe
    | ListGames
    | History
    | MyOrders
    | WhoGame
    | Summary
    | GetFile
    | MapOf
    | Sandbox
    | SetPassword
    | SetTimezone
    | SetLanguage
    | SetWait
    | PhaseFor
    | SetAbsence
    | Diary
    | SetPress
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


# --- the body -------------------------------------------------------------------------------------------------------

_BREAK = re.compile(r"\r\n|\r|\n")
_NON_SPACE = re.compile(r"\S")
# C0 and C1 control characters except the tab, and the Unicode line and paragraph separators.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
# Invisible format characters pasted from web pages and word processors (soft hyphen, zero-width space and joiners,
# direction marks, word joiner, BOM) are removed; the other Unicode spaces (NBSP …) are spaces.
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")
_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
# The start of a list item: - * • · ‣ ◦ ▪ ► – — or 1. 2) (a)
_LIST_MARKER = re.compile(r"(?:[-*+•·‣◦▪▸►–—]|\(?\d{1,2}[.)]|\(?[a-z][)])\s+(?=\S)", re.IGNORECASE)

# What the judge writes on its own mails (templates/<language>/_marker.txt): nothing from it on is read.
JUDGE_MARKER = "[judge-mail]"

_ORIGINAL = re.compile(
    r"-{2,}\s*(?:original message|исходное сообщение|ursprüngliche nachricht|originalnachricht|message d'origine|"
    r"message original|mensaje original|messaggio originale|oorspronkelijk bericht|originalmeddelande|"
    r"mensagem original)\s*-{2,}",
    re.IGNORECASE,
)
_FORWARD = re.compile(
    r"(?:-{2,}\s*(?:forwarded message|weitergeleitete nachricht|message transféré|пересылаемое сообщение|"
    r"переадресованное сообщение|mensaje reenviado|messaggio inoltrato|doorgestuurd bericht|"
    r"vidarebefordrat meddelande|mensagem encaminhada)\s*-{2,}|"
    r"(?:begin forwarded message|anfang der weitergeleiteten nachricht|début du message réexpédié|"
    r"начало переадресованного сообщения|inicio del mensaje reenviado|inizio messaggio inoltrato)\s*:)",
    re.IGNORECASE,
)
_UNDERSCORES = re.compile(r"_{8,}")
_ATTRIBUTION_VERB = re.compile(
    r"\b(?:wrote|writes|schrieb|a écrit|пишет|написал|написала|написал\(а\)|escribió|ha scritto|scrisse|schreef|"
    r"escreveu|skrev|napisał|napisała)\s*:\Z",
    re.IGNORECASE,
)
_ATTRIBUTION_ADDRESS = re.compile(r"@[^\s<>@]+>\s*:\Z")
# Some clients put the verb first: "Am 01.12.2026 10:00, schrieb Alice:" (Roundcube), "Le … , Alice a écrit :".
_ATTRIBUTION_OPENING = re.compile(
    r"(?:on|am|le|el|il|op|em|den|в|во)\s.*\d.*\b(?:wrote|schrieb|a écrit|escribió|"
    r"ha scritto|schreef|escreveu|skrev|пишет|написал|написала)\b.{0,80}:\Z",
    re.IGNORECASE,
)
_DATE_OR_ADDRESS = re.compile(r"[\d@]")
# An Outlook/Exchange header block of a quoted message: From: …, then Sent:/Date:/To:/Subject: … (en, de, fr, ru,
# es, it, nl, pt, sv); a label may be bold (*From:*) and Outlook on the web puts the whole block on one line.
_HEADER_FROM = re.compile(r"\*?(?:from|von|de|от|da|van|fra|från|od)\s*:\*?\s*\S", re.IGNORECASE)
_HEADER_OTHER = re.compile(
    r"\*?(?:sent|date|to|cc|subject|gesendet|datum|an|betreff|envoyé|date d'envoi|à|objet|отправлено|дата|кому|"
    r"копия|тема|enviado|fecha|para|asunto|inviato|data|a|oggetto|verzonden|aan|onderwerp|skickat|till|ämne|"
    r"assunto)\s*:",
    re.IGNORECASE,
)
_HEADER_INLINE = re.compile(
    r"\s\*?(?:sent|gesendet|envoyé|отправлено|enviado|inviato|subject|betreff|objet|тема|"
    r"asunto|oggetto)\s*:",
    re.IGNORECASE,
)
# Client footers, skipped quietly wherever they are.
_FOOTER = re.compile(
    r"(?:sent (?:from|with|via|using|by) |sent on the go|get outlook for |download outlook for |"
    r"holen sie sich outlook für |outlook für (?:android|ios)|von meinem |gesendet von |gesendet mit |"
    r"diese nachricht wurde von meinem |envoyé de mon |envoyé depuis |envoyé à partir de |obtenir outlook pour |"
    r"télécharger outlook pour |отправлено (?:с|из|со) |получить outlook для |скачать outlook для |"
    r"enviado desde |enviado do meu |enviado con |obtener outlook para |descargar outlook para |inviato da |"
    r"inviato dal mio |scarica outlook per |ottieni outlook per |verzonden (?:vanaf|met|van) |verstuurd (?:vanaf|met) |"
    r"skickat från |"
    r"yahoo mail: |sent from yahoo mail|get the yahoo mail app)",
    re.IGNORECASE,
)
# Mailing-list footers: nothing after them is the player's.
_LIST_FOOTER = re.compile(
    r"(?:you received this message because you are subscribed|to unsubscribe from this group|"
    r"du erhältst diese nachricht, weil du|sie erhalten diese nachricht, weil sie|vous recevez ce message car vous|"
    r"вы получили это сообщение, поскольку)",
    re.IGNORECASE,
)
# A closing line alone ("Cheers,", "Viele Grüße") starts the signature: nothing from it on is read.
_CLOSING = re.compile(
    r"(?:cheers|thanks|thank you|many thanks|regards|best regards|kind regards|warm regards|best wishes|best|"
    r"yours|all the best|viele grüße|beste grüße|liebe grüße|freundliche grüße|mit freundlichen grüßen|grüße|gruß|"
    r"mfg|lg|vg|danke|cordialement|bien à vous|bien cordialement|bonne journée|merci|amitiés|salutations|"
    r"saludos|un saludo|atentamente|gracias|saluti|cordiali saluti|grazie|distinti saluti|с уважением|"
    r"спасибо|всего доброго|всего хорошего|удачи|пока)\s*[,.!]*",
    re.IGNORECASE,
)
_PGP_SIGNED = "-----BEGIN PGP SIGNED MESSAGE-----"
_PGP_SIGNATURE = "-----BEGIN PGP SIGNATURE-----"
_PGP_SIGNATURE_END = "-----END PGP SIGNATURE-----"
_PGP_MESSAGE = "-----BEGIN PGP MESSAGE-----"
_PGP_MESSAGE_END = "-----END PGP MESSAGE-----"
_EXCERPT = 60


def tidy(line: str) -> str:
    """A line with invisible format characters removed and Unicode spaces made plain spaces."""
    return _SPACES.sub(" ", _INVISIBLE.sub("", line))


def parse_body(text: str, *, max_lines: int = 1000, max_line_length: int = 1000) -> ParsedBody:
    """Read the body of one email: commands and order lines as items, unreadable lines as problems.

    At most ``max_lines`` lines are read (blank and quoted lines count); a line longer than ``max_line_length``
    characters (after stripping) or with control characters in it is a problem, not an item.
    """
    if text.startswith("\ufeff"):  # a byte-order mark left by the mail client
        text = text[1:]
    lines = list(itertools.islice(_lines(text), max_lines + 1))
    r = _Reader()
    for index, (number, start, raw) in enumerate(lines):
        if number > max_lines:
            r.cut_short(_beyond_limit(text, start, number, max_lines))
            break
        line = tidy(raw).strip()
        if r.armour(number, line):
            continue
        if r.pgp is _Pgp.SIGNED and line.startswith("- "):  # dash-escaped signed text
            line = line[2:].strip()
            raw = raw.replace("- ", "", 1)
        unreadable = _unreadable(number, line, max_line_length)
        if unreadable is not None:
            r.problems.append(unreadable)
            r.block_unreadable(number)
            continue
        # a closing line inside a press is part of the press: only a signature after the orders ends the message
        end = _ends_message(line, lines, index, read_before=bool(r.items) and r.block is None)
        if end is not None and end is not _End.SKIP:
            r.forwarded, r.quoted_mail = end is _End.FORWARD, end is _End.QUOTE
            _drop_wrapped_attribution(number, r.items, r.block)
            break
        if end is _End.SKIP:  # an attribution above quoted lines (it ends a forgotten block, and is not press)
            _drop_wrapped_attribution(number, r.items, r.block)
            r.close_block(terminated=False)
        elif r.block is not None:
            r.block_line(number, line, raw)
        elif line and not line.startswith(">") and not _FOOTER.match(line) and r.command(number, line):
            break  # even a SIGNOFF with words after it ends the message
    r.close_block(terminated=False)
    r.problems.sort(key=lambda p: p.line)
    return ParsedBody(tuple(r.items), tuple(r.problems), r.forwarded, r.quoted_mail)


class _Pgp(Enum):
    """Where the reader is in inline PGP armour."""

    OUTSIDE = "outside"
    HASH_HEADERS = "hash headers"  # after BEGIN PGP SIGNED MESSAGE, up to the blank line
    SIGNED = "signed"  # the signed text: lines starting "- " are dash-escaped
    SIGNATURE = "signature"  # BEGIN … END PGP SIGNATURE
    ENCRYPTED = "encrypted"  # BEGIN … END PGP MESSAGE


class _End(Enum):
    """What a line that is not the player's own text is."""

    STOP = "stop"  # a signature, a closing line, the judge's marker: nothing after it is read
    QUOTE = "quote"  # a quoted message starts (header block, Original Message, underscores): nothing after it is read
    FORWARD = "forward"  # a forwarded message starts: nothing after it is read, and the reply says so
    SKIP = "skip"  # an attribution above quoted lines (a bottom-posted or interleaved reply): only it is skipped


_ARMOUR = {_PGP_SIGNED: _Pgp.HASH_HEADERS, _PGP_SIGNATURE: _Pgp.SIGNATURE, _PGP_MESSAGE: _Pgp.ENCRYPTED}


@dataclass
class _Reader:
    """What reading a body has found so far, and where it is (in a block, in PGP armour)."""

    items: list[Item] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    block: _Block | None = None
    forwarded: bool = False
    quoted_mail: bool = False
    pgp: _Pgp = _Pgp.OUTSIDE

    def block_unreadable(self, number: int) -> None:
        """A line of the open block could not be read: the block is not sent or run."""
        if self.block is not None and self.block.unreadable is None:
            self.block.unreadable = number

    def cut_short(self, problem: LineProblem | None) -> None:
        """The message is longer than the judge reads."""
        if problem is not None:
            self.problems.append(problem)
            self.block_unreadable(problem.line)

    def armour(self, number: int, line: str) -> bool:
        """Inline PGP: the armour lines and the signature are skipped (true), the signed text is read; an encrypted
        message cannot be read."""
        if self.pgp is _Pgp.HASH_HEADERS:
            if not line:
                self.pgp = _Pgp.SIGNED
            return True
        if self.pgp is _Pgp.SIGNATURE or self.pgp is _Pgp.ENCRYPTED:
            if line in (_PGP_SIGNATURE_END, _PGP_MESSAGE_END):
                self.pgp = _Pgp.OUTSIDE
            return True
        state = _ARMOUR.get(line)
        if state is None:
            return False
        self.pgp = state
        if state is _Pgp.ENCRYPTED:
            reason = Reason(
                "an encrypted (PGP) message cannot be read; send your orders in clear text (a PGP signature is fine)"
            )
            self.problems.append(LineProblem(number, line, reason))
        return True

    def block_line(self, number: int, line: str, raw: str) -> None:
        """A line inside the open block: its end, or a line of its body."""
        assert self.block is not None
        if _closes(line, self.block.end):
            self.close_block(terminated=True)
        else:
            self.block.body.append((number, raw.rstrip()))

    def close_block(self, *, terminated: bool) -> None:
        if self.block is not None:
            _close(self.block, self.items, self.problems, terminated=terminated)
            self.block = None

    def command(self, number: int, line: str) -> bool:
        """A line outside a block: a command, a block's start, an order line or a problem. True: SIGNOFF, stop."""
        marker = _LIST_MARKER.match(line)
        if marker:
            line = line[marker.end() :]
        result = _command(number, line)
        if isinstance(result, _Block):
            self.block = result
            if result.header_problem is not None:
                self.problems.append(LineProblem(number, line, result.header_problem))
        elif isinstance(result, LineProblem):
            self.problems.append(result)
        else:
            self.items.append(result)
        return isinstance(result, (SignOff, LineProblem)) and _first_word(line) == "SIGNOFF"


def _lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(line number, offset of the line in ``text``, the line) for each line, lazily; CRLF, CR and LF all end one."""
    number, start = 0, 0
    for brk in _BREAK.finditer(text):
        number += 1
        yield number, start, text[start : brk.start()]
        start = brk.end()
    if start < len(text):
        yield number + 1, start, text[start:]


def _excerpt(line: str) -> str:
    """A line made safe to quote back in a reply: control characters replaced, cut short when long."""
    line = _CONTROL.sub("\ufffd", line[: _EXCERPT + 1])
    return line if len(line) <= _EXCERPT else line[:_EXCERPT] + "…"


def mask_secrets(line: str) -> str:
    """A line as it may be quoted back: the password of a SIGNON, JOIN or SET PASSWORD line replaced by ****."""
    words = line.split()
    head = words[0].upper() if words else ""
    if head in ("SIGNON", "REPLACE", "TAKEOVER"):
        kept = words[:3] if len(words) >= 4 else words[:2] if len(words) == 3 else words[:1]
    elif head in ("MASTER", "CREATE"):
        kept = words[:2] if len(words) >= 3 else words[:1]
    elif head == "JOIN" or (head == "SET" and len(words) > 1 and words[1].upper().startswith("PASS")):
        kept = words[:2]
    else:
        return line
    return " ".join([*kept, "****"]) if len(words) > len(kept) else line


def _unreadable(number: int, line: str, max_line_length: int) -> LineProblem | None:
    shown = mask_secrets(line)
    if len(line) > max_line_length:
        return LineProblem(
            number,
            _excerpt(shown),
            Reason(
                "this line is longer than {count} characters and was not read; put one order or command on each line",
                count=max_line_length,
            ),
        )
    if _CONTROL.search(line):
        return LineProblem(
            number,
            _excerpt(shown),
            Reason(
                "this line contains control characters (such as NUL) and was not read; send the message as plain text"
            ),
        )
    return None


def _beyond_limit(text: str, start: int, number: int, max_lines: int) -> LineProblem | None:
    """The problem for a message longer than ``max_lines`` lines, on its first non-blank unread line (if any)."""
    found = _NON_SPACE.search(text, start)
    if found is None:
        return None
    gap = text[start : found.start()]
    number += gap.count("\n") + gap.count("\r") - gap.count("\r\n")
    end = _BREAK.search(text, found.start())
    line = mask_secrets(text[found.start() : end.start() if end else len(text)].strip())
    return LineProblem(
        number,
        _excerpt(line),
        Reason(
            "the message has more than {count} lines; the judge read the first {count} and none from here on",
            count=max_lines,
        ),
    )


def _ends_message(line: str, lines: list[tuple[int, int, str]], index: int, *, read_before: bool) -> _End | None:
    """Whether ``line`` (at ``index`` in ``lines``) ends what the player wrote, or is an attribution to skip.

    ``read_before``: something was read above the line (a closing line ends the message only after the orders).
    """
    if not line or line[0] == ">":
        return None
    if JUDGE_MARKER in line.lower():
        return _End.STOP
    if line[0] in "-_":
        return _rule_line(line)
    if _FORWARD.fullmatch(line):
        return _End.FORWARD
    if _LIST_FOOTER.match(line) or (read_before and _CLOSING.fullmatch(line) and _signature_follows(lines, index)):
        return _End.STOP
    if _HEADER_FROM.match(line) and _header_block(line, lines, index):
        return _End.QUOTE
    if line[-1] != ":" or not _attribution(line, lines, index):
        return None
    # Quoted lines next: a bottom-posted or interleaved reply, read on. Anything else is quoted text written
    # without ">" (or nothing at all): the end.
    next_text = next(
        (tidy(raw).strip() for _, _, raw in itertools.islice(lines, index + 1, index + 50) if tidy(raw).strip()), ""
    )
    return _End.SKIP if next_text.startswith(">") else _End.QUOTE


def _rule_line(line: str) -> _End | None:
    """A line starting with - or _: the signature dashes, an Original Message or Forwarded line, or underscores."""
    if line == "--":
        return _End.STOP
    if _ORIGINAL.fullmatch(line) or _UNDERSCORES.fullmatch(line):
        return _End.QUOTE
    if _FORWARD.fullmatch(line):
        return _End.FORWARD
    return None


def _header_block(line: str, lines: list[tuple[int, int, str]], index: int) -> bool:
    """A From: line (at ``index``) that starts the header block of a quoted message: on one line, or with Sent:,
    To:, Subject: … among the next lines."""
    if _HEADER_INLINE.search(line):
        return True
    following = [tidy(raw).strip() for _, _, raw in lines[index + 1 : index + 8]]
    return any(_HEADER_OTHER.match(f) for f in [f for f in following if f][:4])


def _attribution(line: str, lines: list[tuple[int, int, str]], index: int) -> bool:
    """A line ending in ":" that says who wrote what follows ("On … Alice <a@x> wrote:")."""
    if _ATTRIBUTION_VERB.search(line):
        # the date or address may be on the line before, when the client wrapped the attribution before the verb
        before = tidy(lines[index - 1][2]).strip() if index > 0 and len(line) < 40 else ""
        return _DATE_OR_ADDRESS.search(line) is not None or _starts_with_on(before)
    return _ATTRIBUTION_ADDRESS.search(line) is not None or _ATTRIBUTION_OPENING.match(line) is not None


_ORDER_LIKE = re.compile(
    r"(?:[AF]\s+\S|army\b|fleet\b|build\b|waive\b|remove\b|disband\b)|.*(?:\s-\s|->|=>|→)", re.IGNORECASE
)


def _signature_follows(lines: list[tuple[int, int, str]], index: int) -> bool:
    """After a closing line: at most three short lines (a name, a town, a phone number) and none that looks like an
    order or a command, up to the end of the message, a quote or the next end."""
    count = 0
    for k in range(index + 1, min(len(lines), index + 12)):
        following = tidy(lines[k][2]).strip()
        if not following or following.startswith(">"):
            continue
        if _ends_message(following, lines, k, read_before=False) is not None:
            return True
        count += 1
        if count > 3 or _ORDER_LIKE.match(following) or _first_word(following) in _COMMAND_WORDS:
            return False
    return True


def _drop_wrapped_attribution(number: int, items: list[Item], block: _Block | None) -> None:
    """Mail clients wrap a long attribution: ``On Mon, 30 Nov 2026 at 10:00, Alice <`` / ``alice@x.org> wrote:``.

    The first half, just read as an order line (or a press line), belongs to the attribution.
    """
    if block is not None:
        if block.body and block.body[-1][0] == number - 1 and _starts_with_on(block.body[-1][1].strip()):
            block.body.pop()
    elif (
        items and isinstance(items[-1], OrderLine) and items[-1].line == number - 1 and _starts_with_on(items[-1].text)
    ):
        items.pop()


_OPENER = re.compile(r"(?:on|am|le|el|il|op|em|в|во)\s.*[\d@]", re.IGNORECASE)


def _starts_with_on(line: str) -> bool:
    """The first words of an attribution with its date or address: "On 30 Nov …", "Am 30.11. …", "Le …", "В …"."""
    return _OPENER.match(line) is not None


# --- blocks ---------------------------------------------------------------------------------------------------------


@dataclass
class _Block:
    """A PRESS, BROADCAST, POSTAL PRESS, DIARY or SANDBOX block being read (mutable only while it is open)."""

    kind: str  # the word that opened it: PRESS, BROADCAST, POSTAL, DIARY or SANDBOX
    end: str  # ENDPRESS, ENDDIARY or ENDSANDBOX
    line: int
    text: str
    to: tuple[str, ...] | None = None
    header_problem: Reason | None = None  # the opening line was wrong: the block is read but nothing is done
    unreadable: int | None = None  # the first line inside that could not be read
    body: list[tuple[int, str]] = field(default_factory=list)  # (line number, line without trailing whitespace)
    from_game: str | None = None  # SANDBOX FROM GAME name
    shade: PressShade | None = None  # PRESS … GREY / WHITE
    postal: bool = False  # POSTAL PRESS


def _closes(line: str, end: str) -> bool:
    return len(line) <= 16 and "".join(line.split()).upper() == end


def _close(block: _Block, items: list[Item], problems: list[LineProblem], *, terminated: bool) -> None:
    sandbox, diary = block.end == "ENDSANDBOX", block.end == "ENDDIARY"
    if not terminated:
        problems.append(
            LineProblem(
                block.line,
                block.text,
                Reason(
                    "{kind} without {end}: the sandbox ran to the end of the message; end it with a line {end}"
                    if sandbox
                    else "{kind} without {end}: the diary entry ran to the end of the message; end it with a line {end}"
                    if diary
                    else "{kind} without {end}: the press ran to the end of the message; end it with a line {end}",
                    kind=block.kind,
                    end=block.end,
                ),
            )
        )
    if block.header_problem is not None:
        return
    lines = [body for _, body in block.body]
    while lines and not lines[-1]:
        lines.pop()
    first = next((i for i, body in enumerate(lines) if body), len(lines))
    body = "\n".join(lines[first:])
    if block.unreadable is not None:
        problems.append(
            LineProblem(
                block.line,
                block.text,
                Reason(
                    "this sandbox was not run because line {number} in it could not be read"
                    if sandbox
                    else "this diary entry was not kept because line {number} in it could not be read"
                    if diary
                    else "this press was not sent because line {number} in it could not be read",
                    number=block.unreadable,
                ),
            )
        )
    elif not body and block.from_game is None:
        problems.append(
            LineProblem(
                block.line,
                block.text,
                Reason(
                    "this sandbox is empty and was not run; put the text between {kind} and {end}"
                    if sandbox
                    else "this diary entry is empty and was not kept; put the text between {kind} and {end}"
                    if diary
                    else "this press is empty and was not sent; put the text between {kind} and {end}",
                    kind=block.kind,
                    end=block.end,
                ),
            )
        )
    elif sandbox:
        items.append(Sandbox(block.line, block.text, body, block.from_game))
    elif diary:
        items.append(Diary(block.line, block.text, body))
    else:
        items.append(Press(block.line, block.text, block.to, body, block.shade, block.postal))


# --- commands -------------------------------------------------------------------------------------------------------

_POWER = re.compile(r"[^\W\d_][\w-]*\Z")
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*\Z")
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*\Z")
_NAME_SEPARATORS = re.compile(r"[\s,;:]+")
_TO = re.compile(r"to:?", re.IGNORECASE)
_SHADES: dict[str, PressShade] = {"GREY": "grey", "GRAY": "grey", "WHITE": "white"}
_SHADE_TWICE = Reason("say GREY or WHITE, not both")
_ALL_ALONE = Reason("ALL stands alone: PRESS TO ALL goes to everyone")
_POSTAL_USAGE = Reason(
    "write POSTAL PRESS on its line (GREY or WHITE may follow), then the text, then ENDPRESS; "
    "it is published to everyone with the next results"
)

_SIGNON_USAGE = Reason(
    "SIGNON needs a power, a game and a password: SIGNON France mygame secret (or SIGNON Fmygame secret)"
)
_JOIN_USAGE = Reason(
    "JOIN needs a game and a password, then the powers you prefer if you like: JOIN mygame secret France Italy"
)
_OBSERVE_USAGE = Reason("OBSERVE needs the game: OBSERVE mygame")
_LIST_USAGE = Reason("LIST takes at most a game: LIST (all games) or LIST mygame")
_HISTORY_USAGE = Reason("HISTORY needs a game and may name a phase: HISTORY mygame or HISTORY mygame F1901M")
_DRAW_USAGE = Reason("DRAW takes PROPOSE, ACCEPT or REJECT (or YES, NO): DRAW PROPOSE, DRAW ACCEPT or DRAW REJECT")
_DRAW_NAMED_USAGE = Reason("DRAW PROPOSE may name the powers of the draw: DRAW PROPOSE England France Russia")
_SET_USAGE = Reason(
    "SET needs what to set and the new value: SET PASSWORD newsecret, SET TIMEZONE Europe/Berlin, SET LANGUAGE ru, "
    "SET WAIT, SET NOWAIT or SET ABSENCE 2026-12-24"
)
_PRESS_USAGE = Reason(
    "PRESS needs the powers it goes to: PRESS TO France, Germany (or BROADCAST for everyone), then the "
    "text, then a line ENDPRESS"
)


def _both(problem: Reason, usage: Reason) -> Reason:
    """A problem with the line, then the command's valid form."""
    return Reason("{problem}; {usage}", problem=problem, usage=usage)


def _not_a_power(word: str) -> Reason:
    return Reason("{name} is not a power name", name=repr(word))


_DRAW_ACTIONS: dict[str, DrawAction] = {
    "PROPOSE": "propose",
    "YES": "accept",
    "ACCEPT": "accept",
    "REJECT": "reject",
    "NO": "reject",
}
_BARE: dict[str, Callable[[int, str], Item]] = {
    "READY": lambda n, t: Ready(n, t, True),
    "UNREADY": lambda n, t: Ready(n, t, False),
    "CLEAR": Clear,
    "RESIGN": Resign,
    "SURRENDER": Resign,
    "HELP": Help,
    "SIGNOFF": SignOff,
}


def known_commands() -> list[str]:
    """Every command word the judge reads at the start of a line."""
    return sorted(
        {
            *_BARE,
            *_WITH_ARGUMENTS,
            "NOT READY",
            "PRESS",
            "BROADCAST",
            "SANDBOX",
            "ENDPRESS",
            "ENDSANDBOX",
            "POSTAL",
            "DIARY",
            "ENDDIARY",
        }
        - {"NOT"}
    )


def _first_word(line: str) -> str:
    return line.split(None, 1)[0].upper() if line.strip() else ""


def _command(number: int, line: str) -> Item | LineProblem | _Block:
    """One line outside a block: a command, the start of a block, a problem, or else an order line."""
    parts = line.split(None, 1)
    head, rest = parts[0].upper(), parts[1] if len(parts) > 1 else ""
    args = rest.split()
    if head == "NOT" and args and args[0].upper() == "READY":
        head, args = "NOT READY", args[1:]
    elif head == "END" and len(args) == 1 and args[0].upper() in ("PRESS", "SANDBOX", "DIARY"):
        head, args = "END" + args[0].upper(), []

    def problem(reason: Reason) -> LineProblem:
        return LineProblem(number, mask_secrets(line), reason)

    if head in _BARE or head == "NOT READY":
        if args:
            return problem(Reason("{command} takes nothing after it: write {command} alone on its line", command=head))
        return Ready(number, line, False) if head == "NOT READY" else _BARE[head](number, line)
    if head in ("ENDPRESS", "ENDSANDBOX", "ENDDIARY"):
        opener = {"ENDPRESS": ("PRESS", "BROADCAST"), "ENDSANDBOX": "SANDBOX", "ENDDIARY": "DIARY"}[head]
        return problem(Reason("{command} without {opener} before it: nothing to end here", command=head, opener=opener))
    if head in ("PRESS", "BROADCAST", "SANDBOX"):
        return _opening(head, args, number, line, rest)
    if head == "DIARY" or (head == "POSTAL" and (not args or args[0].upper() == "PRESS")):
        return _postal_or_diary(head, args, number, line)
    if head == "POSTAL":  # "Postal address: …" is no block: this line alone is refused
        return problem(_POSTAL_USAGE)
    parse = _WITH_ARGUMENTS.get(head)
    if parse is None:
        return OrderLine(number, line)
    result = parse(args)
    if isinstance(result, Reason):
        return problem(result)
    return result(number, line)


def _opening(head: str, args: list[str], number: int, line: str, rest: str) -> _Block:
    """The first line of a PRESS, BROADCAST or SANDBOX block (with the problem of a wrong one: the block is read to
    its end, and nothing is done)."""
    if head == "PRESS":
        return _press(number, line, rest.strip())
    if head == "BROADCAST" and len(args) == 1 and args[0].upper() in _SHADES:
        return _Block(head, "ENDPRESS", number, line, shade=_SHADES[args[0].upper()])
    if head == "SANDBOX" and len(args) == 3 and [a.upper() for a in args[:2]] == ["FROM", "GAME"]:
        return _Block(head, "ENDSANDBOX", number, line, from_game=args[2])
    if head == "SANDBOX" and args and args[0].upper() == "FROM":
        return _Block(
            head,
            "ENDSANDBOX",
            number,
            line,
            header_problem=Reason(
                "write SANDBOX FROM GAME and the game's name on its line, then your changes and ORDERS, then ENDSANDBOX"
            ),
        )
    end = "ENDPRESS" if head == "BROADCAST" else "ENDSANDBOX"
    header = (
        Reason(
            "{command} takes nothing after it: write {command} alone on its line, then the text, then {end}",
            command=head,
            end=end,
        )
        if args
        else None
    )
    return _Block(head, end, number, line, header_problem=header)


def _press(number: int, line: str, rest: str) -> _Block:
    """``PRESS [TO] <powers> [GREY|WHITE]``: names, initials (``EG``) or ``ALL``; the shade may come first or last."""
    words = [name for name in _NAME_SEPARATORS.split(rest) if name]
    shades = {_SHADES[w.upper()] for w in words if w.upper() in _SHADES}
    words = [w for w in words if w.upper() not in _SHADES]
    if words and _TO.fullmatch(words[0]):
        words = words[1:]
    names: tuple[str, ...] | None = tuple(words)
    header = None
    if len(shades) > 1:
        header = Reason("{usage}; this press was not sent", usage=_both(_SHADE_TWICE, _PRESS_USAGE))
    elif not words:
        header = Reason("{usage}; this press was not sent", usage=_PRESS_USAGE)
    elif any(w.upper() == "ALL" for w in words):
        if len(words) > 1:
            header = Reason("{usage}; this press was not sent", usage=_both(_ALL_ALONE, _PRESS_USAGE))
        names = None
    else:
        bad = next((name for name in words if not _POWER.match(name)), None)
        if bad is not None:
            header = Reason("{usage}; this press was not sent", usage=_both(_not_a_power(bad), _PRESS_USAGE))
    shade = next(iter(shades)) if len(shades) == 1 else None
    return _Block("PRESS", "ENDPRESS", number, line, to=names, header_problem=header, shade=shade)


def _postal_or_diary(head: str, args: list[str], number: int, line: str) -> _Block:
    """``POSTAL PRESS [GREY|WHITE]`` … ``ENDPRESS`` (to everyone, with the next results) or ``DIARY`` … ``ENDDIARY``.
    A wrong first line (``POSTAL`` alone, ``POSTAL PRESS`` with other words, ``DIARY`` with words after it) still opens
    the block (read to its end, nothing done), so no line of it is read as orders."""
    if head == "DIARY":
        header = (
            Reason(
                "{command} takes nothing after it: write {command} alone on its line, then the text, then {end}",
                command=head,
                end="ENDDIARY",
            )
            if args
            else None
        )
        return _Block(head, "ENDDIARY", number, line, header_problem=header)
    words = [w.upper() for w in args]
    shades = {_SHADES[w] for w in words[1:] if w in _SHADES}
    rest = [w for w in words[1:] if w not in _SHADES]
    good = bool(words) and words[0] == "PRESS" and len(shades) <= 1 and rest in ([], ["TO", "ALL"], ["ALL"])
    header = None if good else _POSTAL_USAGE
    shade = next(iter(shades)) if len(shades) == 1 else None
    return _Block(head, "ENDPRESS", number, line, header_problem=header, shade=shade, postal=True)


# Each takes the words after the command word and returns a maker of the item (given line number and text) or the
# reason it cannot be read.
_Maker = Callable[[int, str], Item]


def _game(word: str) -> str | None:
    return word.lower() if is_game_name(word) else None


def _not_a_game(word: str) -> Reason:
    return Reason(
        "{name} is not a game name: a game name is one word of letters (a-z), digits, - and _", name=repr(word)
    )


def _signon(args: list[str]) -> _Maker | Reason:
    if len(args) == 2:
        joined, password = args
        if len(joined) < 2 or not joined[0].isalpha():
            return _SIGNON_USAGE
        game = _game(joined[1:])
        if game is None:
            return _both(_not_a_game(joined[1:]), _SIGNON_USAGE)
        power = joined[0].upper()
    elif len(args) == 3:
        power, written_game, password = args
        if not _POWER.match(power):
            return _both(_not_a_power(power), _SIGNON_USAGE)
        game = _game(written_game)
        if game is None:
            return _both(_not_a_game(written_game), _SIGNON_USAGE)
        power = power.upper() if len(power) == 1 else power
    else:
        return _SIGNON_USAGE
    return lambda n, t: SignOn(n, t, power, game, password, len(power) == 1)


def _join(args: list[str]) -> _Maker | Reason:
    if len(args) < 2:
        return _JOIN_USAGE
    game = _game(args[0])
    if game is None:
        return _both(_not_a_game(args[0]), _JOIN_USAGE)
    password = args[1]
    preferences = tuple(name for name in _NAME_SEPARATORS.split(" ".join(args[2:])) if name)
    bad = next((name for name in preferences if not _POWER.match(name)), None)
    if bad is not None:
        return _both(_not_a_power(bad), _JOIN_USAGE)
    return lambda n, t: Join(n, t, game, password, preferences)


def _observe(args: list[str]) -> _Maker | Reason:
    if len(args) != 1:
        return _OBSERVE_USAGE
    game = _game(args[0])
    if game is None:
        return _not_a_game(args[0])
    return lambda n, t: Observe(n, t, game)


def _list(args: list[str]) -> _Maker | Reason:
    if len(args) > 1:
        return _LIST_USAGE
    if not args:
        return lambda n, t: ListGames(n, t, None)
    game = _game(args[0])
    if game is None:
        return _not_a_game(args[0])
    return lambda n, t: ListGames(n, t, game)


def _history(args: list[str]) -> _Maker | Reason:
    if not 1 <= len(args) <= 2:
        return _HISTORY_USAGE
    game = _game(args[0])
    if game is None:
        return _both(_not_a_game(args[0]), _HISTORY_USAGE)
    phase: str | None = None
    if len(args) == 2:
        try:
            phase = Phase.parse(args[1]).code
        except ValueError as err:
            return _both(_bad_phase(args[1], str(err)), _HISTORY_USAGE)
    return lambda n, t: History(n, t, game, phase)


def _bad_phase(word: str, why: str) -> Reason:
    """What the rules engine says of a phase code it cannot read, as a sentence the reply can word."""
    if "is not like" in why:
        return Reason("phase {code} is not like S1901M, F1901R or W1901A", code=repr(word))
    return Reason(
        "phase {code}: adjustments happen in Winter, movement and retreats in Spring and Fall", code=repr(word)
    )


def _draw(args: list[str]) -> _Maker | Reason:
    if not args:
        return lambda n, t: Draw(n, t, "propose")
    if len(args) > 1 and args[0].upper() == "PROPOSE":  # DRAW PROPOSE England France Russia (a game option)
        names = tuple(name for name in _NAME_SEPARATORS.split(" ".join(args[1:])) if name)
        bad = next((name for name in names if not _POWER.match(name)), None)
        if bad is not None:
            return _both(_not_a_power(bad), _DRAW_NAMED_USAGE)
        return lambda n, t: Draw(n, t, "propose", names)
    action = _DRAW_ACTIONS.get(args[0].upper()) if len(args) == 1 else None
    if action is None:
        return _DRAW_USAGE
    return lambda n, t: Draw(n, t, action)


def _set(args: list[str]) -> _Maker | Reason:
    what = args[0].upper() if args else ""
    if what in _MORE_SETTINGS:
        return _MORE_SETTINGS[what](args[1:])
    if what not in ("PASSWORD", "TIMEZONE", "LANGUAGE"):
        return _SET_USAGE
    if len(args) != 2:
        examples = {
            "PASSWORD": Reason("SET PASSWORD newsecret (one word, no spaces)"),
            "TIMEZONE": "SET TIMEZONE Europe/Berlin",
            "LANGUAGE": "SET LANGUAGE ru",
        }
        return Reason("SET {what} needs one value: {example}", what=what, example=examples[what])
    value = args[1]
    if what == "PASSWORD":
        return lambda n, t: SetPassword(n, t, value)
    if what == "TIMEZONE":
        if not _ZONE.match(value):
            return Reason(
                "{name} is not a time zone name: write it like Europe/Berlin, America/New_York or UTC", name=repr(value)
            )
        return lambda n, t: SetTimezone(n, t, value)
    if not _LANGUAGE.match(value):
        return Reason("{name} is not a language code: write it like en, ru or de", name=repr(value))
    language = value.lower().replace("_", "-")
    return lambda n, t: SetLanguage(n, t, language)


_WITH_ARGUMENTS: dict[str, Callable[[list[str]], _Maker | Reason]] = {
    "SIGNON": _signon,
    "JOIN": _join,
    "OBSERVE": _observe,
    "LIST": _list,
    "HISTORY": _history,
    "DRAW": _draw,
    "SET": _set,
    "PHASE": lambda args: _phase_for(args),
}
_COMMAND_WORDS = (
    frozenset(_BARE) | frozenset(_WITH_ARGUMENTS) | {"NOT", "PRESS", "BROADCAST", "SANDBOX", "POSTAL", "DIARY"}
)


# --- SET WAIT, SET NOWAIT, PHASE (early resolution and orders for a later phase) ------------------------------------

_PHASE_USAGE = Reason(
    "PHASE needs a later phase of the game, then its orders: PHASE F1901R or PHASE Fall 1901 retreats"
)
_SEASON_WORDS = {"SPRING": "S", "FALL": "F", "AUTUMN": "F", "WINTER": "W"}
_STEP_WORDS = {
    "MOVEMENT": "M",
    "MOVEMENTS": "M",
    "MOVES": "M",
    "RETREAT": "R",
    "RETREATS": "R",
    "ADJUSTMENT": "A",
    "ADJUSTMENTS": "A",
    "BUILDS": "A",
}


def _wait(wait: bool) -> Callable[[list[str]], _Maker | Reason]:
    def parse(args: list[str]) -> _Maker | Reason:
        if args:
            command = "SET WAIT" if wait else "SET NOWAIT"
            return Reason("{command} takes nothing after it: write {command} alone on its line", command=command)
        return lambda n, t: SetWait(n, t, wait)

    return parse


_MORE_SETTINGS: dict[str, Callable[[list[str]], _Maker | Reason]] = {
    "WAIT": _wait(True),
    "NOWAIT": _wait(False),
    "ABSENCE": lambda args: _absence(args),
    "PRESS": lambda args: _set_press(args),
}


def _set_press(args: list[str]) -> _Maker | Reason:
    """``SET PRESS GREY`` / ``SET PRESS WHITE``."""
    if len(args) != 1 or args[0].upper() not in _SHADES:
        return Reason("SET PRESS needs GREY or WHITE: SET PRESS GREY")
    shade = _SHADES[args[0].upper()]
    return lambda n, t: SetPress(n, t, shade)


def _phase_for(args: list[str]) -> _Maker | Reason:
    """``PHASE F1901R``; or the phase in words, ``PHASE Fall 1901 retreats`` (a Winter needs no third word)."""
    if len(args) == 1:
        code = args[0]
    elif len(args) in (2, 3) and args[0].upper() in _SEASON_WORDS and args[1].isdigit():
        season = _SEASON_WORDS[args[0].upper()]
        step = _STEP_WORDS.get(args[2].upper(), "?") if len(args) == 3 else ("A" if season == "W" else "M")
        code = f"{season}{args[1]}{step}"
    else:
        return _PHASE_USAGE
    try:
        phase = Phase.parse(code).code
    except ValueError as err:
        return _both(_bad_phase(" ".join(args), str(err)), _PHASE_USAGE)
    return lambda n, t: PhaseFor(n, t, phase)


_ABSENCE_USAGE = Reason(
    "SET ABSENCE needs the first day and may name the last: SET ABSENCE 2026-12-24 TO 2027-01-02 (or SET ABSENCE CLEAR)"
)


def _day(word: str) -> date | None:
    try:
        return date.fromisoformat(word) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", word) else None
    except ValueError:
        return None


def _absence(args: list[str]) -> _Maker | Reason:
    if len(args) == 1 and args[0].upper() == "CLEAR":
        return lambda n, t: SetAbsence(n, t, None, None)
    if len(args) not in (1, 3) or (len(args) == 3 and args[1].upper() != "TO"):
        return _ABSENCE_USAGE
    days = [_day(word) for word in args[::2]]
    for word, day in zip(args[::2], days, strict=True):
        if day is None:
            return _both(Reason("{word} is not a day written like 2026-12-24", word=repr(word)), _ABSENCE_USAGE)
    first, last = days[0], days[-1] if len(days) == 2 else None
    if last is not None and first is not None and last < first:
        return Reason("an absence ends on or after the day it starts")
    return lambda n, t: SetAbsence(n, t, first, last)


# --- information commands (reads) -----------------------------------------------------------------------------------

_GAME_ONLY_USAGE = {
    "WHOGAME": Reason("WHOGAME takes at most a game: WHOGAME or WHOGAME mygame"),
    "SUMMARY": Reason("SUMMARY takes at most a game: SUMMARY or SUMMARY mygame"),
}
_GET_USAGE = Reason("GET needs what to send: GET HELP, GET RULES mygame or GET ORDERS")
_MAP_USAGE = Reason("MAP may name a game and a phase: MAP, MAP mygame or MAP mygame F1901M")


def _my_orders(args: list[str]) -> _Maker | Reason:
    if args:
        return Reason("{command} takes nothing after it: write {command} alone on its line", command="ORDERS")
    return MyOrders


def _game_only(command: str, make: Callable[[int, str, str | None], Item]) -> Callable[[list[str]], _Maker | Reason]:
    def parse(args: list[str]) -> _Maker | Reason:
        if len(args) > 1:
            return _GAME_ONLY_USAGE[command]
        game = _game(args[0]) if args else None
        if args and game is None:
            return _both(_not_a_game(args[0]), _GAME_ONLY_USAGE[command])
        return lambda n, t: make(n, t, game)

    return parse


def _get(args: list[str]) -> _Maker | Reason:
    if not 1 <= len(args) <= 2 or not args[0].isalpha():
        return _GET_USAGE
    game = _game(args[1]) if len(args) == 2 else None
    if len(args) == 2 and game is None:
        return _both(_not_a_game(args[1]), _GET_USAGE)
    topic = args[0].lower()
    return lambda n, t: GetFile(n, t, topic, game)


def _phase_code(word: str) -> str | Reason:
    try:
        return Phase.parse(word).code
    except ValueError as err:
        return _bad_phase(word, str(err))


def _map(args: list[str]) -> _Maker | Reason:
    if len(args) > 2:
        return _MAP_USAGE
    game: str | None = None
    phase: str | None = None
    if len(args) == 1:  # a phase of the game signed on to, or a game's current phase
        code = _phase_code(args[0])
        if not isinstance(code, Reason):
            phase = code
        elif (game := _game(args[0])) is None:
            return _both(_not_a_game(args[0]), _MAP_USAGE)
    elif len(args) == 2:
        game = _game(args[0])
        if game is None:
            return _both(_not_a_game(args[0]), _MAP_USAGE)
        code = _phase_code(args[1])
        if isinstance(code, Reason):
            return _both(code, _MAP_USAGE)
        phase = code
    return lambda n, t: MapOf(n, t, game, phase)


_WITH_ARGUMENTS.update(
    {
        "ORDERS": _my_orders,
        "WHOGAME": _game_only("WHOGAME", WhoGame),
        "SUMMARY": _game_only("SUMMARY", Summary),
        "GET": _get,
        "MAP": _map,
    }
)
_COMMAND_WORDS = _COMMAND_WORDS | {"ORDERS", "WHOGAME", "SUMMARY", "GET", "MAP"}


# --- the game master by mail, civil disorder and TAKEOVER -----------------------------------------------------------

_MASTER_USAGE = Reason("MASTER needs a game and its master password: MASTER mygame secret")
_CREATE_USAGE = Reason(
    "CREATE needs a new game's name and a master password, then options if you like: "
    "CREATE mygame secret variant=classic deadline=48h press=grey"
)
_DEADLINE_USAGE = Reason(
    "SET DEADLINE needs a change or a time: SET DEADLINE +24h, SET DEADLINE -12h or SET DEADLINE 2026-12-05 18:00"
)
_EJECT_USAGE = Reason("EJECT needs a power: EJECT France")
_TERMINATE_USAGE = Reason("TERMINATE needs DRAW and the powers, or ABANDONED: TERMINATE DRAW England France")
_REPLACE_USAGE = Reason(
    "REPLACE needs a power, the new player's address and a password: REPLACE France new@example.org secret"
)
_TAKEOVER_USAGE = Reason("TAKEOVER needs a game, a power and your password: TAKEOVER mygame France secret")
_DURATION_WORD = re.compile(r"(?:\d{1,4}[A-Za-z]{1,7}){1,4}\Z")
_OPTION = re.compile(r"-{0,2}([A-Za-z][A-Za-z_-]*)(?:=(\S*))?\Z")


def _master_signon(args: list[str]) -> _Maker | Reason:
    if len(args) != 2:
        return _MASTER_USAGE
    game = _game(args[0])
    if game is None:
        return _both(_not_a_game(args[0]), _MASTER_USAGE)
    password = args[1]
    return lambda n, t: MasterSignOn(n, t, game, password)


def _create(args: list[str]) -> _Maker | Reason:
    if len(args) < 2:
        return _CREATE_USAGE
    game = _game(args[0])
    if game is None:
        return _both(_not_a_game(args[0]), _CREATE_USAGE)
    password = args[1]
    options: list[tuple[str, str | None]] = []
    for word in args[2:]:
        found = _OPTION.match(word)
        if found is None:
            return _both(Reason("{word} is not an option written like deadline=48h", word=repr(word)), _CREATE_USAGE)
        options.append((found.group(1), found.group(2)))
    kept = tuple(options)
    return lambda n, t: CreateGame(n, t, game, password, kept)


def _set_deadline(args: list[str]) -> _Maker | Reason:
    if not args:
        return _DEADLINE_USAGE
    if len(args) == 1 and args[0][:1] in "+-":
        by = args[0][1:]  # the server reads the duration (judge.timeutil.parse_duration)
        if not _DURATION_WORD.match(by):
            return _DEADLINE_USAGE
        shorten = args[0][0] == "-"
        return lambda n, t: SetDeadline(n, t, by, shorten, None)
    if len(args) > 2:
        return _DEADLINE_USAGE
    text = "T".join(args).replace("Z", "+00:00")
    try:
        to = datetime.fromisoformat(text)
    except ValueError:
        return _DEADLINE_USAGE
    return lambda n, t: SetDeadline(n, t, None, False, to)


def _control(action: MasterAction) -> Callable[[list[str]], _Maker | Reason]:
    def parse(args: list[str]) -> _Maker | Reason:
        if args:
            command = action.upper()
            return Reason("{command} takes nothing after it: write {command} alone on its line", command=command)
        return lambda n, t: MasterControl(n, t, action)

    return parse


def _eject(args: list[str]) -> _Maker | Reason:
    if len(args) != 1 or not _POWER.match(args[0]):
        return _EJECT_USAGE
    power = args[0]
    return lambda n, t: Eject(n, t, power)


def _terminate(args: list[str]) -> _Maker | Reason:
    how = args[0].upper() if args else ""
    if how == "ABANDONED" and len(args) == 1:
        return lambda n, t: Terminate(n, t, None)
    names = tuple(name for name in _NAME_SEPARATORS.split(" ".join(args[1:])) if name)
    if how != "DRAW" or not names:
        return _TERMINATE_USAGE
    bad = next((name for name in names if not _POWER.match(name)), None)
    if bad is not None:
        return _both(_not_a_power(bad), _TERMINATE_USAGE)
    return lambda n, t: Terminate(n, t, names)


def _replace(args: list[str]) -> _Maker | Reason:
    if len(args) != 3 or not _POWER.match(args[0]) or "@" not in args[1]:
        return _REPLACE_USAGE
    power, email, password = args
    return lambda n, t: ReplacePower(n, t, power, email, password)


def _takeover(args: list[str]) -> _Maker | Reason:
    if len(args) != 3:
        return _TAKEOVER_USAGE
    game = _game(args[0])
    if game is None:
        return _both(_not_a_game(args[0]), _TAKEOVER_USAGE)
    if not _POWER.match(args[1]):
        return _both(_not_a_power(args[1]), _TAKEOVER_USAGE)
    power, password = args[1], args[2]
    return lambda n, t: TakeOver(n, t, game, power, password)


def _decide(approve: bool) -> Callable[[list[str]], _Maker | Reason]:
    def parse(args: list[str]) -> _Maker | Reason:
        if len(args) != 1 or not _POWER.match(args[0]):
            command = "APPROVE" if approve else "REJECT"
            return Reason("{command} needs the power: {command} France", command=command)
        power = args[0]
        return lambda n, t: DecideTakeover(n, t, power, approve)

    return parse


_MORE_SETTINGS["DEADLINE"] = _set_deadline
_WITH_ARGUMENTS.update(
    {
        "MASTER": _master_signon,
        "CREATE": _create,
        "PROCESS": _control("process"),
        "PAUSE": _control("pause"),
        "RESUME": _control("resume"),
        "EJECT": _eject,
        "TERMINATE": _terminate,
        "REPLACE": _replace,
        "TAKEOVER": _takeover,
        "APPROVE": _decide(True),
        "REJECT": _decide(False),
    }
)
_COMMAND_WORDS = _COMMAND_WORDS | {
    "MASTER",
    "CREATE",
    "PROCESS",
    "PAUSE",
    "RESUME",
    "EJECT",
    "TERMINATE",
    "REPLACE",
    "TAKEOVER",
    "APPROVE",
    "REJECT",
}
