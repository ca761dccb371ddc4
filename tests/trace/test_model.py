"""The trace model: invariants, derived tool calls, span-tree queries."""

from __future__ import annotations

import pytest

from trailcheck.errors import RecordError
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Message, Span, Status, ToolInvocation, Trace


def tool_span(
    span_id: str, start: int, name: str, *, sequence: int | None = None, **kw: object
) -> Span:
    return Span(
        trace_id="t",
        span_id=span_id,
        parent_id="root",
        name=f"execute_tool {name}",
        kind="tool",
        start_ns=start,
        end_ns=start + 5,
        tool=ToolInvocation(name=name, sequence=sequence, **kw),  # type: ignore[arg-type]
    )


ROOT = Span(trace_id="t", span_id="root", name="invoke_agent", kind="agent", start_ns=0, end_ns=100)


def test_tool_calls_are_in_start_order_with_sequence_then_span_id_breaking_ties() -> None:
    spans = [
        ROOT,
        tool_span("z", 30, "late"),
        tool_span("b", 10, "tie_second", sequence=2),
        tool_span("a", 10, "tie_no_sequence"),
        tool_span("c", 10, "tie_first", sequence=1),
        tool_span("y", 20, "tie_by_id_2"),
        tool_span("x", 20, "tie_by_id_1"),
    ]
    trace = Trace(trace_id="t", spans=spans)
    assert [c.name for c in trace.tool_calls] == [
        "tie_first",
        "tie_second",
        "tie_no_sequence",
        "tie_by_id_1",
        "tie_by_id_2",
        "late",
    ]


def test_tool_call_parses_json_results_and_keeps_text() -> None:
    trace = (
        TraceBuilder()
        .tool("lookup", {"id": 1}, result='{"amount": 129.0}')
        .tool("echo", {}, result="not json: plain text")
        .tool("structured", {}, result={"a": [1, 2]}, json_result=False)
        .build()
    )
    results = [call.result for call in trace.tool_calls]
    assert results == [{"amount": 129.0}, "not json: plain text", {"a": [1, 2]}]
    assert trace.tool_calls[0].arguments == {"id": 1}
    assert trace.tool_calls[0].span_id == "span-001"


def test_tool_call_error_comes_from_tool_or_span_status() -> None:
    spans = [
        ROOT,
        tool_span("a", 1, "raised", error="ValueError: bad id"),
        tool_span("b", 2, "fine"),
        Span(
            trace_id="t",
            span_id="c",
            parent_id="root",
            name="execute_tool status_only",
            kind="tool",
            start_ns=3,
            status=Status(code="error", message="timeout"),
            tool=ToolInvocation(name="status_only"),
        ),
    ]
    calls = Trace(trace_id="t", spans=spans).tool_calls
    assert [(c.name, c.error, c.succeeded) for c in calls] == [
        ("raised", "ValueError: bad id", False),
        ("fine", None, True),
        ("status_only", "timeout", False),
    ]


def test_duplicate_span_ids_are_refused_naming_them() -> None:
    with pytest.raises(ValueError, match="duplicate span ids: a"):
        Trace(trace_id="t", spans=[ROOT, tool_span("a", 1, "x"), tool_span("a", 2, "y")])


def test_orphan_span_is_refused_naming_span_and_parent() -> None:
    orphan = Span(trace_id="t", span_id="o", parent_id="missing", name="x", start_ns=0)
    with pytest.raises(ValueError, match=r"span 'o' is an orphan: its parent 'missing'"):
        Trace(trace_id="t", spans=[orphan])


def test_span_of_another_trace_is_refused() -> None:
    stray = Span(trace_id="other", span_id="s", name="x", start_ns=0)
    with pytest.raises(ValueError, match="belongs to trace 'other'"):
        Trace(trace_id="t", spans=[stray])


def test_tool_span_needs_tool_details_and_only_tool_spans_have_them() -> None:
    with pytest.raises(ValueError, match="a tool span needs 'tool'"):
        Span(trace_id="t", span_id="s", name="x", kind="tool", start_ns=0)
    with pytest.raises(ValueError, match="a tool span needs 'tool'"):
        Span(
            trace_id="t",
            span_id="s",
            name="x",
            kind="llm",
            start_ns=0,
            tool=ToolInvocation(name="f"),
        )
    with pytest.raises(ValueError, match="name"):
        ToolInvocation(name="")


def test_span_cannot_end_before_it_starts() -> None:
    with pytest.raises(ValueError, match="end_ns 4 < start_ns 5"):
        Span(trace_id="t", span_id="s", name="x", start_ns=5, end_ns=4)


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(RecordError, match="field 'spanz': unknown field") as refused:
        Trace.model_validate({"trace_id": "t", "spanz": []})
    assert refused.value.field == "spanz"


def test_input_and_final_text() -> None:
    conversation = [
        Message(role="system", content="be brief"),
        Message(role="user", content="refund A-1"),
        Message(role="assistant", content="which item?"),
        Message(role="user", content=[{"type": "text", "text": "the keyboard"}]),
    ]
    trace = Trace(trace_id="t", input=conversation, final_output={"refunded": True})
    assert trace.input_text == "refund A-1\nthe keyboard"
    assert trace.final_text == '{"refunded":true}'
    assert Trace(trace_id="t").final_text == ""
    assert Trace(trace_id="t", input="hi", final_output="done").final_text == "done"


def test_duration_spans_earliest_start_to_latest_end() -> None:
    trace = TraceBuilder().tool("a").tool("b").build()
    assert trace.duration_ns == 5_000
    unfinished = Span(trace_id="t", span_id="u", name="x", start_ns=0)
    assert Trace(trace_id="t", spans=[unfinished]).duration_ns is None


def test_models_are_immutable() -> None:
    trace = TraceBuilder().build()
    with pytest.raises(AttributeError, match="immutable"):
        trace.trace_id = "other"  # type: ignore[misc]
    assert trace.trace_id != "other"


@pytest.mark.parametrize(
    ("parents", "cycle"),
    [
        ({"a": "a"}, "a -> a"),
        ({"a": "b", "b": "a"}, "a -> b -> a"),
        ({"r": None, "a": "b", "b": "c", "c": "a", "d": "r"}, "a -> b -> c -> a"),
    ],
)
def test_parent_cycles_are_refused_naming_the_cycle(
    parents: dict[str, str | None], cycle: str
) -> None:
    spans = [
        Span(trace_id="t", span_id=span_id, parent_id=parent, name="x", start_ns=0)
        for span_id, parent in parents.items()
    ]
    with pytest.raises(ValueError, match=f"parent cycle {cycle}"):
        Trace(trace_id="t", spans=spans)


def test_a_copy_with_other_spans_derives_its_own_tool_calls_and_tree() -> None:
    trace = TraceBuilder().tool("a").tool("b").build()
    assert len(trace.tool_calls) == 2
    assert len(trace.tree) == 3
    fewer = trace.model_copy(update={"spans": trace.spans[:2]})
    assert [call.name for call in fewer.tool_calls] == ["a"]
    assert len(fewer.tree) == 2
    assert [call.name for call in trace.model_copy().tool_calls] == ["a", "b"]
