"""Lap times in integer microseconds, half-up rounding, and stints cut at pit stops."""

from __future__ import annotations

from fractions import Fraction

import pytest

from trailcheck.demo.pitwall.pace import format_lap_time, median, parse_lap_time, stints
from trailcheck.demo.pitwall.records import LapTiming, PitStop


@pytest.mark.parametrize(
    ("text", "microseconds"),
    [
        ("1:20.472", 80_472_000),
        ("24.7", 24_700_000),
        ("23:35.363", 1_415_363_000),
        ("2:06:54.430", 7_614_430_000),
        ("1:22.2705", 82_270_500),
        (" 59.000001 ", 59_000_001),
    ],
)
def test_lap_times_parse_to_whole_microseconds(text: str, microseconds: int) -> None:
    assert parse_lap_time(text) == microseconds


@pytest.mark.parametrize("text", ["", "1:2:3:4.5", "fast", "1:20.4721234", "-1:20.472", "1:20,472"])
def test_a_lap_time_that_is_not_one_is_refused_naming_it(text: str) -> None:
    with pytest.raises(ValueError, match="not a lap time") as raised:
        parse_lap_time(text)
    assert repr(text.strip()) in str(raised.value)


@pytest.mark.parametrize(
    ("microseconds", "shown"),
    [
        (82_270_500, "1:22.271"),  # the half rounds up, on every platform
        (82_270_499, "1:22.270"),
        (Fraction(164_541, 2) * 1000, "1:22.271"),  # a median of an even count, exactly
        (80_472_000, "1:20.472"),
        (24_700_000, "24.700"),
        (59_999_500, "1:00.000"),  # rounding carries into the minutes
        (7_614_430_000, "2:06:54.430"),
        (0, "0.000"),
    ],
)
def test_times_format_to_milliseconds_rounding_half_up(microseconds: int, shown: str) -> None:
    assert format_lap_time(microseconds) == shown


def test_a_negative_time_is_refused() -> None:
    with pytest.raises(ValueError, match="not negative"):
        format_lap_time(-1)


def test_the_median_is_exact_for_odd_and_even_counts() -> None:
    assert median([3, 1, 2]) == 2
    assert median([82_270_000, 82_271_000]) == Fraction(82_270_500)
    assert median([1, 2]) == Fraction(3, 2)
    with pytest.raises(ValueError, match="no values"):
        median([])


def _laps(count: int, seconds: float = 90.0) -> list[LapTiming]:
    return [
        LapTiming(n, format_lap_time(int(seconds * 1_000_000) + n * 1000))
        for n in range(1, count + 1)
    ]


def test_stints_cut_at_each_stop_leaving_out_lap_one_and_the_in_and_out_laps() -> None:
    laps = _laps(12)
    found = stints(laps, [PitStop(1, 4, "24.7"), PitStop(2, 8, "23:35.363")])

    assert [(s.number, s.first, s.last) for s in found] == [(1, 1, 4), (2, 5, 8), (3, 9, 12)]
    assert [[lap.lap for lap in s.clean_laps] for s in found] == [[2, 3], [6, 7], [10, 11, 12]]


def test_a_stint_without_clean_laps_has_no_pace_fields() -> None:
    found = stints(_laps(10), [PitStop(1, 5, "25.1"), PitStop(2, 6, "23:33.920")])

    middle = found[1]
    assert (middle.first, middle.last, middle.clean_laps) == (6, 6, ())
    assert middle.median_us is None
    assert middle.summary() == {"stint": 2, "laps": "6-6", "clean_laps": 0}
    assert "median_pace" in found[2].summary()


def test_a_stint_summary_shows_the_median_not_the_mean() -> None:
    times = ["1:30.000", "1:22.000", "1:22.100", "1:22.200", "2:10.000"]  # lap 5: a safety car
    laps = [LapTiming(n, t) for n, t in enumerate(times, start=1)]

    [only] = stints(laps, [])

    assert only.summary() == {
        "stint": 1,
        "laps": "1-5",
        "clean_laps": 4,
        "median_pace": "1:22.150",
        "best_lap": "1:22.000",
    }


def test_a_stop_on_the_last_lap_does_not_open_an_empty_stint() -> None:
    found = stints(_laps(6), [PitStop(1, 6, "30.0")])

    assert [(s.first, s.last) for s in found] == [(1, 6)]
    assert stints([], [PitStop(1, 3, "24.0")]) == []
