"""Wilson and task-bootstrap intervals: known values, undefined over nothing, seeded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.errors import UsageError
from trailcheck.intervals import bootstrap_interval, rate, wilson_interval


def test_wilson_8_of_10_at_95_percent() -> None:
    interval = wilson_interval(8, 10)
    assert interval.low == pytest.approx(0.490, abs=5e-4)
    assert interval.high == pytest.approx(0.943, abs=5e-4)
    assert interval.label() == "wilson 95%"
    assert (interval.resamples, interval.seed) == (None, None)


def test_wilson_at_the_edges_stays_in_0_1() -> None:
    none = wilson_interval(0, 20)
    every = wilson_interval(20, 20)
    assert none.low == 0.0
    assert 0 < (none.high or 0) < 0.2
    assert every.high == 1.0
    assert 0.8 < (every.low or 0) < 1


def test_a_rate_over_nothing_is_undefined() -> None:
    empty = rate(0, 0)
    assert empty.value is None
    assert (empty.interval.low, empty.interval.high) == (None, None)
    assert not empty.interval.includes(0.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: wilson_interval(3, 2),
        lambda: wilson_interval(1, 2, level=1.0),
        lambda: bootstrap_interval([1.0], resamples=0),
    ],
)
def test_impossible_requests_are_usage_errors(call: object) -> None:
    with pytest.raises(UsageError):
        call()  # type: ignore[operator]


def test_bootstrap_is_deterministic_for_a_seed_and_labelled() -> None:
    values = [0.0, 0.25, 0.5, 1.0, 1.0, 0.75, 0.0, 1.0]
    first = bootstrap_interval(values, seed=5, resamples=500)
    assert first == bootstrap_interval(values, seed=5, resamples=500)
    assert first != bootstrap_interval(values, seed=6, resamples=500)
    assert first.label() == "bootstrap-task 95%, 500 resamples, seed 5"
    mean = sum(values) / len(values)
    assert first.includes(mean)


def test_bootstrap_of_a_constant_is_that_constant_and_of_nothing_undefined() -> None:
    assert bootstrap_interval([0.5] * 7).model_dump(include={"low", "high"}) == {
        "low": 0.5,
        "high": 0.5,
    }
    assert not bootstrap_interval([]).defined


@given(st.lists(st.floats(0, 1), min_size=1, max_size=20), st.integers(0, 2**32))
def test_bootstrap_bounds_lie_within_the_values(values: list[float], seed: int) -> None:
    interval = bootstrap_interval(values, seed=seed, resamples=50)
    assert interval.low is not None
    assert interval.high is not None
    assert min(values) - 1e-12 <= interval.low <= interval.high <= max(values) + 1e-12
