"""What the game server is given rather than reaches for: loading a variant by name, and the mail side that renders
and queues its notices.

The shell installs both once at start (``judge.wiring``); the game server only calls them. Until then a call fails
loudly, so a notice is never dropped in silence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlite_utils import Database

from judge.rules.variant import Variant

if TYPE_CHECKING:
    from judge.game.notices import Notice

VariantLoader = Callable[[str], Variant]
NoticeDelivery = Callable[[Database, "Sequence[Notice]", datetime], None]


class NotWired(RuntimeError):
    """The game server was used before the shell gave it a variant loader and a mail side."""


@dataclass(frozen=True)
class Ports:
    load_variant: VariantLoader
    deliver: NoticeDelivery


_installed: list[Ports] = []


def install(ports: Ports) -> None:
    """Give the game server its variant loader and mail side (again: the later one wins)."""
    _installed[:] = [ports]


def _ports() -> Ports:
    if not _installed:
        raise NotWired("the game server has no variant loader or mail side; import judge.wiring first")
    return _installed[0]


def load_variant(name: str) -> Variant:
    """The variant ``name`` (raises the loader's VariantError when there is none)."""
    return _ports().load_variant(name)


def deliver(db: Database, notices: Sequence[Notice], now: datetime) -> None:
    """Render and queue ``notices`` in the caller's transaction."""
    _ports().deliver(db, notices, now)
