"""assemble_traces / assemble_trace: grouping, trace-level fields, whole-trace rejection."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from trailcheck.errors import RecordError
from trailcheck.importing.assemble import assemble_trace, assemble_traces
from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.trace import Message, Trace, Usage, semconv

SOURCE = "spans.jsonl"


def span(
    span_id: str,
    parent_id: str | None = "root",
    attributes: dict[str, Any] | None = None,
    *,
    trace_id: str = "t1",
    start: int = 10,
    name: str = "span",
    resource: dict[str, Any] | None = None,
    line: int | None = None,
) -> RawSpan:
    return RawSpan(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent_id,
        name=name,
        start_ns=start,
        end_ns=start + 5,
        attributes=attributes or {},
        resource=resource or {},
        line=line,
    )


def agent(attributes: dict[str, Any] | None = None, **kw: Any) -> RawSpan:
    return span(
        "root",
        None,
        {semconv.GEN_AI_OPERATION_NAME: "invoke_agent", **(attributes or {})},
        start=0,
        **kw,
    )


def chat(span_id: str, start: int, attributes: dict[str, Any], **kw: Any) -> RawSpan:
    return span(
        span_id, attributes={semconv.GEN_AI_OPERATION_NAME: "chat", **attributes}, start=start, **kw
    )


def tool(span_id: str, name: str, start: int, *, trace_id: str = "t1", **kw: Any) -> RawSpan:
    attributes = {semconv.GEN_AI_OPERATION_NAME: "execute_tool", semconv.GEN_AI_TOOL_NAME: name}
    return span(span_id, attributes=attributes, start=start, trace_id=trace_id, **kw)


def messages(*pairs: tuple[str, str]) -> str:
    return orjson.dumps([{"role": role, "content": text} for role, text in pairs]).decode()


def one_trace(spans: list[RawSpan]) -> Trace:
    (item,) = assemble_traces(spans, SOURCE)
    assert isinstance(item, Trace), str(item)
    return item


def one_rejection(spans: list[RawSpan]) -> Rejection:
    (item,) = assemble_traces(spans, SOURCE)
    assert isinstance(item, Rejection)
    return item


# --- grouping --------------------------------------------------------------------------------


def test_interleaved_children_first_spans_group_into_traces_in_order_of_first_appearance() -> None:
    spans = [
        tool("b-tool", "second_trace_tool", 20, trace_id="b"),
        tool("a-tool-2", "refund", 30, trace_id="a"),
        span("root", None, {}, trace_id="a", start=0),
        tool("a-tool-1", "lookup", 20, trace_id="a"),
        span("root", None, {}, trace_id="b", start=0),
    ]
    first, second = assemble_traces(spans, SOURCE)
    assert isinstance(first, Trace)
    assert isinstance(second, Trace)
    assert (first.trace_id, second.trace_id) == ("b", "a")
    assert [call.name for call in second.tool_calls] == ["lookup", "refund"]
    assert second.tree.root is not None
    assert second.tree.root.span_id == "root"


def test_a_broken_trace_is_one_rejection_and_the_others_still_come_out() -> None:
    spans = [
        agent(trace_id="good"),
        tool("t", "lookup", 10, trace_id="good"),
        agent(trace_id="bad"),
        tool("t", "lookup", 10, parent_id="gone", trace_id="bad", line=4),
        agent(trace_id="also-good"),
    ]
    items = list(assemble_traces(spans, SOURCE))
    assert [type(item).__name__ for item in items] == ["Trace", "Rejection", "Trace"]
    rejection = items[1]
    assert isinstance(rejection, Rejection)
    assert (rejection.trace_id, rejection.line, rejection.span_id) == ("bad", 4, "t")
    assert rejection.field == "parent_span_id"


def test_a_part_no_reader_understands_is_kept_and_named_never_a_rejection() -> None:
    spans = [
        agent(),
        tool("t", "lookup", 10),
        span("nameless", attributes={semconv.GEN_AI_OPERATION_NAME: "execute_tool"}, line=4),
        span(
            "llm",
            attributes={
                semconv.GEN_AI_OPERATION_NAME: "chat",
                semconv.GEN_AI_INPUT_MESSAGES: '[{"role": "critic", "content": "hmm"}]',
                semconv.GEN_AI_USAGE_INPUT_TOKENS: "many",
            },
            line=5,
        ),
    ]
    [trace] = list(assemble_traces(spans, SOURCE))
    assert isinstance(trace, Trace)
    assert [call.name for call in trace.tool_calls] == ["lookup"]
    nameless = trace.tree.get("nameless")
    assert (nameless.kind, nameless.tool) == ("other", None)  # no call is made up
    assert nameless.attributes[semconv.GEN_AI_OPERATION_NAME] == "execute_tool"  # kept verbatim
    llm = trace.tree.get("llm")
    assert llm.llm is not None
    assert (llm.llm.input_messages, llm.llm.usage) == (None, None)
    assert llm.attributes[semconv.GEN_AI_INPUT_MESSAGES] == '[{"role": "critic", "content": "hmm"}]'
    report = trace.metadata["trailcheck.unread"]
    assert [(part["span_id"], part["field"]) for part in report] == [
        ("nameless", "attributes.gen_ai.tool.name"),
        ("llm", "attributes.gen_ai.input.messages[0].role"),
        ("llm", "attributes.gen_ai.usage.input_tokens"),
    ]
    assert "role 'critic' is not one of" in report[1]["reason"]


def test_a_trace_read_whole_has_no_reading_report() -> None:
    [trace] = list(assemble_traces([agent(), tool("t", "lookup", 10)], SOURCE))
    assert isinstance(trace, Trace)
    assert "trailcheck.unread" not in trace.metadata


def test_an_orphan_span_rejects_its_trace_naming_the_span_and_its_parent() -> None:
    rejection = one_rejection([agent(line=1), tool("t", "lookup", 10, parent_id="gone", line=2)])
    assert (rejection.line, rejection.span_id, rejection.field) == (2, "t", "parent_span_id")
    assert "span 't' is an orphan: its parent 'gone' is absent" in rejection.message
    assert "Traceback" not in str(rejection)
    assert "validation error" not in rejection.message


def test_duplicate_span_ids_reject_the_trace_naming_the_second_occurrence() -> None:
    rejection = one_rejection(
        [agent(line=1), tool("t", "lookup", 10, line=2), tool("t", "refund", 20, line=3)]
    )
    assert (rejection.line, rejection.span_id, rejection.field) == (3, "t", "span_id")
    assert rejection.message == "trace 't1' not imported: duplicate span ids: t"
    assert str(rejection).startswith("spans.jsonl:3: span 't': field 'span_id': ")


def test_assemble_trace_raises_a_record_error_for_the_in_process_collector() -> None:
    trace = assemble_trace([agent(), tool("t", "lookup", 10)], "collector")
    assert [call.name for call in trace.tool_calls] == ["lookup"]
    with pytest.raises(RecordError) as orphan:
        assemble_trace([tool("t", "lookup", 10, parent_id="remote-parent")], "collector")
    assert (orphan.value.source, orphan.value.span_id) == ("collector", "t")
    with pytest.raises(RecordError, match="no spans"):
        assemble_trace([], "collector")


# --- input -----------------------------------------------------------------------------------


def test_input_and_output_come_from_the_root_agent_spans_messages() -> None:
    root = agent(
        {
            semconv.GEN_AI_INPUT_MESSAGES: messages(("user", "Refund A-1")),
            semconv.GEN_AI_OUTPUT_MESSAGES: messages(
                ("assistant", "Checking."), ("assistant", "Done.")
            ),
        }
    )
    llm = chat(
        "c1",
        10,
        {
            semconv.GEN_AI_INPUT_MESSAGES: messages(("user", "other")),
            semconv.GEN_AI_OUTPUT_MESSAGES: messages(("assistant", "other answer")),
        },
    )
    trace = one_trace([root, llm])
    assert trace.input == [Message(role="user", content="Refund A-1")]
    assert trace.final_output == "Done."


def test_input_value_and_output_value_of_the_root_speak_for_the_trace() -> None:
    root = span(
        "root", None, {semconv.INPUT_VALUE: "What is 2+2?", semconv.OUTPUT_VALUE: "4"}, start=0
    )
    trace = one_trace([root])
    assert (trace.input, trace.final_output) == ("What is 2+2?", "4")


def test_without_root_messages_the_llm_spans_supply_input_and_final_output() -> None:
    first = chat(
        "c1",
        10,
        {
            semconv.GEN_AI_INPUT_MESSAGES: messages(
                ("system", "Be brief."), ("user", "Refund A-1")
            ),
            semconv.GEN_AI_OUTPUT_MESSAGES: messages(("assistant", "Let me check.")),
        },
    )
    last = chat(
        "c2",
        30,
        {
            semconv.GEN_AI_INPUT_MESSAGES: messages(("user", "Refund A-1"), ("tool", "ok")),
            semconv.GEN_AI_OUTPUT_MESSAGES: messages(("assistant", "Refunded.")),
        },
    )
    trace = one_trace([last, agent(), first])
    assert trace.input == [Message(role="user", content="Refund A-1")]
    assert trace.final_output == "Refunded."


def test_a_last_llm_call_without_text_leaves_the_final_output_empty() -> None:
    calls_a_tool = orjson.dumps(
        [{"role": "assistant", "tool_calls": [{"id": "c", "name": "lookup", "arguments": {}}]}]
    ).decode()
    first = chat("c1", 10, {semconv.GEN_AI_OUTPUT_MESSAGES: messages(("assistant", "Interim."))})
    last = chat("c2", 30, {semconv.GEN_AI_OUTPUT_MESSAGES: calls_a_tool})
    assert one_trace([agent(), first, last]).final_output is None


def test_a_root_tool_span_does_not_speak_for_the_trace() -> None:
    root = span(
        "root",
        None,
        {
            semconv.OPENINFERENCE_SPAN_KIND: "TOOL",
            semconv.TOOL_NAME: "search",
            semconv.INPUT_VALUE: '{"q": "x"}',
            semconv.OUTPUT_VALUE: "found",
        },
        start=0,
    )
    trace = one_trace([root])
    assert (trace.input, trace.final_output) == (None, None)
    assert trace.tool_calls[0].arguments == {"q": "x"}


def test_a_root_input_value_that_is_not_text_rejects_the_trace_at_the_root() -> None:
    rejection = one_rejection([span("root", None, {semconv.INPUT_VALUE: 42}, start=0, line=9)])
    assert (rejection.line, rejection.span_id, rejection.field) == (
        9,
        "root",
        "attributes.input.value",
    )


# --- vendor fields, metadata, usage ----------------------------------------------------------


def test_trace2evals_root_attributes_give_state_and_metadata() -> None:
    root = agent(
        {
            semconv.GEN_AI_AGENT_NAME: "support-agent",
            "trace2evals.scenario_id": "refund-ok",
            "trace2evals.agent_version": "v1",
            "trace2evals.final_state": '{"refunds": [{"order_id": "A-1"}]}',
        }
    )
    trace = one_trace([root])
    assert trace.state_after == {"refunds": [{"order_id": "A-1"}]}
    assert trace.state_before is None
    assert trace.metadata == {
        "agent_name": "support-agent",
        "scenario_id": "refund-ok",
        "agent_version": "v1",
    }


def test_a_trajectory_summary_fills_what_the_conventions_left_empty() -> None:
    summary = {
        "user_message": "Status of A-3?",
        "final_answer": "In transit.",
        "final_state": {"refunds": []},
        "scenario_id": "status-check",
        "agent_version": "v2",
        "principal": "cus_carol",
        "metadata": {"model": "scripted"},
        "failures": [],
    }
    root = agent(
        {
            "trace2evals.trajectory": orjson.dumps(summary).decode(),
            semconv.GEN_AI_OUTPUT_MESSAGES: messages(("assistant", "From the convention.")),
        },
        name="invoke_agent support-agent",
    )
    trace = one_trace([root])
    assert trace.input == "Status of A-3?"
    assert trace.final_output == "From the convention."  # the standard convention comes first
    assert trace.state_after == {"refunds": []}
    assert trace.metadata == {
        "agent_name": "support-agent",  # from the span name "invoke_agent support-agent"
        "scenario_id": "status-check",
        "agent_version": "v2",
        "principal": "cus_carol",
        "trace2evals": {"model": "scripted"},
    }


@pytest.mark.parametrize(
    ("attributes", "field"),
    [
        ({"trace2evals.trajectory": "{oops"}, "attributes.trace2evals.trajectory"),
        (
            {"trace2evals.trajectory": '{"final_state": [1]}'},
            "attributes.trace2evals.trajectory.final_state",
        ),
        (
            {"trace2evals.trajectory": '{"user_message": 7}'},
            "attributes.trace2evals.trajectory.user_message",
        ),
        ({"trace2evals.final_state": '"done"'}, "attributes.trace2evals.final_state"),
    ],
)
def test_bad_vendor_root_attributes_reject_the_trace_at_the_root(
    attributes: dict[str, Any], field: str
) -> None:
    rejection = one_rejection([agent(attributes, line=3)])
    assert (rejection.line, rejection.span_id, rejection.field) == (3, "root", field)


def test_metadata_names_agent_conversation_session_and_resource() -> None:
    root = agent(resource={"service.name": "shop", "service.version": "1.2"})
    llm = chat("c1", 10, {semconv.GEN_AI_CONVERSATION_ID: "conv-1", semconv.SESSION_ID: "sess-1"})
    inner = span(
        "a2", "root", {semconv.OPENINFERENCE_SPAN_KIND: "AGENT", semconv.AGENT_NAME: "planner"}
    )
    trace = one_trace([root, llm, inner])
    assert trace.metadata == {
        "agent_name": "planner",
        "conversation_id": "conv-1",
        "session_id": "sess-1",
        "otel.resource": {"service.name": "shop", "service.version": "1.2"},
    }


def test_usage_is_summed_over_llm_spans_without_counting_a_call_instrumented_twice() -> None:
    tokens = {semconv.GEN_AI_USAGE_INPUT_TOKENS: 100, semconv.GEN_AI_USAGE_OUTPUT_TOKENS: 10}
    outer = chat("c1", 10, tokens)
    inner = span(
        "c1-provider",
        "c1",
        {semconv.OPENINFERENCE_SPAN_KIND: "LLM", semconv.LLM_TOKEN_COUNT_PROMPT: 100},
        start=11,
    )
    second = chat("c2", 30, {semconv.GEN_AI_USAGE_INPUT_TOKENS: 50})
    untracked = chat("c3", 40, {})
    trace = one_trace([agent(), outer, inner, second, untracked])
    assert trace.usage == Usage(input_tokens=150, output_tokens=10)


def test_no_recorded_tokens_means_no_usage() -> None:
    assert one_trace([agent(), chat("c1", 10, {})]).usage is None


def test_the_root_agents_span_name_names_the_agent_before_a_sub_agents_attribute() -> None:
    root = agent(name="invoke_agent support-agent")
    sub_agent = span("a2", "root", {semconv.GEN_AI_AGENT_NAME: "refund-specialist"})
    assert one_trace([root, sub_agent]).metadata == {"agent_name": "support-agent"}


def test_assemble_trace_refuses_spans_of_several_traces() -> None:
    with pytest.raises(RecordError) as caught:
        assemble_trace([agent(trace_id="a"), tool("t", "lookup", 10, trace_id="b")], "collector")
    assert (caught.value.span_id, caught.value.field) == ("t", "trace_id")
    assert "belongs to trace 'b', not 'a'" in caught.value.message
