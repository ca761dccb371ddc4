"""Each tool's success in a candidate run against its baseline run: calls, how many succeeded,
the rate with its Wilson interval on each side, and the difference.

A call succeeded when it returned without an error (the report's ``CallSummary.succeeded``);
the components' schema checks are for traces (docs/components.md). A tool called on one side
only is listed with no calls on the other. The interval treats calls as independent: calls of
one trial are not, so read it as the least uncertainty there is. Whether the difference is more
than chance is shown, not tested: the two intervals overlapping or not is the reader's guide.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from trailcheck.intervals import DEFAULT_LEVEL, wilson_interval

__all__ = ["ToolDelta", "ToolSuccess", "compare_tool_success"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class ToolSuccess(BaseModel):
    """One tool's calls in one run: how many, how many succeeded, the rate and its interval
    (``None`` without a call)."""

    model_config = _FROZEN

    calls: int
    succeeded: int
    success_rate: float | None
    interval: tuple[float | None, float | None]


class ToolDelta(BaseModel):
    """One tool in both runs, and the candidate's rate minus the baseline's (``None`` unless
    both called it)."""

    model_config = _FROZEN

    tool: str
    baseline: ToolSuccess
    candidate: ToolSuccess
    delta: float | None


def _tally(calls: Iterable[tuple[str, bool]]) -> dict[str, list[int]]:
    counts: dict[str, list[int]] = {}
    for name, succeeded in calls:
        found = counts.setdefault(name, [0, 0])
        found[0] += 1
        found[1] += succeeded
    return counts


def _success(counts: list[int] | None, level: float) -> ToolSuccess:
    calls, succeeded = counts or (0, 0)
    interval = wilson_interval(succeeded, calls, level)
    return ToolSuccess(
        calls=calls,
        succeeded=succeeded,
        success_rate=succeeded / calls if calls else None,
        interval=(interval.low, interval.high),
    )


def compare_tool_success(
    candidate: Iterable[tuple[str, bool]],
    baseline: Iterable[tuple[str, bool]],
    *,
    level: float = DEFAULT_LEVEL,
) -> list[ToolDelta]:
    """Every tool called in either run, by name, from each run's ``(tool, succeeded)`` calls."""
    after, before = _tally(candidate), _tally(baseline)
    deltas = []
    for tool in sorted(after.keys() | before.keys()):
        new, old = _success(after.get(tool), level), _success(before.get(tool), level)
        delta = None
        if new.success_rate is not None and old.success_rate is not None:
            delta = new.success_rate - old.success_rate
        deltas.append(ToolDelta(tool=tool, baseline=old, candidate=new, delta=delta))
    return deltas
