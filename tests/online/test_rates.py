"""Failure rates with intervals, the two-proportion test, and the alert rules over windows."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from trailcheck.errors import UsageError
from trailcheck.online import (
    AlertRule,
    FailureRateAboveRule,
    FailureRateChangeRule,
    RateMethod,
    WindowCounts,
    evaluate_alert,
    failure_rate,
    fisher_exact_p,
    two_proportion_test,
)

# --- failure rates ------------------------------------------------------------------------------


def test_a_windows_failure_rate_is_failed_over_scored_with_its_wilson_interval() -> None:
    rate = failure_rate(WindowCounts(scored=263, passed=182))
    assert (rate.count, rate.total) == (81, 263)
    assert rate.value == pytest.approx(81 / 263)
    # Newcombe (1998), Table I, Wilson: 81/263 -> 0.2553 to 0.3662.
    assert rate.interval.low == pytest.approx(0.2553, abs=5e-5)
    assert rate.interval.high == pytest.approx(0.3662, abs=5e-5)
    assert rate.interval.label() == "wilson 95%"


def test_the_jeffreys_method_gives_the_beta_posteriors_interval() -> None:
    rate = failure_rate(WindowCounts(scored=10, passed=9), method="jeffreys")
    # scipy.stats.beta.ppf(0.025 and 0.975, 1.5, 9.5), scipy 1.17.1.
    assert rate.interval.low == pytest.approx(0.011011673763161133, rel=1e-9)
    assert rate.interval.high == pytest.approx(0.3813147710666164, rel=1e-9)
    assert rate.interval.label() == "jeffreys 95%"


@pytest.mark.parametrize("method", ["wilson", "jeffreys"])
def test_edge_windows_nothing_scored_all_passed_all_failed(method: RateMethod) -> None:
    empty = failure_rate(WindowCounts(scored=0, passed=0), method=method)
    assert empty.value is None
    assert not empty.interval.defined
    clean = failure_rate(WindowCounts(scored=40, passed=40), method=method)
    assert clean.value == 0.0
    assert clean.interval.low == 0.0
    assert 0.0 < (clean.interval.high or 0.0) < 0.1
    broken = failure_rate(WindowCounts(scored=40, passed=0), method=method)
    assert broken.value == 1.0
    assert broken.interval.high == 1.0
    assert 0.9 < (broken.interval.low or 0.0) < 1.0


def test_a_window_cannot_pass_more_than_it_scored() -> None:
    with pytest.raises(ValidationError, match="exceeds scored"):
        WindowCounts(scored=3, passed=4)
    with pytest.raises(ValidationError):
        WindowCounts(scored=-1, passed=0)


# --- the two-proportion test --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "z", "p_value", "method"),
    [
        # By hand: pooled 50/200 = 0.25, se = sqrt(0.25 * 0.75 * (1/100 + 1/100)) = 0.0612372,
        # z = 0.1 / se = 1.6329932; p = erfc(z / sqrt 2). The z p-values equal scipy 1.17.1's
        # chi2_contingency(correction=False) of the 2x2 table (z^2 is its statistic, 2.6667).
        ((30, 100, 20, 100), 1.6329931618554523, 0.10247043485974942, "z"),
        # A cell expects 40 * 17 / 240 = 2.8 failures: the p-value is Fisher's exact test's
        # (scipy 1.17.1 fisher_exact), where z alone would say 6.1e-10.
        ((12, 40, 5, 200), math.sqrt(38.30123977842257), 3.2720078076415854e-07, "fisher"),
        ((1, 1000, 40, 1000), -math.sqrt(37.87397751466028), 7.546515293982662e-10, "z"),
    ],
)
def test_the_two_proportion_test_against_known_values(
    counts: tuple[int, int, int, int], z: float, p_value: float, method: str
) -> None:
    test = two_proportion_test(*counts)
    assert test.z == pytest.approx(z, rel=1e-9)
    assert test.p_value == pytest.approx(p_value, rel=1e-6)
    assert test.method == method
    assert test.difference == pytest.approx(counts[0] / counts[1] - counts[2] / counts[3])


@pytest.mark.parametrize(
    ("table", "p_value"),
    [
        # scipy 1.17.1 fisher_exact of the same tables.
        ((1, 10, 11, 14), 0.0027594561852200836),
        ((3, 10, 0, 10), 0.21052631578947367),
        ((2, 10, 0, 10), 0.4736842105263158),
        ((3, 1000, 0, 200), 1.0),
        ((3, 1_000_000, 0, 1_000_000), 0.24999962497779532),  # a large window, in logarithms
    ],
)
def test_fishers_exact_test_against_known_values(
    table: tuple[int, int, int, int], p_value: float
) -> None:
    # In logarithms, a window of millions loses digits past the eighth (lgamma of 10^6 is 10^7).
    assert fisher_exact_p(*table) == pytest.approx(p_value, rel=1e-8)


def test_small_windows_are_judged_by_the_exact_test_not_the_normal_one() -> None:
    test = two_proportion_test(3, 10, 0, 10)  # z = 1.88 says p = 0.06
    assert test.method == "fisher"
    assert test.p_value == pytest.approx(0.21052631578947367)
    alert = evaluate_alert(
        FailureRateChangeRule(alpha=0.1),
        WindowCounts(scored=10, passed=7),
        baseline=WindowCounts(scored=10, passed=10),
    )
    assert alert is None  # 3 failures in 10 after none in 10 is chance at alpha 0.1


def test_equal_windows_with_no_failures_or_only_failures_do_not_differ() -> None:
    for counts in ((0, 50, 0, 80), (50, 50, 80, 80)):
        test = two_proportion_test(*counts)
        assert (test.z, test.p_value, test.difference) == (0.0, 1.0, 0.0)


def test_an_empty_side_leaves_the_test_undefined() -> None:
    test = two_proportion_test(3, 10, 0, 0)
    assert (test.rate_a, test.rate_b) == (0.3, None)
    assert (test.z, test.p_value, test.difference) == (None, None, None)
    with pytest.raises(UsageError):
        two_proportion_test(11, 10, 0, 5)


@given(st.integers(1, 400), st.integers(1, 400), st.data())
def test_the_p_value_is_a_probability_and_symmetric(
    n_a: int, n_b: int, data: st.DataObject
) -> None:
    x_a = data.draw(st.integers(0, n_a))
    x_b = data.draw(st.integers(0, n_b))
    forward, backward = (
        two_proportion_test(x_a, n_a, x_b, n_b),
        two_proportion_test(x_b, n_b, x_a, n_a),
    )
    assert forward.p_value is not None
    assert 0.0 <= forward.p_value <= 1.0
    assert forward.p_value == pytest.approx(backward.p_value)
    assert forward.z == pytest.approx(-(backward.z or 0.0))


# --- alert rules --------------------------------------------------------------------------------


def test_a_threshold_rule_fires_when_the_lower_bound_is_above_it() -> None:
    rule = FailureRateAboveRule(threshold=0.2)
    alert = evaluate_alert(rule, WindowCounts(scored=263, passed=182))
    assert alert is not None
    assert alert.rate.interval.low == pytest.approx(0.2553, abs=5e-5)
    assert alert.reason == (
        "failure rate 81/263=0.308, wilson 95% [0.255, 0.366]: lower bound 0.255 > threshold 0.200"
    )


def test_a_threshold_rule_ignores_a_point_estimate_above_it_on_few_traces() -> None:
    rule = FailureRateAboveRule(threshold=0.2)
    # 2 of 5 failed: 0.4 is above 0.2, but the interval reaches down to 0.118.
    assert evaluate_alert(rule, WindowCounts(scored=5, passed=3)) is None
    # The same rate over 200 traces is evidence.
    assert evaluate_alert(rule, WindowCounts(scored=200, passed=120)) is not None


def test_a_threshold_rule_on_edge_windows() -> None:
    rule = FailureRateAboveRule(threshold=0.0, method="jeffreys")
    assert evaluate_alert(rule, WindowCounts(scored=0, passed=0)) is None
    assert evaluate_alert(rule, WindowCounts(scored=1000, passed=1000)) is None
    alert = evaluate_alert(rule, WindowCounts(scored=3, passed=0))
    assert alert is not None
    assert alert.rate.interval.method == "jeffreys"
    assert alert.rate.interval.high == 1.0


def test_a_change_rule_fires_when_the_rate_rises_beyond_chance() -> None:
    rule = FailureRateChangeRule(alpha=0.01)
    alert = evaluate_alert(
        rule, WindowCounts(scored=40, passed=28), baseline=WindowCounts(scored=200, passed=195)
    )
    assert alert is not None
    assert alert.test is not None
    assert alert.test.p_value == pytest.approx(3.2720078076415854e-07, rel=1e-6)
    assert alert.baseline is not None
    assert (alert.baseline.count, alert.baseline.total) == (5, 200)
    assert alert.reason == (
        "failure rate 12/40=0.300 against baseline 5/200=0.025: up 0.275, z=6.19,"
        " two-sided p=3.3e-07 (Fisher exact) < alpha 0.01"
    )


def test_a_change_rule_stays_quiet_on_chance_and_on_improvements() -> None:
    increase = FailureRateChangeRule(alpha=0.05)
    # 30/100 against 20/100: p = 0.102, chance.
    window, baseline = WindowCounts(scored=100, passed=70), WindowCounts(scored=100, passed=80)
    assert evaluate_alert(increase, window, baseline) is None
    # A fall in the failure rate is not an alarm unless asked for.
    better, worse = WindowCounts(scored=1000, passed=999), WindowCounts(scored=1000, passed=960)
    assert evaluate_alert(increase, better, worse) is None
    fell = evaluate_alert(FailureRateChangeRule(alpha=0.05, direction="decrease"), better, worse)
    assert fell is not None
    assert "down 0.039" in fell.reason
    either = FailureRateChangeRule(alpha=0.05, direction="either")
    assert evaluate_alert(either, better, worse) is not None
    assert evaluate_alert(either, worse, better) is not None


def test_a_change_rule_needs_a_baseline_and_both_windows_scored() -> None:
    rule = FailureRateChangeRule()
    with pytest.raises(UsageError, match="baseline"):
        evaluate_alert(rule, WindowCounts(scored=10, passed=0))
    empty = WindowCounts(scored=0, passed=0)
    assert evaluate_alert(rule, WindowCounts(scored=10, passed=0), empty) is None
    assert evaluate_alert(rule, empty, WindowCounts(scored=10, passed=0)) is None


def test_alert_rules_are_data_chosen_by_kind() -> None:
    adapter: TypeAdapter[AlertRule] = TypeAdapter(AlertRule)
    above = adapter.validate_python({"kind": "failure_rate_above", "threshold": 0.1})
    change = adapter.validate_python({"kind": "failure_rate_change", "alpha": 0.001})
    assert above == FailureRateAboveRule(threshold=0.1)
    assert change == FailureRateChangeRule(alpha=0.001)
    with pytest.raises(ValidationError):
        adapter.validate_python({"kind": "failure_rate_above", "threshold": 1.0})
    with pytest.raises(ValidationError):
        adapter.validate_python({"kind": "failure_rate_change", "alpha": 0})
