"""When a player is reminded of a deadline (pure: given the lead times, the deadline, the phase and ``now``).

A lead time is how long before the deadline a reminder comes (``SET REMINDER 24h 2h``; the game's ``reminders``
setting when the player chose none). The rules:

- a lead time as long as the phase or longer is never used: its moment is at or before the phase opens, when the
  results and the deadline have just been mailed;
- the lead times whose moment has come are *passed*; a reminder goes out when one of them was not passed at the last
  look in the same phase, so two moments missed together (the judge was down) give one reminder, not two;
- a deadline moved later puts the moments of some lead times ahead again: they are no longer passed, and remind again
  when they come (moved deadlines move the reminders); a deadline moved earlier passes more of them at once: one
  reminder;
- whether the player is told (owes something, is not away) is the caller's business: the passed lead times are kept
  either way, so a reminder skipped in an absence does not come late.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class Reminded:
    """The lead times (seconds) found passed at the last look, in ``phase``."""

    phase: str = ""
    leads: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Look:
    """What a look at one seat found: whether a reminder is due now, what to keep, and the next moment to look."""

    due: bool
    reminded: Reminded
    next_at: datetime | None


def usable(leads: tuple[int, ...], phase_length: timedelta) -> tuple[int, ...]:
    """The lead times that fall inside a phase of ``phase_length``."""
    return tuple(lead for lead in leads if timedelta(seconds=lead) < phase_length)


def look(
    leads: tuple[int, ...], deadline: datetime, phase: str, phase_length: timedelta, before: Reminded, now: datetime
) -> Look:
    """One seat at ``now``: ``leads`` its lead times, ``before`` what the last look kept."""
    kept = before.leads if before.phase == phase else frozenset()
    used = usable(leads, phase_length)
    passed = frozenset(lead for lead in used if deadline - timedelta(seconds=lead) <= now)
    ahead = [deadline - timedelta(seconds=lead) for lead in used if lead not in passed]
    due = now < deadline and bool(passed - kept)
    return Look(due, Reminded(phase, passed), min(ahead, default=None))
