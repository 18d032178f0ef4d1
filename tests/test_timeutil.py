"""Durations, time zones and deadline wording; the clock is always passed in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from judge.timeutil import check_timezone, format_deadline, format_duration, iso_utc, parse_duration, parse_iso_utc

UTC = UTC


@pytest.mark.parametrize(
    "text,want",
    [
        ("48h", timedelta(hours=48)),
        ("2d", timedelta(days=2)),
        ("90m", timedelta(minutes=90)),
        ("1d12h", timedelta(days=1, hours=12)),
        ("36 hours", timedelta(hours=36)),
        ("2 days", timedelta(days=2)),
        ("1w", timedelta(weeks=1)),
        ("1 day", timedelta(days=1)),
        ("1 hour 30 minutes", timedelta(minutes=90)),
        ("1d 12h", timedelta(days=1, hours=12)),
        ("1 day and 12 hours", timedelta(days=1, hours=12)),
        ("1d, 6h, 30m", timedelta(days=1, hours=6, minutes=30)),
        ("  72H ", timedelta(hours=72)),
        ("2 Weeks", timedelta(weeks=2)),
        ("45 mins", timedelta(minutes=45)),
        ("60d", timedelta(days=60)),
    ],
)
def test_parse_duration(text: str, want: timedelta) -> None:
    assert parse_duration(text) == want


@pytest.mark.parametrize(
    "text", ["", "48", "h", "soon", "1.5d", "1 month", "2x", "d2", "48h!", "-2d", "1d-12h", "\u0664\u0668h"]
)
def test_parse_duration_rejects_other_text(text: str) -> None:
    with pytest.raises(ValueError, match="a deadline looks like 48h, 2d, 90m or 1d12h"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["0h", "0d0h0m", "0 minutes"])
def test_parse_duration_must_be_positive(text: str) -> None:
    with pytest.raises(ValueError, match="longer than zero"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["61d", "60d1m", "9w", "1441h", "99999999d"])
def test_parse_duration_at_most_60_days(text: str) -> None:
    with pytest.raises(ValueError, match="at most 60 days"):
        parse_duration(text)


def test_long_input_is_cut_short_in_the_message() -> None:
    with pytest.raises(ValueError) as caught:
        parse_duration("x" * 500)
    assert len(str(caught.value)) < 120


@pytest.mark.parametrize(
    "td,want",
    [
        (timedelta(hours=48), "2d"),
        (timedelta(days=1, hours=12), "1d12h"),
        (timedelta(minutes=90), "1h30m"),
        (timedelta(minutes=45), "45m"),
        (timedelta(weeks=1), "7d"),
        (timedelta(days=2, minutes=5), "2d5m"),
        (timedelta(hours=5), "5h"),
        (timedelta(minutes=29, seconds=31), "30m"),
        (timedelta(0), "0m"),
    ],
)
def test_format_duration(td: timedelta, want: str) -> None:
    assert format_duration(td) == want


def test_format_duration_rejects_negative() -> None:
    with pytest.raises(ValueError, match="negative"):
        format_duration(timedelta(minutes=-5))


@pytest.mark.parametrize("minutes", [1, 59, 60, 61, 1439, 1440, 1441, 2160, 2880, 10079, 86399, 86400])
def test_format_and_parse_are_inverse(minutes: int) -> None:
    td = timedelta(minutes=minutes)
    assert parse_duration(format_duration(td)) == td


@pytest.mark.parametrize(
    "name,want",
    [
        ("Europe/Berlin", "Europe/Berlin"),
        ("europe/berlin", "Europe/Berlin"),
        ("EUROPE/BERLIN", "Europe/Berlin"),
        ("  Europe/Berlin ", "Europe/Berlin"),
        ("america/new_york", "America/New_York"),
        ("America/New York", "America/New_York"),
        ("utc", "UTC"),
        ("asia/kolkata", "Asia/Kolkata"),
    ],
)
def test_check_timezone(name: str, want: str) -> None:
    assert check_timezone(name) == want


def test_check_timezone_suggests_the_closest_zone() -> None:
    with pytest.raises(ValueError) as caught:
        check_timezone("Europe/Berln")
    assert str(caught.value) == "unknown time zone 'Europe/Berln'; did you mean 'Europe/Berlin'?"


def test_check_timezone_suggests_the_zone_of_a_city() -> None:
    with pytest.raises(ValueError, match=r"unknown time zone 'Berlin'; did you mean 'Europe/Berlin'\?"):
        check_timezone("Berlin")


@pytest.mark.parametrize("name", ["Mars/Olympus_Mons", "", "CET+5 please"])
def test_check_timezone_without_a_close_match(name: str) -> None:
    with pytest.raises(ValueError, match=r"unknown time zone .*'Europe/Berlin'"):
        check_timezone(name)


NOW = datetime(2026, 11, 30, 11, 0, tzinfo=UTC)


def test_format_deadline_example() -> None:
    when = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    assert format_deadline(when, "Europe/Berlin", NOW) == "Tue 1 Dec 2026 18:00 CET (Europe/Berlin), in 1 day 6 hours"


def test_format_deadline_in_summer_time() -> None:
    when = datetime(2027, 7, 1, 17, 0, tzinfo=UTC)
    now = datetime(2027, 6, 29, 17, 0, tzinfo=UTC)
    assert format_deadline(when, "europe/berlin", now) == "Thu 1 Jul 2027 19:00 CEST (Europe/Berlin), in 2 days"


def test_format_deadline_across_a_daylight_saving_change() -> None:
    # The United States moved to summer time at 2026-03-08 02:00 local (07:00 UTC).
    before = datetime(2026, 3, 8, 6, 30, tzinfo=UTC)
    after = datetime(2026, 3, 8, 7, 30, tzinfo=UTC)
    assert format_deadline(before, "America/New_York", before).startswith("Sun 8 Mar 2026 01:30 EST (America/New_York)")
    assert (
        format_deadline(after, "America/New_York", before) == "Sun 8 Mar 2026 03:30 EDT (America/New_York), in 1 hour"
    )


def test_format_deadline_in_the_past() -> None:
    when = datetime(2026, 11, 30, 7, 55, tzinfo=UTC)
    assert format_deadline(when, "UTC", NOW) == "Mon 30 Nov 2026 07:55 UTC, 3 hours 5 minutes ago"


@pytest.mark.parametrize(
    "delta,want",
    [
        (timedelta(0), "now"),
        (timedelta(seconds=20), "now"),
        (timedelta(minutes=1), "in 1 minute"),
        (timedelta(minutes=45), "in 45 minutes"),
        (timedelta(hours=2, minutes=5), "in 2 hours 5 minutes"),
        (timedelta(hours=1), "in 1 hour"),
        (timedelta(days=1), "in 1 day"),
        (timedelta(days=1, hours=23, minutes=45), "in 2 days"),
        (timedelta(days=3, hours=1, minutes=10), "in 3 days 1 hour"),
        (-timedelta(minutes=1), "1 minute ago"),
        (-timedelta(days=2, hours=4), "2 days 4 hours ago"),
    ],
)
def test_format_deadline_relative_part(delta: timedelta, want: str) -> None:
    assert format_deadline(NOW + delta, "UTC", NOW).endswith(", " + want)


def test_format_deadline_zone_without_letters() -> None:
    when = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    assert format_deadline(when, "Europe/Istanbul", NOW).startswith("Tue 1 Dec 2026 20:00 UTC+03 (Europe/Istanbul)")


def test_format_deadline_accepts_any_aware_time() -> None:
    when = datetime(2026, 12, 1, 18, 0, tzinfo=timezone(timedelta(hours=1)))
    assert format_deadline(when, "Asia/Tokyo", NOW) == "Wed 2 Dec 2026 02:00 JST (Asia/Tokyo), in 1 day 6 hours"


def test_format_deadline_needs_aware_times_and_a_real_zone() -> None:
    with pytest.raises(ValueError, match="aware"):
        format_deadline(datetime(2026, 12, 1, 17, 0), "UTC", NOW)
    with pytest.raises(ValueError, match="aware"):
        format_deadline(NOW, "UTC", datetime(2026, 12, 1, 17, 0))
    with pytest.raises(ValueError, match="did you mean 'Europe/Berlin'"):
        format_deadline(NOW, "Europe/Berln", NOW)


def test_iso_utc() -> None:
    assert iso_utc(datetime(2026, 12, 1, 17, 0, tzinfo=UTC)) == "2026-12-01T17:00:00Z"
    assert (
        iso_utc(datetime(2026, 12, 1, 18, 0, 0, 999999, tzinfo=timezone(timedelta(hours=1)))) == "2026-12-01T17:00:00Z"
    )
    with pytest.raises(ValueError, match="aware"):
        iso_utc(datetime(2026, 12, 1, 17, 0))


@pytest.mark.parametrize(
    "text",
    ["2026-12-01T17:00:00Z", "2026-12-01T18:00:00+01:00", "2026-12-01T12:00:00-05:00", " 2026-12-01T17:00:00+00:00 "],
)
def test_parse_iso_utc(text: str) -> None:
    got = parse_iso_utc(text)
    assert got == datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    assert got.utcoffset() == timedelta(0)
    assert got.tzinfo is UTC


@pytest.mark.parametrize("text", ["2026-12-01T17:00:00", "2026-12-01", "tomorrow", "", "2026-13-01T00:00:00Z"])
def test_parse_iso_utc_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_iso_utc(text)


def test_iso_round_trip() -> None:
    when = datetime(2031, 2, 28, 23, 59, 59, tzinfo=UTC)
    assert parse_iso_utc(iso_utc(when)) == when


def test_missing_time_zone_data_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    import judge.timeutil

    monkeypatch.setattr(judge.timeutil, "_zone_names", lambda: {})
    with pytest.raises(ValueError, match="tzdata"):
        check_timezone("Europe/Berlin")
