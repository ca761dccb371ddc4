"""An evaluator version's failure rate over time as inline SVG, drawn here: no script, no
library, nothing fetched (the UI works offline).

Each window with scores is a shaded polygon from its interval's lower bound to its upper one,
as wide as the window on the time axis, and a point at its rate; a polyline joins the points.
A window with nothing scored has no rate, so nothing is drawn there (the line passes over it).
The rate axis ends at the smallest of 1%, 2%, 5%, 10%, 20%, 50% and 100% that holds every upper
bound, so a low rate stays readable. The chart has a title and a description for screen
readers, each point a tooltip with its numbers, and the page a table of the same windows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from trailcheck.online.results import EvaluatorStatus, WindowStatus
from trailcheck.report.html_markup import Html, el, join, void
from trailcheck.ui.layout import format_ns

__all__ = ["CHARTED_WINDOWS", "rate_chart", "window_text"]

WIDTH: Final = 560
HEIGHT: Final = 200
_LEFT, _RIGHT, _TOP, _BOTTOM = 52, 16, 12, 44
_TOPS: Final = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
# The latest windows charted, so the chart stays legible; the totals count every window.
CHARTED_WINDOWS: Final = 240


def _percent(value: float) -> str:
    return f"{value * 100:g}%"


def _minute(moment_ns: int) -> str:
    return format_ns(moment_ns)[:16]


def window_text(window: WindowStatus) -> str:
    """``2026-12-07 13:00: 3/40 failed, rate 0.075 [0.026, 0.199]``."""
    low, high = window.interval
    rate = "-" if window.failure_rate is None else f"{window.failure_rate:.3f}"
    bounds = "" if low is None or high is None else f" [{low:.3f}, {high:.3f}]"
    failed = window.scored - window.passed
    return f"{_minute(window.start_ns)}: {failed}/{window.scored} failed, rate {rate}{bounds}"


class _Frame:
    """Where a time and a rate fall in the drawing."""

    def __init__(self, windows: Sequence[WindowStatus]) -> None:
        self.first = windows[0].start_ns
        self.last = windows[-1].end_ns
        highest = max((w.interval[1] or 0.0) for w in windows)
        self.top = next(top for top in _TOPS if highest <= top)

    def x(self, moment_ns: int) -> float:
        width = WIDTH - _LEFT - _RIGHT
        return _LEFT + width * (moment_ns - self.first) / (self.last - self.first)

    def y(self, rate: float) -> float:
        return _TOP + (HEIGHT - _TOP - _BOTTOM) * (1 - rate / self.top)


def _axes(frame: _Frame, window: str) -> list[Html]:
    bottom, right = frame.y(0.0), WIDTH - _RIGHT
    parts = [
        void("line", x1=_LEFT, y1=bottom, x2=right, y2=bottom, class_="axis"),
        void("line", x1=_LEFT, y1=bottom, x2=_LEFT, y2=frame.y(frame.top), class_="axis"),
    ]
    for tick in (0.0, frame.top / 2, frame.top):
        y = f"{frame.y(tick):.1f}"
        parts.append(void("line", x1=_LEFT, y1=y, x2=right, y2=y, class_="grid"))
        parts.append(
            el("text", _percent(tick), x=_LEFT - 6, y=f"{frame.y(tick) + 4:.1f}", class_="tick-y")
        )
    below = bottom + 16
    parts += [
        el("text", _minute(frame.first), x=_LEFT, y=below, class_="tick-start"),
        el("text", _minute(frame.last), x=right, y=below, class_="tick-end"),
        el(
            "text",
            f"failure rate per {window} window, by trace start (UTC)",
            x=(WIDTH + _LEFT) / 2,
            y=HEIGHT - 6,
            class_="tick-x",
        ),
    ]
    return parts


def _window_marks(
    frame: _Frame, windows: Sequence[WindowStatus]
) -> tuple[list[Html], list[str], list[Html]]:
    """Each window's interval polygon, the polyline's points, and each window's point."""
    bands: list[Html] = []
    points: list[str] = []
    dots: list[Html] = []
    for window in windows:
        low, high = window.interval
        left, right = f"{frame.x(window.start_ns):.1f}", f"{frame.x(window.end_ns):.1f}"
        if low is not None and high is not None:
            top, bottom = f"{frame.y(high):.1f}", f"{frame.y(low):.1f}"
            corners = f"{left},{top} {right},{top} {right},{bottom} {left},{bottom}"
            bands.append(void("polygon", points=corners, class_="band"))
        if window.failure_rate is None:
            continue
        x = f"{(frame.x(window.start_ns) + frame.x(window.end_ns)) / 2:.1f}"
        y = f"{frame.y(window.failure_rate):.1f}"
        points.append(f"{x},{y}")
        dots.append(el("circle", el("title", window_text(window)), cx=x, cy=y, r=3))
    return bands, points, dots


def rate_chart(status: EvaluatorStatus, window: str, *, chart_id: str) -> Html:
    """The chart of ``status``'s windows (of length ``window``, as written); ``chart_id`` makes
    its title's and description's ids unique on the page."""
    windows = [w for w in status.windows if w.scored][-CHARTED_WINDOWS:]
    if not windows:
        return el("p", "No window holds a score.", class_="meta")
    frame = _Frame(windows)
    bands, points, dots = _window_marks(frame, windows)
    title = f"{status.name}@{status.version}: failure rate per {window} window"
    level = f"{status.level:.0%} {status.method}"
    description = (
        f"{len(windows)} window(s) with scores, from {_minute(frame.first)} to"
        f" {_minute(frame.last)} UTC; the line joins each window's failure rate, the shaded"
        f" boxes are their {level} intervals; windows without scores are not drawn."
        f" The rate axis runs from 0% to {_percent(frame.top)}."
    )
    return el(
        "svg",
        el("title", title, id=f"{chart_id}-title"),
        el("desc", description, id=f"{chart_id}-desc"),
        join(_axes(frame, window)),
        join(bands),
        void("polyline", points=" ".join(points), class_="rate"),
        join(dots),
        viewBox=f"0 0 {WIDTH} {HEIGHT}",
        width=WIDTH,
        height=HEIGHT,
        role="img",
        aria_labelledby=f"{chart_id}-title {chart_id}-desc",
        class_="rate-chart",
        data_testid="rate-chart",
    )
