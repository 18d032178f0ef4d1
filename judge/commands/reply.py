"""The answer to one message as values: what became of each line, and the longer notes below them.

Handlers return :class:`Answer` values (the line as quoted back, what became of it as a :class:`judge.i18n.Text`,
and whether that is an error); nothing here is English until :meth:`Reply.worded` words the whole reply once, in
the reader's language, for the reply template.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple

from judge.i18n import T, Text, translate
from judge.rules.words import Reason


class Verdict(Enum):
    """How a line fared: it took effect (or was answered), or it is an error and changed nothing."""

    OK = "ok"
    ERROR = "error"


@dataclass(frozen=True)
class Lines:
    """A longer answer of several lines, each worded on its own (a sandbox's position, a phase's results)."""

    lines: tuple[Text | Reason | str, ...]

    def worded(self, language: str) -> str:
        return "\n".join(translate(line, language) for line in self.lines)


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
