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

What a body is read into is in judge.commands.items; each line outside a block is read by judge.commands.grammar.
The command language (those modules, ``arguments``, ``set_grammar``, ``master_grammar`` and this one) is pure: no
I/O, clock, database or printing. It never raises on a string, and its work is linear in the length of the text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from judge.commands.grammar import COMMAND_WORDS, Block, command_or_block, first_word, mask_secrets
from judge.commands.items import Diary, Item, LineProblem, OrderLine, ParsedBody, Press, Sandbox, SignOff
from judge.rules.words import Reason

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

# What the judge writes on its own mails (templates/_marker.txt.j2): nothing from it on is read.
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
# The Bat! puts the verb first and the date after it: "Вы писали 5 декабря 2026 г., 19:09:50:", "You wrote …:".
_ATTRIBUTION_WROTE = re.compile(
    r"(?:вы писали|ты писал[аи]?|you wrote|sie schrieben|du schriebst)\b.*\d.*:\Z", re.IGNORECASE
)
# A quoted line: ">" first, or the quoted writer's initials before it as The Bat! writes them ("JD> ", "J>",
# "JD>>", "ИП> "): one to three letters, the first a capital.
_INITIALS_QUOTE = re.compile(r"[^\W\d_]{1,3}>")
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
_PGP_KEY = "-----BEGIN PGP PUBLIC KEY BLOCK-----"
_PGP_KEY_END = "-----END PGP PUBLIC KEY BLOCK-----"
_PGP_SECRET = "-----BEGIN PGP PRIVATE KEY BLOCK-----"  # pasted by mistake: never read, never quoted back
_PGP_SECRET_END = "-----END PGP PRIVATE KEY BLOCK-----"
_EXCERPT = 60


def quoted(line: str) -> bool:
    """Whether a (stripped) line is quoted: ``> …``, or The Bat!'s ``JD> …``, ``J>…``, ``JD>> …``."""
    return line.startswith(">") or (line[:1].isupper() and _INITIALS_QUOTE.match(line) is not None)


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
        elif line and not quoted(line) and not _FOOTER.match(line) and r.command(number, line):
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
    KEY = "key"  # BEGIN … END PGP PUBLIC KEY BLOCK (SET KEY reads it from the message)


class _End(Enum):
    """What a line that is not the player's own text is."""

    STOP = "stop"  # a signature, a closing line, the judge's marker: nothing after it is read
    QUOTE = "quote"  # a quoted message starts (header block, Original Message, underscores): nothing after it is read
    FORWARD = "forward"  # a forwarded message starts: nothing after it is read, and the reply says so
    SKIP = "skip"  # an attribution above quoted lines (a bottom-posted or interleaved reply): only it is skipped


_ARMOUR = {
    _PGP_SIGNED: _Pgp.HASH_HEADERS,
    _PGP_SIGNATURE: _Pgp.SIGNATURE,
    _PGP_MESSAGE: _Pgp.ENCRYPTED,
    _PGP_KEY: _Pgp.KEY,
    _PGP_SECRET: _Pgp.KEY,
}


@dataclass
class _Reader:
    """What reading a body has found so far, and where it is (in a block, in PGP armour)."""

    items: list[Item] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    block: Block | None = None
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
        """Inline PGP: the armour lines, the signature and a public key block (SET KEY) are skipped (true), the
        signed text is read; an encrypted message cannot be read."""
        if self.pgp is _Pgp.HASH_HEADERS:
            if not line:
                self.pgp = _Pgp.SIGNED
            return True
        if self.pgp in (_Pgp.SIGNATURE, _Pgp.ENCRYPTED, _Pgp.KEY):
            if line in (_PGP_SIGNATURE_END, _PGP_MESSAGE_END, _PGP_KEY_END, _PGP_SECRET_END):
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
        result = command_or_block(number, line)
        if isinstance(result, Block):
            self.block = result
            if result.header_problem is not None:
                self.problems.append(LineProblem(number, line, result.header_problem))
        elif isinstance(result, LineProblem):
            self.problems.append(result)
        else:
            self.items.append(result)
        return isinstance(result, (SignOff, LineProblem)) and first_word(line) == "SIGNOFF"


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
    if not line or quoted(line):
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
    return _End.SKIP if quoted(next_text) else _End.QUOTE


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
    return (
        _ATTRIBUTION_ADDRESS.search(line) is not None
        or _ATTRIBUTION_OPENING.match(line) is not None
        or _ATTRIBUTION_WROTE.match(line) is not None
    )


_ORDER_LIKE = re.compile(
    r"(?:[AF]\s+\S|army\b|fleet\b|build\b|waive\b|remove\b|disband\b)|.*(?:\s-\s|->|=>|→)", re.IGNORECASE
)


def _signature_follows(lines: list[tuple[int, int, str]], index: int) -> bool:
    """After a closing line: at most three short lines (a name, a town, a phone number) and none that looks like an
    order or a command, up to the end of the message, a quote or the next end."""
    count = 0
    for k in range(index + 1, min(len(lines), index + 12)):
        following = tidy(lines[k][2]).strip()
        if not following or quoted(following):
            continue
        if _ends_message(following, lines, k, read_before=False) is not None:
            return True
        count += 1
        if count > 3 or _ORDER_LIKE.match(following) or first_word(following) in COMMAND_WORDS:
            return False
    return True


def _drop_wrapped_attribution(number: int, items: list[Item], block: Block | None) -> None:
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
    # The Bat!'s reply template greets the writer above the attribution: "Здравствуйте, Judge." / "Hello Judge,"
    if items and isinstance(items[-1], OrderLine) and number - 3 <= items[-1].line and _GREETING.match(items[-1].text):
        items.pop()


_GREETING = re.compile(
    r"(?:здравствуй(?:те)?|привет|добрый (?:день|вечер)|доброе утро|hello|hi|dear|hallo|guten tag|"
    r"sehr geehrte[rs]?)\b[^:]{0,40}[,.!]?\Z",
    re.IGNORECASE,
)


_OPENER = re.compile(r"(?:on|am|le|el|il|op|em|в|во)\s.*[\d@]", re.IGNORECASE)


def _starts_with_on(line: str) -> bool:
    """The first words of an attribution with its date or address: "On 30 Nov …", "Am 30.11. …", "Le …", "В …"."""
    return _OPENER.match(line) is not None


# --- blocks ---------------------------------------------------------------------------------------------------------


def _closes(line: str, end: str) -> bool:
    return len(line) <= 16 and "".join(line.split()).upper() == end


def _close(block: Block, items: list[Item], problems: list[LineProblem], *, terminated: bool) -> None:
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
