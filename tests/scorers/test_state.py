"""The state scorer: partial recursive matching, list pairing, JSON-path reasons."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from trailcheck.cases import Case
from trailcheck.scorers import Score
from trailcheck.scorers.assignment import pair_most_matched
from trailcheck.scorers.state import StateScorer, compare_state, leaf_count
from trailcheck.testing import TraceBuilder


def _score(
    expected: dict[str, Any], after: dict[str, Any] | None, scorer: StateScorer | None = None
) -> Score:
    case = Case(id="c1", input="hi", expected_state=expected)
    trace = TraceBuilder().state(after=after).build()
    score = (scorer or StateScorer()).score(trace, case)
    assert score is not None
    return score


def test_no_expected_state_is_not_checked() -> None:
    trace = TraceBuilder().state(after={"refunds": []}).build()
    assert StateScorer().score(trace, Case(id="c1", input="hi")) is None


def test_refund_amount_difference_named_by_json_path() -> None:
    expected = {"refunds": [{"order_id": "A-1", "amount": 129.0}]}
    after = {"refunds": [{"order_id": "A-1", "amount": 12.9, "id": "r-9"}], "orders": {}}
    score = _score(expected, after)
    assert score.value == 0.5
    assert not score.passed
    assert score.reason == "state 1/2=0.500; refunds[0].amount: expected 129.0, got 12.9"


def test_equal_state_passes_and_says_so() -> None:
    state = {"orders": {"A-1": {"status": "refunded"}}, "refunds": [{"amount": 129}]}
    score = _score(state, state)
    assert (score.value, score.passed) == (1.0, True)
    assert score.reason == "state 2/2=1.000; every expected value present"


def test_missing_state_after_is_a_failing_score() -> None:
    score = _score({"refunds": [{"amount": 1}], "orders": {"A-1": {"status": "x"}}}, None)
    assert (score.value, score.passed) == (0.0, False)
    assert score.reason == (
        "state 0/2=0.000; the trace records no state_after to check (expected orders, refunds)"
    )


def test_unnamed_keys_are_not_checked_and_missing_keys_are() -> None:
    score = _score(
        {"order": {"status": "refunded", "note": None}}, {"order": {"status": "refunded"}}
    )
    assert score.value == 0.5
    assert score.reason == "state 1/2=0.500; order.note: expected null, got nothing (missing)"


def test_list_items_paired_optimally_not_first_fit() -> None:
    expected = {
        "refunds": [
            {"order_id": "A-1"},
            {"order_id": "A-1", "amount": 25},
        ]
    }
    # First fit would give item 0 the only A-1 refund, leaving item 1 with nothing.
    after = {"refunds": [{"order_id": "A-1", "amount": 25}, {"order_id": "B-2", "amount": 3}]}
    score = _score(expected, after)
    assert score.value == pytest.approx(2 / 3)
    assert score.reason == 'state 2/3=0.667; refunds[0].order_id: expected "A-1", got "B-2"'


def test_fewer_items_than_expected() -> None:
    expected = {"refunds": [{"amount": 1}, {"amount": 2}]}
    score = _score(expected, {"refunds": [{"amount": 2}]})
    assert score.value == 0.5
    assert score.reason == (
        "state 1/2=0.500; refunds[0]: no item to pair with (2 expected, 1 present)"
    )


def test_extra_list_items_are_allowed() -> None:
    score = _score({"tags": ["vip"]}, {"tags": ["new", "vip", "eu"]})
    assert score.value == 1.0


def test_empty_list_means_must_be_empty() -> None:
    assert _score({"refunds": []}, {"refunds": []}).value == 1.0
    score = _score({"refunds": []}, {"refunds": [{"amount": 5}]})
    assert score.value == 0.0
    assert score.reason == 'state 0/1=0.000; refunds: expected an empty list, got 1: [{"amount":5}]'


def test_exact_list_needs_same_items_in_order() -> None:
    expected: dict[str, Any] = {"steps": {"$exact": ["a", "b"]}, "ok": True}
    assert _score(expected, {"steps": ["a", "b"], "ok": True}).value == 1.0
    score = _score(expected, {"steps": ["b", "a"], "ok": True})
    assert score.value == 0.5
    assert score.reason == 'state 1/2=0.500; steps: expected exactly ["a","b"], got ["b","a"]'
    assert _score(expected, {"steps": ["a", "b", "c"], "ok": True}).value == 0.5


def test_exact_object_has_no_other_keys() -> None:
    expected: dict[str, Any] = {"order": {"$exact": {"status": "open"}}}
    assert _score(expected, {"order": {"status": "open"}}).value == 1.0
    assert _score(expected, {"order": {"status": "open", "x": 1}}).value == 0.0


def test_exact_must_stand_alone() -> None:
    with pytest.raises(ValueError, match="'\\$exact' stands alone"):
        _score({"a": {"$exact": [1], "b": 2}}, {"a": [1]})


def test_type_mismatches_are_reported() -> None:
    score = _score({"order": {"status": "x"}, "items": [1]}, {"order": "x", "items": {"a": 1}})
    assert score.value == 0.0
    assert score.reason == (
        'state 0/2=0.000; order: expected an object, got "x"; items: expected a list, got {"a":1}'
    )


def test_int_equals_float_setting() -> None:
    assert _score({"amount": 25}, {"amount": 25.0}).value == 1.0
    strict = StateScorer(int_equals_float=False)
    assert _score({"amount": 25}, {"amount": 25.0}, strict).value == 0.0
    assert _score({"flag": True}, {"flag": 1}).value == 0.0


def test_odd_keys_are_quoted_in_paths() -> None:
    score = _score({"by id": {"A-1": 1}}, {"by id": {"A-1": 2}})
    assert score.reason == 'state 0/1=0.000; ["by id"].A-1: expected 1, got 2'


def test_threshold_and_spec() -> None:
    score = _score({"a": 1, "b": 2}, {"a": 1}, StateScorer(threshold=0.5))
    assert (score.value, score.passed) == (0.5, True)
    assert StateScorer(threshold=0.5).to_spec().settings == {"threshold": 0.5}
    with pytest.raises(ValueError, match="between 0 and 1"):
        StateScorer(threshold=2.0)


def test_pair_most_matched_prefers_matches_then_order() -> None:
    assert pair_most_matched([[1, 1], [1, 1]]) == {0: 0, 1: 1}
    assert pair_most_matched([[0, 2], [2, 0]]) == {0: 1, 1: 0}
    assert pair_most_matched([[]]) == {}


_KEYS = st.sampled_from("abc")
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["x", "y"]))
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=3)),
    max_leaves=8,
)
_STATES = st.dictionaries(_KEYS, _JSON, min_size=1, max_size=3)


def _with_extra_keys(value: Any, extra: Any) -> Any:
    """``value`` with a key no expectation names added to every object, however deep."""
    if isinstance(value, dict):
        return {"x_extra": extra, **{k: _with_extra_keys(v, extra) for k, v in value.items()}}
    if isinstance(value, list):
        return [_with_extra_keys(item, extra) for item in value]
    return value


@given(expected=_STATES)
def test_equal_state_always_scores_one(expected: dict[str, Any]) -> None:
    score = _score(expected, copy.deepcopy(expected))
    assert score.value == 1.0
    assert score.passed


@given(expected=_STATES, actual=_STATES, extra=_JSON)
def test_unnamed_keys_never_change_the_score(
    expected: dict[str, Any], actual: dict[str, Any], extra: Any
) -> None:
    plain, padded = _score(expected, actual), _score(expected, _with_extra_keys(actual, extra))
    assert (plain.value, plain.passed) == (padded.value, padded.passed)
    # The same differences at the same paths (a mismatched object's rendering shows the keys).
    paths = compare_state(expected, actual).differences
    padded_paths = compare_state(expected, _with_extra_keys(actual, extra)).differences
    assert [d.split(": ")[0] for d in paths] == [d.split(": ")[0] for d in padded_paths]


@given(expected=_STATES, actual=_STATES)
def test_value_in_unit_interval_and_leaves_add_up(
    expected: dict[str, Any], actual: dict[str, Any]
) -> None:
    result = compare_state(expected, actual)
    assert result.total == leaf_count(expected)
    assert 0 <= result.matched <= result.total
    assert (result.matched == result.total) == (not result.differences)
    assert 0.0 <= _score(expected, actual).value <= 1.0


def test_spec_round_trips() -> None:
    # Through validation as scorer_from_spec does it (the registry needs the entry point).
    scorer = StateScorer(threshold=0.75, int_equals_float=False)
    settings = scorer.to_spec().settings
    assert TypeAdapter(StateScorer).validate_json(orjson.dumps(settings), strict=True) == scorer
