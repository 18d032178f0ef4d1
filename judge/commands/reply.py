"""The answer to one message as values: what became of each line, and the longer notes below them.

Handlers return :class:`Answer` values (the line as quoted back, what became of it as a :class:`judge.i18n.Text`,
and whether that is an error); nothing here is English until :meth:`Reply.worded` words the whole reply once, in
the reader's language, for the reply template.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, NamedTuple

from judge.i18n import T, Text, translate
from judge.rules.words import Named, Reason
from judge.timeutil import format_deadline


class Verdict(Enum):
    """How a line fared: it took effect (or was answered), or it is an error and changed nothing."""

    OK = "ok"
    ERROR = "error"


@dataclass(frozen=True)
class Row:
    """A line of columns (LIST): each cell worded, then padded to its width (0: as it is); a list is joined ", "."""

    cells: tuple[tuple[Text | Reason | str | list[Text], int], ...]
    indent: str = ""
    trim: bool = False  # drop the spaces the padding left at the end

    def worded(self, language: str) -> str:
        text = self.indent + " ".join(_cell(value, language).ljust(width) for value, width in self.cells)
        return text.rstrip() if self.trim else text


def _cell(value: Text | Reason | str | list[Text], language: str) -> str:
    if isinstance(value, list):
        return ", ".join(translate(v, language) for v in value)
    return _as_is_or_worded(value, language)


def _as_is_or_worded(value: Text | Reason | str, language: str) -> str:
    """A Text or Reason worded in ``language``, a variant's name (a power) in its word for ``language``; a plain
    string (an address, an order) as it is."""
    return translate(value, language) if isinstance(value, (Text, Reason, Named)) else value


@dataclass(frozen=True)
class DeadlineLine:
    """``Deadline: <when>``, the moment in the reader's zone and words, relative to ``now``."""

    at: datetime
    zone: str
    now: datetime

    def worded(self, language: str) -> str:
        return translate(T("Deadline: {when}", when=format_deadline(self.at, self.zone, self.now, language)), language)


@dataclass(frozen=True)
class Lines:
    """A longer answer of several lines, each worded on its own (a sandbox's position, a game's players)."""

    lines: tuple[Text | Reason | str | Row | DeadlineLine, ...]

    def worded(self, language: str) -> str:
        return "\n".join(
            line.worded(language) if isinstance(line, (Row, DeadlineLine)) else _as_is_or_worded(line, language)
            for line in self.lines
        )


# What a line or note says: a Text (or an engine's Reason) to word; a str only where it is already the reader's
# language (LIST, built for its reader) or no language at all (a position, a game's name).
Words = Text | Reason | str | Lines


def is_error(response: Words) -> bool:
    """Whether an answer is an error: the game server words its errors "ERROR: …"."""
    if isinstance(response, Lines):
        return False
    msgid = response.msgid if isinstance(response, (Text, Reason)) else response
    return msgid.startswith("ERROR")


@dataclass(frozen=True)
class Answer:
    """What became of one line of the message."""

    line: str  # the line as quoted back (never with a password in it)
    said: Words
    verdict: Verdict = Verdict.OK
    note: Words | None = None  # a longer answer below the lines (HELP, LIST, HISTORY, SANDBOX)

    @classmethod
    def of(cls, line: str, said: Words, note: Words | None = None) -> Answer:
        """An answer whose verdict follows from what it says (the game server's "ERROR: …" answers)."""
        return cls(line, said, Verdict.ERROR if is_error(said) else Verdict.OK, note)

    @classmethod
    def error(cls, line: str, reason: Words) -> Answer:
        return cls(line, T("ERROR: {reason}", reason=reason), Verdict.ERROR)


class WordedLine(NamedTuple):
    """One line of a worded reply, as the reply template reads it: ``for text, response, bad in reply.lines``."""

    text: str
    response: str
    bad: bool


@dataclass(frozen=True)
class WordedReply:
    lines: list[WordedLine]
    notes: list[str]


@dataclass
class Reply:
    """The reply to one message, built up answer by answer."""

    answers: list[Answer] = field(default_factory=list)
    notes: list[Words] = field(default_factory=list)  # notes not tied to a line (unread attachments, …)

    def add(self, answer: Answer) -> None:
        self.answers.append(answer)

    def worded(self, language: str) -> WordedReply:
        """The whole reply in ``language``: each line with its answer, then the notes (a line's note first)."""
        notes = [a.note for a in self.answers if a.note is not None] + self.notes
        return WordedReply(
            [WordedLine(a.line, _word(a.said, language), a.verdict is Verdict.ERROR) for a in self.answers],
            [_word(n, language) for n in notes],
        )


def _word(value: Any, language: str) -> str:
    return value.worded(language) if isinstance(value, Lines) else translate(value, language)
