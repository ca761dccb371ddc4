"""Reports and traces compared across executors: equal but for what a clock measured."""

from __future__ import annotations

from typing import Any

import orjson

from trailcheck.run.runner import RunResult

# Clock readings: when the run began, how long each trial and call took, when each span started
# and its events happened.
TIMINGS = frozenset({"created_at", "duration_ms", "start_ns", "end_ns", "time_ns", "latency_ms"})


def without_timings(value: Any) -> Any:
    """``value`` (parsed JSON) without the keys of :data:`TIMINGS`, at any depth."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [without_timings(item) for item in value]
    return value


def comparable(result: RunResult) -> tuple[Any, list[Any]]:
    """The report (without the executor that made it) and the traces, minus timings."""
    report = orjson.loads(result.report.model_dump_json())
    report["manifest"].pop("executor", None)
    traces = [orjson.loads(line) for line in result.trace_lines]
    return without_timings(report), without_timings(traces)
