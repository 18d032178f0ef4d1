"""The composition root: the one module that knows every side. Importing it gives the game server what it is given
rather than reaches for — variant loading (``judge.data.catalog``) and the mail side that renders and queues its
notices (``judge.reports.outbox``). Every entry point (the command line, the serve loop, the command handler)
imports it before it touches a game.

The mail side is imported when the first notice is delivered: rendering pulls in Jinja, Babel and Pillow, which a
command that only reads (``judge game show``) does without."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from judge.data.catalog import load_variant
from judge.game import ports

if TYPE_CHECKING:
    from sqlite_utils import Database

    from judge.game.notices import Notice


def deliver(db: Database, notices: Sequence[Notice], now: datetime) -> None:
    """``judge.reports.outbox.deliver``, imported at the first notice."""
    from judge.reports.outbox import deliver as render_and_queue

    render_and_queue(db, notices, now)


def wire() -> None:
    ports.install(ports.Ports(load_variant=load_variant, deliver=deliver))


wire()
