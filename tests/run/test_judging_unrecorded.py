"""A judge reads what was said: a trace that did not record it all (its content not captured,
or a span possibly missing) is not judged, and the trial is unscorable, saying why."""

from __future__ import annotations

import asyncio
from pathlib import Path

from trailcheck.cases import Case
from trailcheck.importing import import_traces
from trailcheck.run.judging import judged
from trailcheck.scorers import grade
from trailcheck.testing import FakeJudge, TraceBuilder
from trailcheck.trace import Trace
from trailcheck.trace.incomplete import mark_incomplete

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
CASE = Case(
    id="refund",
    input="Refund A-1001",
    expected_tools=["lookup_order", "verify_identity", "issue_refund"],
    rubrics=["The answer states the refunded amount."],
)


def judge_once(trace: Trace) -> tuple[str, str, int]:
    judge = FakeJudge(["pass"])
    result = asyncio.run(judged(grade(trace, CASE), trace, CASE, judge))
    return result.status, result.reason, len(judge.items)


def test_a_trace_without_captured_content_is_not_judged() -> None:
    found: list[Trace] = []
    import_traces([REAL / "pydantic-ai-2.68.0-no-content.traces.pb"], found.append)
    # The refund run: the one opening with the scenario's first call (its ids are recorded).
    [refund] = [t for t in found if t.tool_calls and t.tool_calls[0].call_id == "call_lookup_1"]
    status, reason, judged_items = judge_once(refund)
    assert status == "unscorable"
    assert "judge unscorable: content not captured" in reason
    assert judged_items == 0


def test_an_incomplete_trace_is_not_judged() -> None:
    trace = (
        TraceBuilder(input="Refund A-1001")
        .tool("lookup_order", {"order_id": "A-1001"})
        .tool("verify_identity", {"email": "a@x"})
        .tool("issue_refund", {"order_id": "A-1001"})
        .output("Refunded.")
        .build()
    )
    marked = mark_incomplete(trace, "line 7 of spans.jsonl could not be read", [("s.jsonl", 7)])
    status, reason, judged_items = judge_once(marked)
    assert status == "unscorable"
    assert "incomplete trace: line 7 of spans.jsonl could not be read" in reason
    assert judged_items == 0


def test_a_whole_trace_is_judged() -> None:
    trace = (
        TraceBuilder(input="Refund A-1001")
        .tool("lookup_order", {"order_id": "A-1001"})
        .tool("verify_identity", {"email": "a@x"})
        .tool("issue_refund", {"order_id": "A-1001"})
        .output("Refunded.")
        .build()
    )
    status, _, judged_items = judge_once(trace)
    assert (status, judged_items) == ("passed", 1)
