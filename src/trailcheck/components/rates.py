"""Per-component rates across traces: for each tool, sub-agent, retriever and model, its calls,
success rate with a Wilson interval, error kinds, latency p50 and p95, the mean of each score
value, and the same success rate per window of time.

A call is one scored span (:class:`~trailcheck.components.SpanScore`); it succeeded when its
outcome is ``ok``. Calls are placed in time by when their span started; windows are aligned to
``since`` when given, else to the epoch (hourly windows are clock hours in UTC), as the online
rates are, and a window without a call is left out. Latency quantiles interpolate linearly
between order statistics (numpy's default); a call without a latency counts as a call but not in
them. The Wilson interval is of independent calls: calls within one trace are correlated, so read
it as a lower bound on the uncertainty.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from trailcheck.components.span_score import COMPONENT_KINDS, ComponentKind, SpanScore
from trailcheck.intervals import DEFAULT_LEVEL, wilson_interval

__all__ = [
    "ComponentRate",
    "ComponentRates",
    "WindowRate",
    "component_rates",
    "percentile",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class WindowRate(BaseModel):
    """One window of one component: its calls, how many succeeded, the rate and interval."""

    model_config = _FROZEN

    start_ns: int
    end_ns: int
    calls: int
    succeeded: int
    success_rate: float
    interval: tuple[float | None, float | None]


class ComponentRate(BaseModel):
    """One component over the calls read."""

    model_config = _FROZEN

    kind: ComponentKind
    component: str
    calls: int
    succeeded: int
    success_rate: float | None
    interval: tuple[float | None, float | None]
    error_kinds: dict[str, int]
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    means: dict[str, float]
    windows: list[WindowRate]


class ComponentRates(BaseModel):
    """Every component's rates (JSON: ``trailcheck components --json``)."""

    model_config = _FROZEN

    since_ns: int | None
    window_ns: int | None
    level: float
    method: str = "wilson"
    components: list[ComponentRate]


def percentile(ordered: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) of sorted values, interpolated linearly; ``None`` for none."""
    if not ordered:
        return None
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (position - below) * (ordered[above] - ordered[below])


@dataclass
class _Tally:
    calls: int = 0
    succeeded: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    sums: dict[str, float] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    windows: dict[int, list[int]] = field(default_factory=dict)

    def add(self, score: SpanScore, window: int | None) -> None:
        self.calls += 1
        self.succeeded += score.succeeded
        if score.error_kind is not None and not score.succeeded:
            self.errors[score.error_kind] += 1
        if score.latency_ms is not None:
            self.latencies.append(score.latency_ms)
        for name, value in score.values.items():
            self.sums[name] = self.sums.get(name, 0.0) + value
            self.counts[name] += 1
        if window is not None:
            counts = self.windows.setdefault(window, [0, 0])
            counts[0] += 1
            counts[1] += score.succeeded


def _interval(succeeded: int, calls: int, level: float) -> tuple[float | None, float | None]:
    found = wilson_interval(succeeded, calls, level)
    return (found.low, found.high)


def _rate(
    key: tuple[ComponentKind, str], tally: _Tally, window_ns: int | None, level: float
) -> ComponentRate:
    ordered = sorted(tally.latencies)
    windows = []
    if window_ns is not None:
        for start in sorted(tally.windows):
            calls, succeeded = tally.windows[start]
            windows.append(
                WindowRate(
                    start_ns=start,
                    end_ns=start + window_ns,
                    calls=calls,
                    succeeded=succeeded,
                    success_rate=succeeded / calls,
                    interval=_interval(succeeded, calls, level),
                )
            )
    return ComponentRate(
        kind=key[0],
        component=key[1],
        calls=tally.calls,
        succeeded=tally.succeeded,
        success_rate=tally.succeeded / tally.calls if tally.calls else None,
        interval=_interval(tally.succeeded, tally.calls, level),
        error_kinds=dict(tally.errors.most_common()),
        latency_p50_ms=percentile(ordered, 0.5),
        latency_p95_ms=percentile(ordered, 0.95),
        means={name: tally.sums[name] / tally.counts[name] for name in sorted(tally.sums)},
        windows=windows,
    )


def component_rates(
    scores: Iterable[SpanScore],
    *,
    since_ns: int | None = None,
    window_ns: int | None = None,
    level: float = DEFAULT_LEVEL,
) -> ComponentRates:
    """The rates of every component among ``scores`` whose span started at or after
    ``since_ns``, by kind (tools, sub-agents, models, retrievers) then name, with windows of
    ``window_ns`` when given (see the module)."""
    if window_ns is not None and window_ns <= 0:
        raise ValueError(f"a window lasts longer than 0 ns, not {window_ns}")
    origin = since_ns or 0
    tallies: dict[tuple[ComponentKind, str], _Tally] = {}
    for score in scores:
        if since_ns is not None and score.start_ns < since_ns:
            continue
        window = None
        if window_ns is not None:
            window = origin + (score.start_ns - origin) // window_ns * window_ns
        key = (score.kind, score.component)
        tally = tallies.get(key)
        if tally is None:
            tally = tallies[key] = _Tally()
        tally.add(score, window)
    order = {kind: index for index, kind in enumerate(COMPONENT_KINDS)}
    keys = sorted(tallies, key=lambda key: (order[key[0]], key[1]))
    return ComponentRates(
        since_ns=since_ns,
        window_ns=window_ns,
        level=level,
        components=[_rate(key, tallies[key], window_ns, level) for key in keys],
    )
