"""The closed sets of values the store keeps in its status and role columns (each a StrEnum, stored as its value)."""

from __future__ import annotations

from enum import StrEnum


class GameStatus(StrEnum):
    FORMING = "forming"  # players join; nothing is played yet
    ACTIVE = "active"  # phases run against deadlines
    PAUSED = "paused"  # no deadline runs; the remaining time is kept
    FINISHED = "finished"  # a result (solo, draw, abandoned) is recorded


# A game being played: it has a position, and orders are due (a paused game's are kept for when it resumes).
PLAYING: frozenset[GameStatus] = frozenset({GameStatus.ACTIVE, GameStatus.PAUSED})


class Role(StrEnum):
    PLAYER = "player"
    OBSERVER = "observer"


class DrawStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    LAPSED = "lapsed"


class OutboxStatus(StrEnum):
    QUEUED = "queued"  # waiting for its next attempt
    SENDING = "sending"  # claimed by a sender; DATA may be under way
    SENT = "sent"
    FAILED = "failed"  # given up; reported to the host
