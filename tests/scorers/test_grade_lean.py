"""Grading in bulk: grade_lean gives grade's verdict on either holder of a trace, and builds no
pydantic model until one is asked for."""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import ClassVar

from trailcheck.cases import Case, ScorerSpec
from trailcheck.scorers import (
    ArgumentsScorer,
    EfficiencyScorer,
    LeanGrade,
    LeanScore,
    Score,
    TrajectoryScorer,
    grade,
    grade_lean,
)
from trailcheck.testing import TraceBuilder
from trailcheck.trace import LeanTrace, Trace, decode_lean_trace
from trailcheck.trace.incomplete import mark_incomplete
from trailcheck.trace.jsonl import dump_trace

CASE = Case(
    id="refund",
    input="refund A-1",
    expected_tools=["lookup_order", "issue_refund"],
    expected_arguments=[{"tool": "issue_refund", "arguments": {"order_id": "A-1"}}],
)
SCORERS = (TrajectoryScorer(), ArgumentsScorer(), EfficiencyScorer())


def _trace(*, refund_order: str = "A-1") -> Trace:
    builder = TraceBuilder("t1", input="refund A-1")
    builder.llm("looking", input_tokens=10, output_tokens=2)
    builder.tool("lookup_order", {"order_id": "A-1"}, result={"status": "delivered"})
    builder.tool("issue_refund", {"order_id": refund_order}, result={"id": "R-1"})
    return builder.output("refunded").build()


def _lean(trace: Trace) -> LeanTrace:
    return decode_lean_trace(dump_trace(trace))


def test_a_lean_grade_is_the_grade() -> None:
    for trace in (_trace(), _trace(refund_order="A-2")):
        expected = grade(trace, CASE, SCORERS)
        for holder in (trace, _lean(trace)):
            graded = grade_lean(holder, CASE, SCORERS)
            assert isinstance(graded, LeanGrade)
            assert (graded.passed, graded.status, graded.reason) == (
                expected.passed,
                expected.status,
                expected.reason,
            )
            assert graded.to_grade() == expected


def test_lean_scores_read_as_scores_and_become_them() -> None:
    graded = grade_lean(_lean(_trace(refund_order="A-2")), CASE, SCORERS)
    assert all(type(score) is LeanScore for score in graded.scores)
    arguments = graded.scores[1]
    assert (arguments.scorer, arguments.passed, arguments.value) == ("arguments", False, 0.0)
    assert "issue_refund[0].order_id: expected A-1, got A-2" in arguments.reason
    assert LeanScore.from_score(arguments.to_score()) == arguments
    assert isinstance(arguments.to_score(), Score)


@dataclass(frozen=True)
class _TraceOnly:
    """A scorer written against the pydantic Trace alone (no lean_score)."""

    name: ClassVar[str] = "trace_only"
    version: ClassVar[str] = "1"
    seen: list[object]

    def to_spec(self) -> ScorerSpec:
        return ScorerSpec(name=self.name)

    def score(self, trace: Trace, case: Case) -> Score:
        self.seen.append(trace)
        assert isinstance(trace, Trace)
        return Score(scorer=self.name, value=1.0, passed=True, threshold=1.0, reason="ok")


def test_a_scorer_without_lean_score_gets_the_pydantic_trace_made_once() -> None:
    seen: list[object] = []
    scorers = (_TraceOnly(seen), TrajectoryScorer(), _TraceOnly(seen))
    graded = grade_lean(_lean(_trace()), CASE, scorers)
    assert len(seen) == 2
    assert seen[0] is seen[1]
    assert seen[0] == _trace()
    assert [score.scorer for score in graded.scores] == ["trace_only", "trajectory", "trace_only"]


@dataclass(frozen=True)
class _Raises:
    name: ClassVar[str] = "raises"
    version: ClassVar[str] = "1"

    def to_spec(self) -> ScorerSpec:
        return ScorerSpec(name=self.name)

    def score(self, trace: Trace, case: Case) -> Score:
        raise RuntimeError("boom")

    def lean_score(self, trace: object, case: Case) -> LeanScore:
        raise RuntimeError("boom")


def test_a_scorer_that_raises_is_a_failure_on_both_paths() -> None:
    scorers = (TrajectoryScorer(), _Raises())
    expected = grade(_trace(), CASE, scorers)
    graded = grade_lean(_lean(_trace()), CASE, scorers)
    assert graded.status == expected.status == "unscorable"
    assert graded.reason == expected.reason
    assert [(f.scorer, f.error_type, f.message) for f in graded.failures] == [
        ("raises", "RuntimeError", "boom")
    ]


def test_an_incomplete_trace_is_unscorable_on_both_paths() -> None:
    trace = mark_incomplete(_trace(), "line 7 could not be read", [("spans.jsonl", 7)])
    expected = grade(trace, CASE, SCORERS)
    graded = grade_lean(_lean(trace), CASE, SCORERS)
    assert graded.to_grade() == expected
    assert graded.status == "unscorable"


def test_efficiency_reads_canonical_keys_only_where_a_repeat_is_possible() -> None:
    lean = _lean(_trace())
    assert grade_lean(lean, CASE, SCORERS).passed
    # Two different tools, called once each: no call can repeat, so no key was computed.
    assert all("key" not in vars(call) for call in lean.tool_calls)
    builder = TraceBuilder("t2", input="refund A-1")
    for _ in range(3):
        builder.tool("lookup_order", {"order_id": "A-1"}, result={"status": "delivered"})
    repeated = _lean(builder.output("done").build())
    score = EfficiencyScorer().lean_score(repeated, CASE)
    assert score is not None
    assert not score.passed
    assert 'lookup_order {"order_id":"A-1"} 3 times > 2' in score.reason
    assert all("key" in vars(call) for call in repeated.tool_calls)


def test_lean_grades_and_traces_cross_process_boundaries() -> None:
    # The all-cores path sends them between worker processes.
    lean = _lean(_trace(refund_order="A-2"))
    graded = grade_lean(lean, CASE, (*SCORERS, _Raises()))
    assert pickle.loads(pickle.dumps(graded)) == graded
    assert pickle.loads(pickle.dumps(lean)).to_trace() == _trace(refund_order="A-2")
