"""Why an order is void or how it fared, as a typed value the mail side can word in any language.

A :class:`Reason` is a ``str`` (the English sentence, so the engine's callers and its tests read it as before) that
also keeps its message id — the English with ``{name}`` placeholders — and the parameters. The rules engine stays
pure: it never translates; ``judge.i18n.translate`` words a Reason from the catalogs. A reason without parameters is
a plain string whose text is its own message id.
"""

from __future__ import annotations

from typing import Any


class Reason(str):
    """``Reason("{power} may build only {count}", power=Name("France"), count=2)``. A tuple parameter is a choice:
    its items are joined with "or" (in the reader's language when worded)."""

    msgid: str
    params: tuple[tuple[str, Any], ...]

    def __new__(cls, msgid: str, **params: Any) -> Reason:
        shown = {k: " or ".join(map(str, v)) if isinstance(v, tuple) else v for k, v in params.items()}
        self = super().__new__(cls, msgid.format(**shown) if params else msgid)
        self.msgid = msgid
        self.params = tuple(params.items())
        return self


def Name(name: str) -> Reason:
    """A name the reader's language may have its own word for (a power): a Reason without parameters."""
    return Reason(name)


class Named(str):
    """A name a variant gives in several languages: the English (the string itself, so English sentences and logs
    read as before), each other language's word (``words``: language -> name) and, for a place, the abbreviation the
    player types (``abbr``), which a reader of another language sees beside the name ("Бургундия (bur)")."""

    words: tuple[tuple[str, str], ...]
    abbr: str

    def __new__(cls, english: str, words: tuple[tuple[str, str], ...] = (), abbr: str = "") -> Named:
        self = super().__new__(cls, english)
        self.words = words
        self.abbr = abbr
        return self

    def word(self, language: str) -> str:
        """The bare name in ``language`` (English where the variant gives none)."""
        return dict(self.words).get(language, str(self))

    def shown(self, language: str) -> str:
        """The name as a mail in ``language`` shows it: in English the name alone, in another language the name and,
        for a place, the abbreviation the player types beside it."""
        local = dict(self.words).get(language)
        if local is None or language == "en":
            return str(self)
        return f"{local} ({self.abbr})" if self.abbr else local
