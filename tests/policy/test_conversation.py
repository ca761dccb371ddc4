from __future__ import annotations

from typing import Any

from trailcheck.importing.message_logs import trace_from_messages
from trailcheck.policy import RequiresConfirmationPolicy, preceding_messages, violations
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Message, MessageToolCall, Trace

CONFIRM_REFUND = RequiresConfirmationPolicy(tool="issue_refund")


def _refund_request(call_id: str | None) -> dict[str, Any]:
    call: dict[str, Any] = {
        "type": "function",
        "function": {"name": "issue_refund", "arguments": '{"order_id": "A-1"}'},
    }
    if call_id is not None:
        call["id"] = call_id
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def _log(*, confirmed: bool) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Please refund order A-1."},
        {"role": "assistant", "content": "That is $20 back to your card. Shall I go ahead?"},
        {"role": "user", "content": "Yes, go ahead." if confirmed else "What are my options?"},
        _refund_request("call_1"),
        {"role": "tool", "tool_call_id": "call_1", "content": '{"refunded": 20}'},
        {"role": "assistant", "content": "Refunded $20."},
    ]


def test_a_message_log_places_the_call_where_the_agent_asked_for_it() -> None:
    trace = trace_from_messages(_log(confirmed=True), trace_id="t")
    [call] = trace.tool_calls
    before = preceding_messages(trace, call)
    assert [m.role for m in before] == ["user", "assistant", "user"]
    assert violations([CONFIRM_REFUND], trace) == []


def test_a_log_without_the_yes_breaks_the_rule() -> None:
    trace = trace_from_messages(_log(confirmed=False), trace_id="t")
    [violation] = violations([CONFIRM_REFUND], trace)
    assert violation.call.name == "issue_refund"


def test_without_call_ids_the_nth_request_is_the_nth_call() -> None:
    log = [
        {"role": "user", "content": "Refund A-1 and A-2."},
        _refund_request("c1"),
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "Refund the second one as well?"},
        {"role": "user", "content": "yes"},
        _refund_request("c2"),
        {"role": "tool", "tool_call_id": "c2", "content": "ok"},
    ]
    trace = _without_call_ids(trace_from_messages(log, trace_id="t"))
    assert all(call.call_id is None for call in trace.tool_calls)
    found = violations([CONFIRM_REFUND], trace)
    assert [v.call.span_id for v in found] == [trace.tool_calls[0].span_id]


def _without_call_ids(trace: Trace) -> Trace:
    """The trace as a source that records no call ids would give it: none on the requests, the
    answers or the tool spans."""
    assert isinstance(trace.input, list)

    def strip(messages: list[Message] | None) -> list[Message] | None:
        if messages is None:
            return None
        return [
            m.model_copy(
                update={
                    "tool_calls": [c.model_copy(update={"id": None}) for c in m.tool_calls],
                    "tool_call_id": None,
                    "name": m.name if m.role != "tool" else "issue_refund",
                }
            )
            for m in messages
        ]

    spans = []
    for span in trace.spans:
        if span.tool is not None:
            span = span.model_copy(update={"tool": span.tool.model_copy(update={"call_id": None})})
        if span.llm is not None:
            llm = span.llm.model_copy(
                update={
                    "input_messages": strip(span.llm.input_messages),
                    "output_messages": strip(span.llm.output_messages),
                }
            )
            span = span.model_copy(update={"llm": llm})
        spans.append(span)
    return trace.model_copy(update={"input": strip(trace.input), "spans": spans})


def test_an_llm_span_input_is_the_conversation_the_model_saw() -> None:
    seen = [
        Message(role="user", content="Refund A-1"),
        Message(role="assistant", content="Shall I refund $20?"),
        Message(role="user", content="yes"),
    ]
    request = Message(
        role="assistant", tool_calls=[MessageToolCall(id="call-2", name="issue_refund")]
    )
    trace = (
        TraceBuilder(input="Refund A-1")
        .llm(None, input_messages=[*seen, request][:3])
        .tool("issue_refund", {"order_id": "A-1"}, call_id="call-2")
        .build()
    )
    # The builder's llm span has no output messages; put the request there by hand.
    spans = list(trace.spans)
    assert spans[1].llm is not None
    llm = spans[1].llm.model_copy(update={"output_messages": [request]})
    spans[1] = spans[1].model_copy(update={"llm": llm})
    trace = trace.model_copy(update={"spans": spans})
    [call] = trace.tool_calls
    assert preceding_messages(trace, call) == seen
    assert violations([CONFIRM_REFUND], trace) == []


def test_a_call_no_model_turn_made_is_preceded_by_the_input_only() -> None:
    trace = TraceBuilder(input="Refund A-1, yes I confirm").tool("issue_refund").build()
    [call] = trace.tool_calls
    assert preceding_messages(trace, call) == [Message(role="user", content=trace.input)]
    assert violations([CONFIRM_REFUND], trace) == []
    unconfirmed = TraceBuilder(input="Refund A-1").tool("issue_refund").build()
    assert len(violations([CONFIRM_REFUND], unconfirmed)) == 1
