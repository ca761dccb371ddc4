"""Wilson, Jeffreys and task-bootstrap intervals: known values, undefined over nothing, seeded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.errors import UsageError
from trailcheck.intervals import (
    beta_quantile,
    bootstrap_interval,
    jeffreys_interval,
    rate,
    regularized_beta,
    wilson_interval,
)


def test_wilson_8_of_10_at_95_percent() -> None:
    interval = wilson_interval(8, 10)
    assert interval.low == pytest.approx(0.490, abs=5e-4)
    assert interval.high == pytest.approx(0.943, abs=5e-4)
    assert interval.label() == "wilson 95%"
    assert (interval.resamples, interval.seed) == (None, None)


# Newcombe (1998), "Two-sided confidence intervals for the single proportion: comparison of
# seven methods", Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score, no
# continuity correction), to the 4 decimals printed there.
@pytest.mark.parametrize(
    ("successes", "total", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (29, 29, 0.8830, 1.0000),
    ],
)
def test_wilson_matches_newcombes_published_intervals(
    successes: int, total: int, low: float, high: float
) -> None:
    interval = wilson_interval(successes, total)
    assert interval.low == pytest.approx(low, abs=5e-5)
    assert interval.high == pytest.approx(high, abs=5e-5)


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


# The Jeffreys interval's bounds as scipy 1.17.1 computes them, once, by
# scipy.stats.beta.ppf(0.025 and 0.975, successes + 0.5, failures + 0.5), with the boundary
# rule (lower 0 at no success, upper 1 at every success). scipy is not a dependency of
# trailcheck; the values are kept here.
@pytest.mark.parametrize(
    ("successes", "total", "low", "high"),
    [
        (0, 10, 0.0, 0.21719626750921053),
        (1, 10, 0.011011673763161133, 0.3813147710666164),
        (5, 10, 0.22352867025270517, 0.7764713297472947),
        (10, 10, 0.7828037324907894, 1.0),
        (81, 263, 0.2545219349910236, 0.36564749917408246),
        (3, 1000, 0.0008456348018298346, 0.007984367358403443),
        (12345, 1_000_000, 0.012129989496225745, 0.012562833334317292),
    ],
)
def test_jeffreys_matches_scipys_beta_quantiles(
    successes: int, total: int, low: float, high: float
) -> None:
    interval = jeffreys_interval(successes, total)
    assert interval.low == pytest.approx(low, rel=1e-9, abs=1e-15)
    assert interval.high == pytest.approx(high, rel=1e-9)
    assert interval.label() == "jeffreys 95%"


def test_jeffreys_at_another_level_and_over_nothing() -> None:
    # scipy.stats.beta.ppf(0.05 and 0.95, 8.5, 2.5), as above.
    ninety = jeffreys_interval(8, 10, level=0.90)
    assert ninety.low == pytest.approx(0.5475043630373166, rel=1e-9)
    assert ninety.high == pytest.approx(0.939786281733811, rel=1e-9)
    assert not jeffreys_interval(0, 0).defined
    with pytest.raises(UsageError):
        jeffreys_interval(11, 10)


@pytest.mark.parametrize(
    ("x", "a", "b", "expected"),
    [
        # scipy.special.betainc(a, b, x), scipy 1.17.1.
        (0.3, 2.5, 7.5, 0.6789434858661821),
        (0.001, 0.5, 1000.5, 0.842856476634481),
        (0.9, 50.5, 3.5, 0.14301430975789747),
        # Closed forms: I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b.
        (0.37, 1.0, 1.0, 0.37),
        (0.6, 3.0, 1.0, 0.6**3),
        (0.2, 1.0, 4.0, 1 - 0.8**4),
    ],
)
def test_the_regularized_incomplete_beta_function(
    x: float, a: float, b: float, expected: float
) -> None:
    assert regularized_beta(x, a, b) == pytest.approx(expected, rel=1e-11)


@given(st.floats(0.5, 500), st.floats(0.5, 500), st.floats(0.001, 0.999))
def test_beta_quantile_inverts_the_distribution_function(a: float, b: float, q: float) -> None:
    x = beta_quantile(q, a, b)
    assert 0.0 <= x <= 1.0
    assert regularized_beta(x, a, b) == pytest.approx(q, abs=1e-9)
    # Symmetry: I_x(a, b) = 1 - I_{1-x}(b, a).
    assert regularized_beta(x, a, b) == pytest.approx(1 - regularized_beta(1 - x, b, a), abs=1e-9)


@given(st.integers(0, 300), st.integers(0, 300))
def test_jeffreys_bounds_are_ordered_and_hold_the_estimate(successes: int, failures: int) -> None:
    total = successes + failures
    interval = jeffreys_interval(successes, total)
    if total == 0:
        assert not interval.defined
        return
    assert interval.low is not None
    assert interval.high is not None
    assert 0.0 <= interval.low < interval.high <= 1.0
    # The posterior's interval holds the posterior mean (successes + 1/2) / (total + 1).
    assert interval.includes((successes + 0.5) / (total + 1))
