"""The arguments scorer: optimal pairing of expectations with calls, values and reasons."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.cases import Case, ExpectedInvocation
from trailcheck.scorers import ArgumentsScorer, Score, pair_invocations
from trailcheck.scorers.arguments import mismatches
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace


def _expect(tool: str, **arguments: Any) -> ExpectedInvocation:
    return ExpectedInvocation.model_validate({"tool": tool, "arguments": arguments})


def _case(*expected: ExpectedInvocation) -> Case:
    return Case(id="c1", input="hi", expected_arguments=list(expected))


def _trace(*calls: tuple[str, dict[str, Any]]) -> Trace:
    builder = TraceBuilder()
    for name, arguments in calls:
        builder.tool(name, arguments)
    return builder.build()


def _score(trace: Trace, case: Case, scorer: ArgumentsScorer | None = None) -> Score:
    score = (scorer or ArgumentsScorer()).score(trace, case)
    assert score is not None
    return score


def test_reschedule_date_mismatch_reason() -> None:
    date = {"$compare": "date", "value": "2026-06-19"}
    case = _case(_expect("reschedule_delivery", order_id="A-1", date=date))
    trace = _trace(("reschedule_delivery", {"order_id": "A-1", "date": "2026-06-17"}))
    score = _score(trace, case)
    assert score.value == 0.5
    assert not score.passed
    assert score.reason == (
        "arguments 1/2=0.500; reschedule_delivery[0].date: expected 2026-06-19,"
        " got 2026-06-17 (read as 2026-06-17)"
    )
    assert score.evidence == ("span-001",)


def test_repeated_calls_paired_optimally_not_first_fit() -> None:
    case = _case(
        _expect("refund", order_id="A-2", amount=10),
        _expect("refund", order_id="A-1", amount=25),
    )
    trace = _trace(
        ("refund", {"order_id": "A-1", "amount": 25}),
        ("refund", {"order_id": "A-2", "amount": 10}),
    )
    score = _score(trace, case)
    assert (score.value, score.passed) == (1.0, True)
    assert score.reason == "arguments 4/4=1.000"
    assert score.evidence == ("span-002", "span-001")


def test_ties_pair_in_order() -> None:
    case = _case(_expect("note", text="x"), _expect("note", text="x"))
    trace = _trace(("note", {"text": "x"}), ("note", {"text": "x"}))
    assert _score(trace, case).evidence == ("span-001", "span-002")


def test_missing_key_and_missing_call_are_mismatches() -> None:
    case = _case(_expect("refund", order_id="A-1", amount=25), _expect("refund", order_id="A-2"))
    trace = _trace(("refund", {"order_id": "A-1"}), ("lookup", {"order_id": "A-2"}))
    score = _score(trace, case)
    assert score.value == pytest.approx(1 / 3)
    assert score.reason == (
        "arguments 1/3=0.333; refund[0].amount: expected 25, got nothing (missing);"
        " refund[1]: no call to pair with (2 expected, 1 made)"
    )


def test_threshold_setting_and_errored_calls() -> None:
    case = _case(_expect("refund", order_id="A-1", amount=25))
    trace = _trace(("refund", {"order_id": "A-1", "amount": 20}))
    assert _score(trace, case, ArgumentsScorer(threshold=0.5)).passed
    errored = TraceBuilder().tool("refund", {"order_id": "A-1", "amount": 25}, error="x").build()
    assert _score(errored, case).value == 1.0
    assert _score(errored, case, ArgumentsScorer(errored_calls="skip")).value == 0.0


def test_no_expected_arguments_produces_no_score() -> None:
    assert ArgumentsScorer().score(_trace(("a", {})), _case()) is None


def test_threshold_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        ArgumentsScorer(threshold=1.5)


invocations = st.lists(
    st.dictionaries(st.sampled_from("xyz"), st.integers(0, 2), min_size=1), max_size=4
)
call_arguments = st.lists(st.dictionaries(st.sampled_from("xyz"), st.integers(0, 2)), max_size=4)


@given(expected=invocations, actual=call_arguments)
def test_pairing_matches_as_many_fields_as_brute_force(
    expected: list[dict[str, int]], actual: list[dict[str, int]]
) -> None:
    wanted = [_expect("t", **fields) for fields in expected]
    calls = _trace(*(("t", arguments) for arguments in actual)).tool_calls

    def matched(i: int, j: int) -> int:
        return len(wanted[i].arguments) - len(mismatches(wanted[i], calls[j]))

    pairing = pair_invocations(wanted, calls)
    assert len(pairing) == min(len(wanted), len(calls))
    rows, columns = len(wanted), len(calls)
    if rows <= columns:
        choices = [
            list(enumerate(chosen)) for chosen in itertools.permutations(range(columns), rows)
        ]
    else:
        choices = [
            [(i, j) for j, i in enumerate(chosen)]
            for chosen in itertools.permutations(range(rows), columns)
        ]
    best = max(sum(matched(i, j) for i, j in pairs) for pairs in choices)
    assert sum(matched(i, j) for i, j in pairing.items()) == best
