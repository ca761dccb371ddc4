"""Hypothesis strategies for generated traces: any shape the model allows, with integers a trace
can be stored with (signed 64-bit: trailcheck.trace.limits)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from trailcheck.trace import (
    Message,
    MessageToolCall,
    ModelInvocation,
    Span,
    SpanEvent,
    Status,
    ToolInvocation,
    Trace,
    Usage,
)
from trailcheck.trace.limits import INT64_MAX

# JSON scalars; floats are finite because JSON has no NaN or infinity.
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
names = st.text(min_size=1, max_size=16)
optional_text = st.none() | st.text(max_size=20)
counts = st.none() | st.integers(min_value=0, max_value=10**9)

usages = st.builds(
    Usage,
    input_tokens=counts,
    output_tokens=counts,
    cost_usd=st.none() | st.floats(min_value=0, max_value=1e6),
    latency_ms=st.none() | st.floats(min_value=0, max_value=1e9),
)
message_tool_calls = st.builds(
    MessageToolCall, id=optional_text, name=names, arguments=json_objects
)
messages = st.builds(
    Message,
    role=st.sampled_from(["system", "developer", "user", "assistant", "tool"]),
    content=st.none() | st.text(max_size=40) | st.lists(json_objects, max_size=2),
    tool_calls=st.lists(message_tool_calls, max_size=2),
    tool_call_id=optional_text,
    name=optional_text,
)
tool_invocations = st.builds(
    ToolInvocation,
    name=names,
    call_id=optional_text,
    arguments=json_objects,
    result=json_values,
    error=optional_text,
    sequence=st.none() | st.integers(min_value=0, max_value=1000),
)
model_invocations = st.builds(
    ModelInvocation,
    model=optional_text,
    provider=optional_text,
    input_messages=st.none() | st.lists(messages, max_size=3),
    output_messages=st.none() | st.lists(messages, max_size=2),
    usage=st.none() | usages,
)
statuses = st.builds(Status, code=st.sampled_from(["unset", "ok", "error"]), message=optional_text)
events = st.builds(
    SpanEvent,
    name=names,
    time_ns=st.integers(min_value=0, max_value=INT64_MAX),
    attributes=json_objects,
)


@st.composite
def spans_of(draw: st.DrawFn, trace_id: str, span_id: str, parent_id: str | None) -> Span:
    kind = draw(st.sampled_from(["agent", "llm", "tool", "retriever", "guard", "other"]))
    start = draw(st.integers(min_value=0, max_value=2**62))
    end = draw(st.none() | st.integers(min_value=start, max_value=INT64_MAX))
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent_id,
        name=draw(st.text(max_size=20)),
        kind=kind,
        start_ns=start,
        end_ns=end,
        status=draw(statuses),
        attributes=draw(json_objects),
        events=draw(st.lists(events, max_size=2)),
        tool=draw(tool_invocations) if kind == "tool" else None,
        llm=draw(st.none() | model_invocations) if kind == "llm" else None,
    )


@st.composite
def traces(draw: st.DrawFn, max_spans: int = 8) -> Trace:
    trace_id = draw(names)
    count = draw(st.integers(min_value=0, max_value=max_spans))
    spans: list[Span] = []
    for index in range(count):
        # A parent is any earlier span, or none: every generated tree is well formed.
        parent_index = (
            draw(st.none() | st.integers(min_value=0, max_value=index - 1)) if index else None
        )
        parent_id = None if parent_index is None else f"s{parent_index}"
        spans.append(draw(spans_of(trace_id, f"s{index}", parent_id)))
    return Trace(
        trace_id=trace_id,
        input=draw(st.none() | st.text(max_size=40) | st.lists(messages, max_size=3)),
        final_output=draw(json_values),
        spans=draw(st.permutations(spans)),
        state_before=draw(st.none() | json_objects),
        state_after=draw(st.none() | json_objects),
        metadata=draw(json_objects),
        usage=draw(st.none() | usages),
    )
