"""The run report's table of each tool's success in this run against the baseline run
(:mod:`trailcheck.run.tool_success`): calls and success rate with its interval on each side,
and the difference, marked where the two intervals do not even overlap."""

from __future__ import annotations

from trailcheck.report.formatting import format_number, format_signed
from trailcheck.report.html_markup import Html, el, join
from trailcheck.run.tool_success import ToolDelta, ToolSuccess

__all__ = ["apart", "tool_success_table"]


def _rate(success: ToolSuccess) -> str:
    low, high = success.interval
    if success.success_rate is None or low is None or high is None:
        return "-"
    return f"{format_number(success.success_rate)} [{low:.3f}, {high:.3f}]"


def apart(delta: ToolDelta) -> bool:
    """Whether the two runs' intervals do not overlap: a change chance alone rarely makes."""
    (old_low, old_high), (new_low, new_high) = delta.baseline.interval, delta.candidate.interval
    if old_low is None or old_high is None or new_low is None or new_high is None:
        return False
    return new_high < old_low or new_low > old_high


def _delta_cell(delta: ToolDelta) -> Html:
    if delta.delta is None:
        return el("td", "-", data_testid="tool-delta")
    text = format_signed(delta.delta)
    direction = "up" if delta.delta > 0 else "down" if delta.delta < 0 else None
    if apart(delta):
        return el("td", el("strong", text), class_=direction, data_testid="tool-delta")
    return el("td", text, class_=direction, data_testid="tool-delta")


def tool_success_table(deltas: list[ToolDelta]) -> Html:
    """Each tool's row, or nothing when neither run called a tool."""
    if not deltas:
        return Html("")
    heads = (
        "tool",
        "baseline calls",
        "baseline success [95%]",
        "calls",
        "success [95%]",
        "change",
    )
    rows = [
        el(
            "tr",
            el("td", delta.tool),
            el("td", delta.baseline.calls),
            el("td", _rate(delta.baseline), data_testid="tool-baseline"),
            el("td", delta.candidate.calls),
            el("td", _rate(delta.candidate), data_testid="tool-candidate"),
            _delta_cell(delta),
            data_testid="tool-success-row",
            data_tool=delta.tool,
        )
        for delta in deltas
    ]
    return join(
        [
            el("h3", "Tools: success in this run against the baseline"),
            el(
                "table",
                el("thead", el("tr", join(el("th", h) for h in heads))),
                el("tbody", join(rows)),
                class_="numbers",
                data_testid="tool-success",
            ),
            el(
                "p",
                "success: calls that returned without an error, with the 95% Wilson interval of"
                " independent calls; a change in bold: the two intervals do not overlap",
                class_="meta",
            ),
        ]
    )
