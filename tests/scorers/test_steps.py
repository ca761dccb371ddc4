"""A trace's steps as attribution counts them, and the agent that took each."""

from __future__ import annotations

from typing import Any

from trailcheck.scorers.steps import same_agent, step_agent, trace_steps
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Span, Trace
from trailcheck.trace.kinds import SpanKind


def span(
    span_id: str,
    parent: str | None,
    start: int,
    *,
    kind: SpanKind = "other",
    name: str | None = None,
    attributes: dict[str, Any] | None = None,
) -> Span:
    return Span(
        trace_id="t",
        span_id=span_id,
        parent_id=parent,
        name=name or span_id,
        kind=kind,
        start_ns=start,
        end_ns=start + 1,
        attributes=attributes or {},
    )


def team_trace() -> Trace:
    """A root agent, two sub-agents (one named by gen_ai.agent.name) and their steps, listed
    out of start order."""
    return Trace(
        trace_id="t",
        spans=[
            span("root", None, 0, kind="agent", name="invoke_agent team"),
            span("call-b", "agent-b", 40),
            span("agent-b", "root", 30, kind="agent", attributes={"gen_ai.agent.name": "Bea"}),
            span("agent-a", "root", 10, kind="agent", name="Ada"),
            span("call-a", "agent-a", 20),
        ],
    )


def test_steps_are_the_spans_but_the_root_in_start_order() -> None:
    trace = team_trace()
    assert [s.span_id for s in trace_steps(trace)] == ["agent-a", "call-a", "agent-b", "call-b"]


def test_the_agent_of_a_step_is_the_nearest_agent_span_at_or_above_it() -> None:
    trace = team_trace()
    assert [step_agent(trace, s) for s in trace_steps(trace)] == ["Ada", "Ada", "Bea", "Bea"]


def test_a_single_agent_trace_has_its_root_agent_and_a_trace_without_agents_none() -> None:
    built = TraceBuilder().tool("lookup", {"id": 1}, result={}).build()
    (only,) = trace_steps(built)
    assert step_agent(built, only) == "invoke_agent"
    plain = Trace(trace_id="t", spans=[span("root", None, 0), span("child", "root", 1)])
    assert step_agent(plain, trace_steps(plain)[0]) is None


def test_agents_are_the_same_ignoring_case_and_none_matches_nothing() -> None:
    assert same_agent("WebSurfer", " websurfer ")
    assert not same_agent("WebSurfer", "FileSurfer")
    assert not same_agent(None, None)
