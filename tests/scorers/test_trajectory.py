"""The trajectory scorer: the issue's examples, the empty and absent expectations, settings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.cases import Case, ToolMatch
from trailcheck.scorers import Score, TrajectoryScorer, trajectory_value
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace


def _trace(*names: str, errored: frozenset[str] = frozenset()) -> Trace:
    builder = TraceBuilder()
    for name in names:
        builder.tool(name, error="failed" if name in errored else None)
    return builder.build()


def _case(expected: list[str] | None, mode: ToolMatch = "in_order", threshold: float = 1.0) -> Case:
    return Case(
        id="c1", input="hi", expected_tools=expected, tool_match=mode, tool_threshold=threshold
    )


def _score(called: list[str], expected: list[str] | None, mode: ToolMatch, **kw: float) -> Score:
    score = TrajectoryScorer().score(_trace(*called), _case(expected, mode, **kw))
    assert score is not None
    return score


REFUND_CALLED = ["lookup_order", "check_refund_policy", "issue_refund"]
REFUND_EXPECTED = ["lookup_order", "verify_identity", "issue_refund"]


def test_refund_example_exact_is_zero() -> None:
    score = _score(REFUND_CALLED, REFUND_EXPECTED, "exact")
    assert score.value == 0.0
    assert not score.passed
    assert score.reason == (
        "exact 0: sequence differs; in_order recall 2/3=0.667; precision 2/3=0.667;"
        " missing verify_identity; extra check_refund_policy"
    )


def test_refund_example_in_order_is_two_thirds() -> None:
    score = _score(REFUND_CALLED, REFUND_EXPECTED, "in_order")
    assert score.value == pytest.approx(2 / 3)
    assert not score.passed
    assert score.reason == (
        "in_order recall 2/3=0.667; precision 2/3=0.667; missing verify_identity;"
        " extra check_refund_policy"
    )
    assert score.evidence == ("span-001", "span-002", "span-003")


def test_threshold_decides_passing() -> None:
    assert _score(REFUND_CALLED, REFUND_EXPECTED, "in_order", threshold=0.6).passed
    assert not _score(REFUND_CALLED, REFUND_EXPECTED, "in_order", threshold=0.7).passed


def test_any_order_counts_repeats() -> None:
    score = _score(["a", "b"], ["a", "a", "b"], "any_order")
    assert score.value == pytest.approx(2 / 3)
    assert score.reason == "any_order recall 2/3=0.667; precision 2/2=1.000; missing a"


def test_in_order_ignores_order_violations_only_partly() -> None:
    score = _score(["b", "a"], ["a", "b"], "in_order")
    assert score.value == 0.5
    assert _score(["b", "a"], ["a", "b"], "any_order").value == 1.0


def test_extra_calls_lower_precision_not_recall() -> None:
    score = _score(["a", "x", "b", "y"], ["a", "b"], "in_order")
    assert score.value == 1.0
    assert score.passed
    assert score.reason == "in_order recall 2/2=1.000; precision 2/4=0.500; extra x, y"


def test_exact_equal_sequence() -> None:
    score = _score(["a", "b"], ["a", "b"], "exact")
    assert (score.value, score.passed) == (1.0, True)
    assert score.reason.startswith("exact 1: sequence equal; ")


@pytest.mark.parametrize("mode", ["exact", "in_order", "any_order"])
def test_empty_expected_and_no_calls_passes(mode: ToolMatch) -> None:
    score = _score([], [], mode)
    assert (score.value, score.passed) == (1.0, True)
    assert score.reason == "no tool may be called; none was"


@pytest.mark.parametrize("mode", ["exact", "in_order", "any_order"])
def test_empty_expected_fails_any_call_whatever_the_threshold(mode: ToolMatch) -> None:
    score = _score(["lookup_order"], [], mode, threshold=0.0)
    assert (score.value, score.passed) == (0.0, False)
    assert score.reason == "no tool may be called; called 1: lookup_order"
    assert score.evidence == ("span-001",)


def test_absent_expected_tools_produces_no_score() -> None:
    assert TrajectoryScorer().score(_trace("a"), _case(None)) is None


def test_no_calls_against_expected() -> None:
    score = _score([], ["a"], "in_order")
    assert score.value == 0.0
    assert score.reason == "in_order recall 0/1=0.000; precision 0/0; missing a"


def test_ignored_tools_leave_both_sequences() -> None:
    scorer = TrajectoryScorer(ignore_tools=("think",))
    score = scorer.score(_trace("think", "a", "think", "b"), _case(["a", "think", "b"], "exact"))
    assert score is not None
    assert score.value == 1.0
    assert score.evidence == ("span-002", "span-004")


def test_errored_calls_counted_or_skipped() -> None:
    trace = _trace("a", "b", errored=frozenset({"a"}))
    case = _case(["b"], "exact")
    counted = TrajectoryScorer().score(trace, case)
    skipped = TrajectoryScorer(errored_calls="skip").score(trace, case)
    assert counted is not None
    assert skipped is not None
    assert (counted.value, skipped.value) == (0.0, 1.0)


names = st.lists(st.sampled_from("abcd"), max_size=7)


@given(expected=names.filter(bool), called=names)
def test_values_are_fractions_and_modes_nest(expected: list[str], called: list[str]) -> None:
    exact = trajectory_value("exact", expected, called)
    in_order = trajectory_value("in_order", expected, called)
    any_order = trajectory_value("any_order", expected, called)
    for value in (exact, in_order, any_order):
        assert 0.0 <= value <= 1.0
    assert exact <= in_order <= any_order
    if exact == 1.0:
        assert in_order == 1.0
    if in_order == 1.0:
        assert any_order == 1.0


@given(expected=names.filter(bool), called=names, data=st.data())
def test_any_order_invariant_under_permutation(
    expected: list[str], called: list[str], data: st.DataObject
) -> None:
    shuffled = data.draw(st.permutations(called))
    assert trajectory_value("any_order", expected, shuffled) == trajectory_value(
        "any_order", expected, called
    )


@given(expected=names, called=names, mode=st.sampled_from(["exact", "in_order", "any_order"]))
def test_scores_are_valid_for_any_input(
    expected: list[str], called: list[str], mode: ToolMatch
) -> None:
    score = _score(called, expected, mode)
    assert 0.0 <= score.value <= 1.0
    assert score.passed == (score.value >= score.threshold)
