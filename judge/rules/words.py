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
