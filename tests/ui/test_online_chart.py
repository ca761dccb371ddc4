"""The online rate chart on its own: a box and a point a window, the rate axis fitted to the
upper bounds, and only the latest windows charted."""

from __future__ import annotations

import re

from trailcheck.online.rates import WindowCounts, failure_rate
from trailcheck.online.results import EvaluatorStatus, WindowStatus, iso
from trailcheck.ui.online_chart import CHARTED_WINDOWS, rate_chart

HOUR = 3600 * 10**9


def window(hour: int, scored: int, passed: int) -> WindowStatus:
    rate = failure_rate(WindowCounts(scored=scored, passed=passed))
    start = hour * HOUR
    return WindowStatus(
        start=iso(start),
        end=iso(start + HOUR),
        start_ns=start,
        end_ns=start + HOUR,
        scored=scored,
        passed=passed,
        failure_rate=rate.value,
        interval=(rate.interval.low, rate.interval.high),
    )


def status(windows: list[WindowStatus]) -> EvaluatorStatus:
    scored = sum(w.scored for w in windows)
    passed = sum(w.passed for w in windows)
    return EvaluatorStatus(
        name="<b>judge</b>",
        version="abc123def456",
        kind="judge",
        scored=scored,
        passed=passed,
        failed=scored - passed,
        failure_rate=None,
        interval=(None, None),
        level=0.95,
        method="wilson",
        skipped=0,
        waiting=0,
        failed_executions=0,
        quarantined=0,
        lag_s=None,
        windows=windows,
    )


def polyline_points(chart: str) -> list[str]:
    found = re.search(r'<polyline points="([^"]*)"', chart)
    assert found is not None
    return found[1].split()


def test_a_low_rate_gets_a_short_axis_and_a_gap_stays_a_gap() -> None:
    # 1 failure in 2000, then (two hours later, nothing between) 2 in 2000: upper bounds < 1%.
    chart = rate_chart(status([window(0, 2000, 1999), window(3, 2000, 1998)]), "1h", chart_id="c")
    assert len(polyline_points(chart)) == 2
    assert chart.count("<polygon ") == 2
    assert ">1%</text>" in chart
    assert ">0.5%</text>" in chart
    # The boxes cover hours 0 and 3 of the four on the axis, not the two between.
    boxes = re.findall(r'<polygon points="([\d.]+),[\d.]+ ([\d.]+),', chart)
    assert [(float(a), float(b)) for a, b in boxes] == [(52.0, 175.0), (421.0, 544.0)]
    assert "&lt;b&gt;judge&lt;/b&gt;@abc123def456" in chart
    assert "<b>" not in chart


def test_one_window_fills_the_axis_and_every_bound_of_a_full_failure_fits() -> None:
    chart = rate_chart(status([window(5, 3, 0)]), "1h", chart_id="c")
    assert len(polyline_points(chart)) == 1
    assert ">100%</text>" in chart
    assert "1970-01-01 05:00: 3/3 failed, rate 1.000 [0.439, 1.000]" in chart


def test_only_the_latest_windows_are_charted() -> None:
    many = [window(hour, 10, 9) for hour in range(CHARTED_WINDOWS + 10)]
    chart = rate_chart(status(many), "1h", chart_id="c")
    assert len(polyline_points(chart)) == CHARTED_WINDOWS
    assert f"{CHARTED_WINDOWS} window(s) with scores, from 1970-01-01 10:00" in chart
