"""The composition root: the one module that knows every side. Importing it gives the game server what it is given
rather than reaches for — variant loading (``judge.data.catalog``) and the mail side that renders and queues its
notices (``judge.reports.outbox``). Every entry point (the command line, the serve loop, the command handler)
imports it before it touches a game."""

from __future__ import annotations

from judge.data.catalog import load_variant
from judge.game import ports
from judge.reports.outbox import deliver


def wire() -> None:
    ports.install(ports.Ports(load_variant=load_variant, deliver=deliver))


wire()
