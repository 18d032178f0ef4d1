"""Open exports of a game's story (``judge.game.story``), one module a format, pure where it can be (story in,
bytes or JSON values out): the judge's own documented JSON (``judge_json``, docs/exports.md), the saved-game JSON of
MILA's ``diplomacy`` package (``mila``) and an animated board (``gif``). Every export is told as the public archive
is (``Viewer.PUBLIC``): no address, password or private press; an anonymous game hides who plays until it ends; a
Fog of War game exports nothing until it ends (``refuse_fog``)."""

from __future__ import annotations

from enum import StrEnum

from judge.game.story import Story


class ExportFormat(StrEnum):
    JSON = "json"
    MILA = "mila"
    GIF = "gif"


class ExportError(ValueError):
    """A game that cannot be exported in the format asked for; the message says why."""


def refuse_fog(story: Story) -> None:
    """ExportError for a Fog of War game still running: nothing of its play is told until it ends."""
    if story.fogged:
        raise ExportError(f"{story.name} is played in Fog of War: nothing of its play is exported until the game ends")
