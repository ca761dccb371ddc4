"""Per-component rates: calls, success with its Wilson interval, error kinds, latency
quantiles, means of the score values, and windows."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.components import SpanScore, component_rates, percentile
from trailcheck.intervals import wilson_interval

HOUR = 3600 * 10**9


def call(
    component: str,
    start_ns: int,
    *,
    ok: bool = True,
    kind: str = "tool",
    latency_ms: float | None = 10.0,
    error_kind: str = "TimeoutError",
    values: dict[str, float] | None = None,
) -> SpanScore:
    return SpanScore(
        trace_id=f"t{start_ns}",
        span_id="s",
        kind=kind,  # type: ignore[arg-type]
        component=component,
        start_ns=start_ns,
        latency_ms=latency_ms,
        outcome="ok" if ok else "error",
        error_kind=None if ok else error_kind,
        values=values or {},
    )


def test_each_component_with_its_rate_interval_errors_and_latency() -> None:
    scores = [
        call("search", 0, latency_ms=10.0),
        call("search", 1, latency_ms=20.0),
        call("search", 2, ok=False, latency_ms=30.0),
        call("search", 3, ok=False, latency_ms=None, error_kind="ValueError"),
        call("search", 4, ok=False, latency_ms=40.0),
        call("gpt-x", 5, kind="llm", values={"input_tokens": 100, "output_parsed": 1.0}),
        call("gpt-x", 6, kind="llm", values={"input_tokens": 300}),
        call("billing", 7, kind="agent"),
        call("policies", 8, kind="retriever", values={"recall_at_k": 0.5}),
    ]
    rates = component_rates(scores)
    assert [(r.kind, r.component) for r in rates.components] == [
        ("tool", "search"),
        ("agent", "billing"),
        ("llm", "gpt-x"),
        ("retriever", "policies"),
    ]
    search = rates.components[0]
    assert (search.calls, search.succeeded, search.success_rate) == (5, 2, 0.4)
    expected = wilson_interval(2, 5)
    assert search.interval == (expected.low, expected.high)
    assert search.error_kinds == {"TimeoutError": 2, "ValueError": 1}
    assert search.latency_p50_ms == 25.0  # of 10, 20, 30, 40: the unended call is not timed
    assert search.latency_p95_ms == pytest.approx(38.5)
    model = rates.components[2]
    assert model.means == {"input_tokens": 200.0, "output_parsed": 1.0}
    assert (rates.since_ns, rates.window_ns, rates.method) == (None, None, "wilson")


def test_windows_are_aligned_to_since_and_empty_ones_left_out() -> None:
    base = 100 * HOUR
    scores = [
        call("search", base - 1),  # before since: not counted
        call("search", base + 1),
        call("search", base + 2, ok=False),
        call("search", base + 2 * HOUR + 5),
    ]
    rates = component_rates(scores, since_ns=base, window_ns=HOUR)
    [search] = rates.components
    assert search.calls == 3
    assert [(w.start_ns - base, w.calls, w.succeeded) for w in search.windows] == [
        (0, 2, 1),
        (2 * HOUR, 1, 1),
    ]
    assert search.windows[0].success_rate == 0.5
    assert search.windows[0].end_ns == base + HOUR
    epoch = component_rates(scores, window_ns=HOUR).components[0]
    assert [w.start_ns % HOUR for w in epoch.windows] == [0, 0, 0]


def test_nothing_read_is_no_component() -> None:
    assert component_rates([]).components == []
    with pytest.raises(ValueError, match="longer than 0"):
        component_rates([], window_ns=0)


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 10 * HOUR)), max_size=40))
def test_the_windows_add_up_to_the_whole(calls: list[tuple[bool, int]]) -> None:
    scores = [call("search", start, ok=ok) for ok, start in calls]
    for component in component_rates(scores, window_ns=HOUR).components:
        assert sum(w.calls for w in component.windows) == component.calls
        assert sum(w.succeeded for w in component.windows) == component.succeeded
        low, high = component.interval
        assert low is not None
        assert high is not None
        assert low <= (component.success_rate or 0.0) <= high


def test_percentile_interpolates_between_order_statistics() -> None:
    assert percentile([], 0.5) is None
    assert percentile([4.0], 0.95) == 4.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
