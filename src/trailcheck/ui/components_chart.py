"""A component's success rate per window as a sparkline: a small inline SVG, drawn here (no
script, no library, nothing fetched).

Every row of the components page shares one time axis (from the first window shown on the page
to the last), so two rows' lines can be read against each other; the rate axis runs from 0 at
the bottom to 1 at the top. A window without a call has no point: the line passes over it. Each
point has a tooltip with its numbers, and the chart a title for screen readers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from trailcheck.components import ComponentRate, WindowRate
from trailcheck.report.html_markup import Html, el, join, void
from trailcheck.ui.layout import format_ns

__all__ = ["SPARK_WINDOWS", "TimeAxis", "sparkline", "time_axis"]

WIDTH: Final = 120
HEIGHT: Final = 24
_PAD: Final = 3
# The latest windows drawn, so a line stays legible.
SPARK_WINDOWS: Final = 120


class TimeAxis:
    """Where a window's middle falls across the sparklines' width."""

    def __init__(self, first_ns: int, last_ns: int) -> None:
        self.first_ns = first_ns
        self.span_ns = max(last_ns - first_ns, 1)

    def x(self, window: WindowRate) -> float:
        middle = (window.start_ns + window.end_ns) / 2
        return _PAD + (WIDTH - 2 * _PAD) * (middle - self.first_ns) / self.span_ns


def time_axis(rates: Sequence[ComponentRate]) -> TimeAxis | None:
    """The axis the page's sparklines share; ``None`` when no row has a window."""
    shown = [w for rate in rates for w in rate.windows[-SPARK_WINDOWS:]]
    if not shown:
        return None
    return TimeAxis(min(w.start_ns for w in shown), max(w.end_ns for w in shown))


def _y(rate: float) -> float:
    return _PAD + (HEIGHT - 2 * _PAD) * (1 - rate)


def _tip(window: WindowRate) -> str:
    return (
        f"{format_ns(window.start_ns)[:16]}: {window.succeeded}/{window.calls} succeeded,"
        f" rate {window.success_rate:.3f}"
    )


def sparkline(rate: ComponentRate, axis: TimeAxis, *, chart_id: str) -> Html:
    """``rate``'s windows on ``axis``; ``-`` when it has none."""
    windows = rate.windows[-SPARK_WINDOWS:]
    if not windows:
        return Html("-")
    points = [f"{axis.x(w):.1f},{_y(w.success_rate):.1f}" for w in windows]
    dots = [
        el(
            "circle",
            el("title", _tip(w)),
            cx=f"{axis.x(w):.1f}",
            cy=f"{_y(w.success_rate):.1f}",
            r=1.5,
        )
        for w in windows
    ]
    lowest = min(w.success_rate for w in windows)
    title = (
        f"{rate.component}: success rate in {len(windows)} window(s), lowest {lowest:.3f},"
        f" latest {windows[-1].success_rate:.3f}"
    )
    return el(
        "svg",
        el("title", title, id=f"{chart_id}-title"),
        void("line", x1=0, y1=_y(1.0), x2=WIDTH, y2=_y(1.0), class_="full"),
        void("polyline", points=" ".join(points), class_="spark"),
        join(dots),
        viewBox=f"0 0 {WIDTH} {HEIGHT}",
        width=WIDTH,
        height=HEIGHT,
        role="img",
        aria_labelledby=f"{chart_id}-title",
        class_="sparkline",
        data_testid="sparkline",
    )
