"""The findings page's chart on its own: one bar a day, the latest 90 days at most."""

from __future__ import annotations

from trailcheck.store.browse import NS_PER_DAY, LabelDay
from trailcheck.ui.findings_page import render_findings_page


def test_the_chart_has_a_bar_a_day_and_totals_count_every_day() -> None:
    counts = [
        LabelDay("late_answer", 0, 3),
        LabelDay("late_answer", 4 * NS_PER_DAY, 1),
        LabelDay("wrong_tool", 2 * NS_PER_DAY, 5),
    ]
    page = render_findings_page(counts, [], secret="s", dataset="d.yaml")
    assert page.count('class="day"') == 2 * 5  # two labels, days 0 to 4
    assert page.count('height="0.0"') == 2 * 5 - 3  # days without findings draw nothing
    assert '<td data-testid="label-total">4</td>' in page
    assert "1970-01-03: 5 trace(s)" in page


def test_a_long_history_charts_only_its_latest_90_days() -> None:
    counts = [LabelDay("late_answer", day * NS_PER_DAY, 1) for day in range(200)]
    page = render_findings_page(counts, [], secret="s", dataset="d.yaml")
    assert page.count('class="day"') == 90
    assert '<td data-testid="label-total">200</td>' in page
    assert "1970-04-21 to 1970-07-19" in page
