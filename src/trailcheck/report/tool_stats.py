"""Per-tool call counts, error rates and latency across every trial of a run.

A tool that errors often or is slow shows here before it shows in pass rates. Latency is the
median and the 95th percentile of the calls' ``duration_ms`` (linear interpolation between
order statistics, as numpy does by default); a call without a duration (its span never ended)
counts as a call but not in the latency.
"""

from __future__ import annotations

from dataclasses import dataclass

from trailcheck.components import percentile
from trailcheck.run.results import RunReport


@dataclass(frozen=True, slots=True)
class ToolStats:
    """One tool's calls over the run."""

    name: str
    calls: int
    errors: int
    timed_calls: int
    median_ms: float | None
    p95_ms: float | None

    @property
    def error_rate(self) -> float:
        return self.errors / self.calls if self.calls else 0.0


def tool_stats(report: RunReport) -> list[ToolStats]:
    """Every tool called in ``report``, by name."""
    durations: dict[str, list[float]] = {}
    calls: dict[str, int] = {}
    errors: dict[str, int] = {}
    for trial in report.trials():
        for call in trial.calls:
            calls[call.name] = calls.get(call.name, 0) + 1
            errors[call.name] = errors.get(call.name, 0) + (not call.succeeded)
            if call.duration_ms is not None:
                durations.setdefault(call.name, []).append(call.duration_ms)
    stats = []
    for name in sorted(calls):
        ordered = sorted(durations.get(name, []))
        stats.append(
            ToolStats(
                name=name,
                calls=calls[name],
                errors=errors[name],
                timed_calls=len(ordered),
                median_ms=percentile(ordered, 0.5),
                p95_ms=percentile(ordered, 0.95),
            )
        )
    return stats
