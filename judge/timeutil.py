"""Durations, time zones and deadlines as players read and write them.

Everything here is pure: the current time is always passed in, never read from the clock. Times are stored and
compared as aware UTC datetimes; a player's time zone only changes how a deadline is shown to them.
"""

from __future__ import annotations

import difflib
import functools
import random
import re
import zoneinfo
from datetime import UTC, datetime, timedelta

from judge.facts import MAX_DEADLINE, MAX_DEADLINE_DAYS
from judge.rules.words import Reason

MAX_DURATION = MAX_DEADLINE

_DURATION_HINT = Reason("a deadline looks like 48h, 2d, 90m or 1d12h")

# Minutes per unit; each spelling a player may use maps to one of these.
_UNIT_MINUTES = {"w": 7 * 24 * 60, "d": 24 * 60, "h": 60, "m": 1}
_UNIT_SPELLINGS = {
    "w": "w",
    "wk": "w",
    "wks": "w",
    "week": "w",
    "weeks": "w",
    "d": "d",
    "day": "d",
    "days": "d",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "m": "m",
    "min": "m",
    "mins": "m",
    "minute": "m",
    "minutes": "m",
}
_PART = r"([0-9]{1,9})\s*([a-z]+)"
_DURATION = re.compile(rf"{_PART}(?:\s*(?:,|\band\b)?\s*{_PART})*", re.ASCII)
_PART_RE = re.compile(_PART, re.ASCII)

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error message, cut short if a player pasted something long."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def parse_duration(text: str) -> timedelta:
    """Read a duration such as ``48h``, ``2d``, ``90m``, ``1d12h``, ``36 hours``, ``2 days`` or ``1w``.

    Raises ValueError with a :class:`Reason` fit to mail back to a player (``str()`` is the English) if the text is
    not a duration, is zero, or is longer than 60 days.
    """
    cleaned = " ".join(text.lower().split())
    shown = _shown(text.strip())
    if not _DURATION.fullmatch(cleaned):
        raise ValueError(Reason("cannot read {text} as a duration; {hint}", text=shown, hint=_DURATION_HINT))
    minutes = 0
    for number, unit in _PART_RE.findall(cleaned):
        key = _UNIT_SPELLINGS.get(unit)
        if key is None:
            raise ValueError(
                Reason("unknown unit {unit} in {text}; {hint}", unit=repr(unit), text=shown, hint=_DURATION_HINT)
            )
        minutes += int(number) * _UNIT_MINUTES[key]
    if minutes <= 0:
        raise ValueError(Reason("a duration must be longer than zero; {hint}", hint=_DURATION_HINT))
    if minutes > MAX_DURATION // timedelta(minutes=1):
        raise ValueError(
            Reason(
                "{text} is too long; a deadline may be at most {count} days away", text=shown, count=MAX_DEADLINE_DAYS
            )
        )
    return timedelta(minutes=minutes)


def format_duration(td: timedelta) -> str:
    """The compact form of a duration, read back by parse_duration: ``1d12h``, ``2d``, ``1h30m``, ``0m``.

    Whole days are shown as days (48 hours is ``2d``); seconds are rounded to the nearest minute.
    """
    if td < timedelta(0):
        raise ValueError("a duration must not be negative")
    minutes = round(td / timedelta(minutes=1))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    text = "".join(f"{value}{unit}" for value, unit in ((days, "d"), (hours, "h"), (mins, "m")) if value)
    return text or "0m"


@functools.cache
def _zone_names() -> dict[str, str]:
    """Every IANA zone name this machine knows, keyed by its lower-case spelling."""
    return {name.lower(): name for name in zoneinfo.available_timezones()}


@functools.cache
def _zone_cities() -> dict[str, list[str]]:
    """Zone names keyed by their last part in lower case ("berlin" -> ["Europe/Berlin"])."""
    cities: dict[str, list[str]] = {}
    for name in sorted(_zone_names().values()):
        cities.setdefault(name.rsplit("/", 1)[-1].lower(), []).append(name)
    return cities


def _zone_suggestion(key: str) -> str | None:
    cities = _zone_cities().get(key.rsplit("/", 1)[-1])
    if cities and len(cities) == 1:
        return cities[0]
    names = _zone_names()
    close = difflib.get_close_matches(key, names.keys(), n=1, cutoff=0.75)
    return names[close[0]] if close else None


# A city zone for each whole-hour offset from UTC (standard time), to suggest for "GMT+1", "UTC-5" and the like.
_OFFSET_CITIES = {
    -11: "Pacific/Pago_Pago",
    -10: "Pacific/Honolulu",
    -9: "America/Anchorage",
    -8: "America/Los_Angeles",
    -7: "America/Denver",
    -6: "America/Chicago",
    -5: "America/New_York",
    -4: "America/Halifax",
    -3: "America/Sao_Paulo",
    -2: "Atlantic/South_Georgia",
    -1: "Atlantic/Azores",
    0: "Europe/London",
    1: "Europe/Berlin",
    2: "Europe/Athens",
    3: "Europe/Moscow",
    4: "Asia/Dubai",
    5: "Asia/Karachi",
    6: "Asia/Dhaka",
    7: "Asia/Bangkok",
    8: "Asia/Shanghai",
    9: "Asia/Tokyo",
    10: "Australia/Brisbane",
    11: "Pacific/Noumea",
    12: "Pacific/Auckland",
    13: "Pacific/Tongatapu",
    14: "Pacific/Kiritimati",
}
# Abbreviations players write that are not IANA names themselves (CET, EET, WET, EST, MST, HST are)
_ABBREVIATIONS = {
    "msk": "Europe/Moscow",
    "msd": "Europe/Moscow",
    "cest": "Europe/Berlin",
    "mez": "Europe/Berlin",
    "mesz": "Europe/Berlin",
    "bst": "Europe/London",
    "eest": "Europe/Athens",
    "west": "Europe/Lisbon",
    "pst": "America/Los_Angeles",
    "pdt": "America/Los_Angeles",
    "edt": "America/New_York",
    "cst": "America/Chicago",
    "cdt": "America/Chicago",
    "mdt": "America/Denver",
    "akst": "America/Anchorage",
    "jst": "Asia/Tokyo",
    "kst": "Asia/Seoul",
    "ist": "Asia/Kolkata",
    "aest": "Australia/Sydney",
    "aedt": "Australia/Sydney",
    "nzst": "Pacific/Auckland",
    "nzdt": "Pacific/Auckland",
}
_OFFSET = re.compile(r"(?:gmt|utc|z)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?", re.I)


def _offset_hint(key: str) -> Reason | None:
    """For "GMT+1", "UTC-5", "+03:00": which zones have that offset. IANA's Etc/GMT+1 is UTC-1 (POSIX signs), so
    it is never suggested for GMT+1; a city zone is, which also keeps summer time right."""
    m = _OFFSET.fullmatch(key.replace("_", ""))
    if m is None:
        return None
    hours = int(m.group(2)) * (1 if m.group(1) == "+" else -1)
    minutes = int(m.group(3) or 0)
    shown = f"UTC{m.group(1)}{int(m.group(2))}" + (f":{minutes:02d}" if minutes else "")
    city = _OFFSET_CITIES.get(hours) if not minutes else None
    if city is None:
        return Reason(
            "{offset} is an offset, not a time zone; use the zone of a city, such as 'Asia/Kolkata' "
            "(UTC+5:30) or 'Europe/Berlin'",
            offset=shown,
        )
    etc = f"Etc/GMT{'-' if hours > 0 else '+'}{abs(hours)}" if hours else "UTC"
    return Reason(
        "{offset} is an offset, not a time zone; use the zone of a city with that offset, such as {city} "
        "(summer time included), or {etc} for a fixed {offset} (IANA's Etc/GMT signs are reversed)",
        offset=shown,
        city=repr(city),
        etc=repr(etc),
    )


def check_timezone(name: str) -> str:
    """The canonical spelling of the IANA time zone ``name`` ("europe/berlin" -> "Europe/Berlin").

    Spaces may stand for underscores ("America/New York"). Raises ValueError naming the closest zone, if any.
    """
    names = _zone_names()
    if not names:
        raise ValueError("this machine has no time-zone data; the host must install the tzdata package")
    key = "_".join(name.strip().split()).lower()
    found = names.get(key)
    if found is not None:
        try:
            zoneinfo.ZoneInfo(found)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
            found = None
    if found is not None:
        return found
    offset = _offset_hint(key)
    if offset is not None:
        raise ValueError(offset)
    if key in _ABBREVIATIONS:
        raise ValueError(
            Reason(
                "{name} is an abbreviation, not a time zone; did you mean {zone}?",
                name=_shown(name.strip()),
                zone=repr(_ABBREVIATIONS[key]),
            )
        )
    suggestion = _zone_suggestion(key) if key else None
    if suggestion:
        raise ValueError(
            Reason("unknown time zone {name}; did you mean {zone}?", name=_shown(name.strip()), zone=repr(suggestion))
        )
    raise ValueError(
        Reason(
            "unknown time zone {name}; use a name such as 'Europe/Berlin', 'America/New_York' or 'UTC'",
            name=_shown(name.strip()),
        )
    )


def _require_aware(dt: datetime, what: str) -> None:
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise ValueError(f"{what} must be a time-zone aware datetime")


def _plural(count: int, unit: str) -> str:
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def _relative(delta: timedelta) -> str:
    """``in 1 day 6 hours``, ``3 hours 5 minutes ago`` or ``now``: two units at most, days rounded to the hour."""
    minutes = round(abs(delta) / timedelta(minutes=1))
    if minutes == 0:
        return "now"
    if minutes >= 24 * 60:
        hours_total = round(minutes / 60)
        days, hours = divmod(hours_total, 24)
        parts = [_plural(days, "day")] + ([_plural(hours, "hour")] if hours else [])
    else:
        hours, mins = divmod(minutes, 60)
        parts = ([_plural(hours, "hour")] if hours else []) + ([_plural(mins, "minute")] if mins else [])
    text = " ".join(parts)
    return f"in {text}" if delta > timedelta(0) else f"{text} ago"


def _stamp(when: datetime, zone: str, language: str) -> str:
    """``Tue 1 Dec 2026 18:00 CET (Europe/Berlin)``: the moment in ``zone`` as ``language`` writes it."""
    name = check_timezone(zone)
    local = when.astimezone(zoneinfo.ZoneInfo(name))
    abbreviation = local.tzname() or name
    if abbreviation.startswith(("+", "-")):  # zones without a letter abbreviation, e.g. "+03" for Europe/Istanbul
        abbreviation = "UTC" + abbreviation
    if language != "en":  # the player's language: names of days and months (Babel, CLDR)
        from judge.i18n import format_when, zone_abbreviation

        stamp = f"{format_when(when, name, language)} {zone_abbreviation(when, name, language, abbreviation)}"
    else:
        stamp = (
            f"{_WEEKDAYS[local.weekday()]} {local.day} {_MONTHS[local.month - 1]} {local.year} "
            f"{local.hour:02d}:{local.minute:02d} {abbreviation}"
        )
    return stamp + (f" ({name})" if abbreviation != name else "")


def format_deadline(when: datetime, zone: str, now: datetime, language: str = "en") -> str:
    """A deadline as a player in ``zone`` reads it, relative to ``now``.

    ``Tue 1 Dec 2026 18:00 CET (Europe/Berlin), in 1 day 6 hours``; a past deadline ends ``… ago``. Names of days
    and months are English whatever the machine's locale.
    """
    _require_aware(when, "the deadline")
    _require_aware(now, "the current time")
    stamp = _stamp(when, zone, language)
    if language != "en":
        from judge.i18n import format_relative

        return f"{stamp}, {format_relative(when - now, language)}"
    return f"{stamp}, {_relative(when - now)}"


def format_moment(when: datetime, zone: str, language: str = "en") -> str:
    """A moment (not a deadline) as a reader in ``zone`` reads it: ``Tue 1 Dec 2026 13:00 UTC``, or in another zone
    ``вт 1 дек. 2026 16:00 MSK (Europe/Moscow) = 2026-12-01 13:00 UTC``."""
    _require_aware(when, "the time")
    stamp = _stamp(when, zone, language)
    if check_timezone(zone) != "UTC":
        stamp += f" = {when.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
    return stamp


def iso_utc(dt: datetime) -> str:
    """An aware datetime as ISO 8601 UTC to the second: ``2026-12-01T17:00:00Z``."""
    _require_aware(dt, "the time")
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso_utc(text: str) -> datetime:
    """Read an ISO 8601 time with ``Z`` or an offset (as iso_utc writes) into an aware UTC datetime."""
    try:
        dt = datetime.fromisoformat(text.strip())
    except ValueError:
        dt = None
    if dt is None or dt.tzinfo is None or dt.utcoffset() is None:
        raise ValueError(f"{_shown(text.strip())} is not an ISO 8601 UTC time like 2026-12-01T17:00:00Z")
    return dt.astimezone(UTC)


def backoff_pause(
    attempt: int, first: timedelta, cap: timedelta, jitter: float = 0.0, rng: random.Random | None = None
) -> timedelta:
    """The pause before try ``attempt + 1`` after ``attempt`` failures in a row: ``first``, doubling per failure up
    to ``cap``, then spread by ±``jitter`` (a fraction: 0.2 is ±20 %) so that many waiting parties do not wake
    together. The one backoff of the judge: failing serve steps, deferred mail, held sign-ons."""
    base: timedelta = min(first * 2 ** min(max(attempt, 1) - 1, 30), cap)
    return base * (rng or random).uniform(1 - jitter, 1 + jitter) if jitter else base


MAX_REMINDERS = 3  # SET REMINDER and the game's ``reminders`` setting take up to three lead times
MIN_LEAD = timedelta(minutes=10)
MAX_LEAD = timedelta(days=7)


def parse_lead_times(words: list[str]) -> tuple[int, ...]:
    """The lead times of ``SET REMINDER 24h 2h`` (each word one duration, at most three, 10 minutes to 7 days), in
    seconds, longest first and each once; ``NONE`` alone is no reminder at all (an empty tuple).

    Raises ValueError with a :class:`Reason` fit to mail back, as :func:`parse_duration` does."""
    if len(words) == 1 and words[0].strip().upper() in ("NONE", "OFF"):
        return ()
    if not words:
        raise ValueError(Reason("give up to {count} lead times, e.g. 24h 2h, or NONE", count=MAX_REMINDERS))
    if len(words) > MAX_REMINDERS:
        raise ValueError(Reason("at most {count} reminders: e.g. 24h 2h", count=MAX_REMINDERS))
    leads = set()
    for word in words:
        lead = parse_duration(word)
        if not MIN_LEAD <= lead <= MAX_LEAD:
            raise ValueError(
                Reason("a reminder comes between 10 minutes and 7 days before the deadline, not {text}", text=word)
            )
        leads.add(int(lead.total_seconds()))
    return tuple(sorted(leads, reverse=True))


def format_lead_times(leads: tuple[int, ...]) -> str:
    """``24h 2h`` (read back by :func:`parse_lead_times`), or ``none``."""
    return " ".join(format_duration(timedelta(seconds=s)) for s in leads) or "none"
