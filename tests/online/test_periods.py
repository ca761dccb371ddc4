"""The periods a reader asks for: a window's length, and since as a duration ago or a time."""

from __future__ import annotations

import pytest

from trailcheck.errors import UsageError
from trailcheck.online.periods import parse_since, parse_window

SECOND = 10**9
NOW = 1_700_000_000 * SECOND  # 2023-11-14T22:13:20Z


def test_a_window_is_a_duration_longer_than_nothing() -> None:
    assert parse_window("1h") == 3600 * SECOND
    assert parse_window("1h30m") == 5400 * SECOND
    with pytest.raises(UsageError, match="window: must be longer than 0s"):
        parse_window("0s")
    with pytest.raises(UsageError, match="window: a duration is"):
        parse_window("hourly")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("24h", NOW - 86_400 * SECOND),
        ("0s", NOW),
        ("2023-11-14T22:00", NOW - 800 * SECOND),  # no zone: UTC
        ("2023-11-14T22:00:00Z", NOW - 800 * SECOND),
        ("2023-11-14T23:00:00+01:00", NOW - 800 * SECOND),
    ],
)
def test_since_is_a_duration_ago_or_a_time(text: str, expected: int) -> None:
    assert parse_since(text, NOW) == expected


def test_since_that_is_neither_is_refused_naming_both_forms() -> None:
    with pytest.raises(UsageError, match=r"a duration ago \(24h, 30m\) or an ISO 8601 time"):
        parse_since("yesterday", NOW)
