"""A trace imported with --keep-incomplete may be missing a span: grading is unscorable, saying
why, and detection runs no rule that needs every span; a checker may say it needs none."""

from __future__ import annotations

from typing import ClassVar

from trailcheck.cases import Case
from trailcheck.loop import detect
from trailcheck.loop.rule import DetectionRule, Hit
from trailcheck.scorers import grade
from trailcheck.scorers.grade import INCOMPLETE_TRACE
from trailcheck.scorers.score import Score
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace
from trailcheck.trace.incomplete import mark_incomplete

CASE = Case(id="lookup", input="Where is order A-1?", expected_tools=["lookup_order"])
REASON = "line 3 of spans.jsonl could not be read (not valid JSON)"


def retrying() -> Trace:
    """Four identical calls, each timing out: a failed efficiency check and a finding."""
    builder = TraceBuilder("t1", input="Where is order A-1?")
    for _ in range(4):
        builder.tool("lookup_order", {"order_id": "A-1"}, result={"error": "timeout"})
    return builder.output("Order A-1 has shipped.").build()


def marked(trace: Trace) -> Trace:
    return mark_incomplete(trace, REASON, [("spans.jsonl", 3)])


def test_a_grade_of_an_incomplete_trace_is_unscorable_and_says_why() -> None:
    assert grade(retrying(), CASE).status == "failed"
    graded = grade(marked(retrying()), CASE)
    assert graded.status == "unscorable"
    assert graded.scores == ()
    assert {failure.error_type for failure in graded.failures} == {INCOMPLETE_TRACE}
    assert [failure.scorer for failure in graded.failures] == [
        "trajectory",
        "efficiency",
        "termination",
        "grounding",
    ]
    assert graded.reason == (
        f"incomplete trace: {REASON} (imported with --keep-incomplete); no verdict from"
        " trajectory, efficiency, termination, grounding"
    )


class _SpanCount:
    """A scorer of the spans' count that declares it needs no complete trace (for the test)."""

    name = "span_count"
    version = "1"
    needs_complete_trace = False

    def score(self, trace: Trace, case: Case) -> Score:
        return Score(
            scorer=self.name,
            value=1.0,
            passed=True,
            threshold=1.0,
            reason=f"{len(trace.spans)} spans",
        )


def test_a_scorer_that_needs_no_complete_trace_still_scores_it() -> None:
    graded = grade(marked(retrying()), CASE, [_SpanCount()])
    assert graded.status == "passed"
    assert [score.scorer for score in graded.scores] == ["span_count"]


def test_detection_runs_no_rule_that_needs_every_span_on_an_incomplete_trace() -> None:
    assert {finding.label for finding in detect([retrying()])} == {"tool_call_loop"}
    assert list(detect([marked(retrying())])) == []


class _AnyTrace(DetectionRule):
    needs_complete_trace: ClassVar[bool] = False

    def hits(self, trace: Trace) -> list[Hit]:
        return [Hit("seen")]


def test_a_rule_that_needs_no_complete_trace_still_runs() -> None:
    rule = _AnyTrace(name="any", label="any_trace", severity="low")
    (finding,) = detect([marked(retrying())], [rule])
    assert finding.label == "any_trace"
