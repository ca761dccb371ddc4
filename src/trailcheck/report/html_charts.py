"""The pass^k-against-k chart as inline SVG: no script, no library, nothing fetched.

pass^k (all k trials pass) and pass@k (at least one does) for k = 1..K, each point with a
whisker for its interval. An undefined value (fewer than k scored trials on every task) has no
point: the chart leaves a gap rather than draw a number that does not exist.
"""

from __future__ import annotations

from collections.abc import Mapping

from trailcheck.intervals import Interval
from trailcheck.report.html_markup import Html, el, join, void
from trailcheck.run.stats import OutcomeSummary

WIDTH = 480
HEIGHT = 260
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 16, 32, 40


_PAD = 20  # keeps the first and last points (and their whiskers) off the axes


def _x(k: int, top_k: int) -> float:
    span = WIDTH - _LEFT - _RIGHT - 2 * _PAD
    return _LEFT + _PAD + (span / 2 if top_k == 1 else span * (k - 1) / (top_k - 1))


def _y(value: float) -> float:
    return _TOP + (HEIGHT - _TOP - _BOTTOM) * (1 - value)


def _axes(top_k: int) -> list[Html]:
    parts = [
        void("line", x1=_LEFT, y1=_y(0), x2=WIDTH - _RIGHT, y2=_y(0), class_="axis"),
        void("line", x1=_LEFT, y1=_y(0), x2=_LEFT, y2=_y(1), class_="axis"),
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _y(tick)
        parts.append(void("line", x1=_LEFT, y1=y, x2=WIDTH - _RIGHT, y2=y, class_="grid"))
        parts.append(el("text", f"{tick:.2f}", x=_LEFT - 6, y=y + 4, class_="tick-y"))
    for k in range(1, top_k + 1):
        parts.append(el("text", str(k), x=_x(k, top_k), y=_y(0) + 16, class_="tick-x"))
    parts.append(el("text", "k", x=(WIDTH + _LEFT) / 2, y=HEIGHT - 6, class_="tick-x"))
    return parts


def _series(
    name: str,
    values: Mapping[int, float | None],
    intervals: Mapping[int, Interval],
    top_k: int,
    css: str,
    shift: float = 0.0,
) -> list[Html]:
    parts: list[Html] = []
    points: list[str] = []
    for k in range(1, top_k + 1):
        value = values.get(k)
        if value is None:
            continue
        x, y = _x(k, top_k) + shift, _y(value)
        points.append(f"{x:.1f},{y:.1f}")
        interval = intervals.get(k)
        label = f"{name} at k={k}: {value:.3f}"
        if interval is not None and interval.low is not None and interval.high is not None:
            label += f" [{interval.low:.3f}, {interval.high:.3f}] ({interval.label()})"
            parts.append(
                void(
                    "line",
                    x1=x,
                    x2=x,
                    y1=_y(interval.low),
                    y2=_y(interval.high),
                    class_=f"whisker {css}",
                )
            )
        parts.append(el("circle", el("title", label), cx=x, cy=y, r=4, class_=f"point {css}"))
    line = void("polyline", points=" ".join(points), class_=f"series {css}") if points else None
    return [line, *parts] if line is not None else parts


def pass_chart(summary: OutcomeSummary) -> Html:
    """pass^k and pass@k against k, with interval whiskers and a legend."""
    top_k = summary.k
    hat = _series("pass^k", summary.pass_hat_k, summary.pass_hat_k_interval, top_k, "hat")
    # pass@k is drawn a few pixels right so that, where the two coincide, both stay visible.
    at = _series("pass@k", summary.pass_at_k, summary.pass_at_k_interval, top_k, "at", 6.0)
    legend_y = _TOP / 2
    legend = [
        void("line", x1=WIDTH - 150, y1=legend_y, x2=WIDTH - 130, y2=legend_y, class_="series hat"),
        el("text", "pass^k", x=WIDTH - 125, y=legend_y + 4, class_="legend"),
        void("line", x1=WIDTH - 75, y1=legend_y, x2=WIDTH - 55, y2=legend_y, class_="series at"),
        el("text", "pass@k", x=WIDTH - 50, y=legend_y + 4, class_="legend"),
    ]
    method = summary.pass_hat_k_interval[1].label() if summary.pass_hat_k_interval else ""
    return el(
        "figure",
        el(
            "svg",
            join([*_axes(top_k), *at, *hat, *legend]),
            viewBox=f"0 0 {WIDTH} {HEIGHT}",
            width=WIDTH,
            height=HEIGHT,
            role="img",
            aria_label="pass^k and pass@k against k with interval whiskers",
            data_testid="pass-chart",
        ),
        el("figcaption", f"whiskers: {method} intervals; undefined values are not drawn"),
    )
