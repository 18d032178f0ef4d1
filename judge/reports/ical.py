"""A deadline invitation (judge.game.invitations) as iCalendar text (RFC 5545, iTIP RFC 5546), in the reader's
language and time zone, made with the icalendar library.

What the four clients the judge is read in need (Thunderbird, Outlook, Gmail, Apple Calendar) to take the mail as an
invitation and a later one as an update of the same event: ``METHOD`` in the calendar and in the part's Content-Type
(judge.transport.smtp), one VEVENT with a UID that never changes, a SEQUENCE that rises with every change, DTSTAMP (the
moment of this mailing), the ORGANIZER (the judge) and the reader as ATTENDEE (``RSVP=FALSE``: no answer is asked
for). The event is the last quarter of an hour before the deadline (it ends at the deadline; a zero-length event is
drawn as nothing in some week views), marked free time (TRANSP:TRANSPARENT) so that it never makes the player look
busy. Times are in the reader's zone (``TZID`` with its VTIMEZONE, made from zoneinfo for the deadline's year and the
next, the same for every mailing of an event in that time), or UTC for a reader without a zone. The alarm
(VALARM) comes at the player's first reminder: its trigger is counted from the start, which every client supports
(Outlook has no other); Gmail keeps its own notifications and ignores it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from judge.game.invitations import Invitation, Method, Why
from judge.i18n import T, Text, format_length, phase_words, translate
from judge.rules.phase import Phase

if TYPE_CHECKING:
    from icalendar import Timezone

PRODID = "-//Diplomacy judge//judge//EN"
EVENT_LENGTH = timedelta(minutes=15)  # the event ends at the deadline


def _cancelled(why: Why, game: str) -> Text:
    """Why the event is cancelled, for its description."""
    if why is Why.PAUSED:
        return T(
            "Game {game} is paused: this deadline no longer holds; the game's resumption sets a new one.", game=game
        )
    if why is Why.OVER:
        return T("Game {game} is over: there are no more deadlines.", game=game)
    return T("You no longer play in game {game}: its deadlines are not yours any more.", game=game)


def calendar_text(invitation: Invitation, language: str, zone: str, organizer: str, now: datetime) -> str:
    """The iCalendar object of ``invitation`` (CRLF lines), worded in ``language``, its times in ``zone``, sent by
    ``organizer`` (the judge's address) at ``now``."""
    from icalendar import Alarm, Calendar, Event, vCalAddress

    phase = translate(phase_words(Phase.parse(invitation.phase)), language)
    summary = translate(T("Diplomacy {game}: {phase}, orders due", game=invitation.game, phase=phase), language)
    if invitation.method is Method.CANCEL and invitation.why is not None:
        description = translate(_cancelled(invitation.why, invitation.game), language)
    else:
        description = translate(
            T(
                "The deadline of {phase} in game {game}: mail your orders to {judge} before it.",
                phase=phase,
                game=invitation.game,
                judge=organizer,
            ),
            language,
        )
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", invitation.method.value)
    event = Event()
    event.add("uid", invitation.uid)
    event.add("sequence", invitation.sequence)
    event.add("dtstamp", now.astimezone(UTC))
    end = _local(invitation.deadline, zone)
    event.add("dtstart", end - EVENT_LENGTH)
    event.add("dtend", end)
    event.add("summary", summary)
    event.add("description", description)
    event.add("status", "CANCELLED" if invitation.method is Method.CANCEL else "CONFIRMED")
    event.add("transp", "TRANSPARENT")
    judge = vCalAddress(f"mailto:{organizer}")
    judge.params["CN"] = translate(T("Diplomacy judge"), language)
    event.add("organizer", judge)
    player = vCalAddress(f"mailto:{invitation.attendee}")
    player.params["ROLE"] = "REQ-PARTICIPANT"
    player.params["PARTSTAT"] = "NEEDS-ACTION"
    player.params["RSVP"] = "FALSE"
    event.add("attendee", player)
    if invitation.alarm is not None and invitation.method is Method.REQUEST:
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        lead = format_length(int(invitation.alarm.total_seconds()), language)
        alarm.add("description", translate(T("{summary}: in {lead}", summary=summary, lead=lead), language))
        alarm.add("trigger", -(invitation.alarm - EVENT_LENGTH))  # from the start, a quarter before the deadline
        event.add_component(alarm)
    if zone != "UTC":
        cal.add_component(_vtimezone(zone, invitation.deadline))
    cal.add_component(event)
    return str(cal.to_ical().decode("utf-8"))


def _local(when: datetime, zone: str) -> datetime:
    return when.astimezone(UTC if zone == "UTC" else ZoneInfo(zone))


def _vtimezone(zone: str, deadline: datetime) -> Timezone:
    """The zone's rules from the start of the deadline's year to the end of the next: every mailing of an event
    carries the same definition (Gmail drops an update whose zone differs), and a deadline moved by up to the longest
    allowed still falls inside it."""
    from icalendar import Timezone

    year = deadline.astimezone(ZoneInfo(zone)).year
    return Timezone.from_tzid(zone, first_date=date(year, 1, 1), last_date=date(year + 2, 1, 1))


def event_summary(text: str) -> dict[str, str]:
    """METHOD, UID and SEQUENCE of an iCalendar text, read without the library (``judge outbox show`` names them)."""
    unfolded = text.replace("\r\n ", "").replace("\n ", "")
    found: dict[str, str] = {}
    for line in unfolded.splitlines():
        name, _, value = line.partition(":")
        if name in ("METHOD", "UID", "SEQUENCE") and name not in found:
            found[name] = value
    return found
