"""Each span scored by its kind: tools against their declared schemas, sub-agents, retrievals
against a case's relevant chunks, model calls."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.components.builders import ORDER_TOOLS, multi_agent_trace, span, tool
from trailcheck.cases import Case, RelevantChunks
from trailcheck.components import SpanScore, declared_tools, score_spans, tool_contracts
from trailcheck.testing import TraceBuilder
from trailcheck.trace import ModelInvocation, Trace


def _by_span(scores: list[SpanScore]) -> dict[str, SpanScore]:
    return {score.span_id: score for score in scores}


def test_every_component_call_is_scored_and_the_run_and_guards_are_not() -> None:
    scores = score_spans(multi_agent_trace())
    assert [(s.span_id, s.kind, s.component) for s in scores] == [
        ("retrieve-1", "retriever", "policies"),
        ("chat-1", "llm", "gpt-x"),
        ("lookup-1", "tool", "lookup_order"),
        ("billing", "agent", "billing"),
        ("refund-1", "tool", "issue_refund"),
        ("lookup-2", "tool", "lookup_order"),
        ("chat-2", "llm", "gpt-x"),
    ]
    assert all(score.latency_ms == 10.0 for score in scores if score.span_id != "billing")


def test_tool_arguments_and_results_against_their_declared_schemas() -> None:
    scores = _by_span(score_spans(multi_agent_trace()))
    bad_id = scores["lookup-1"]
    assert (bad_id.outcome, bad_id.error_kind) == ("invalid", "invalid_arguments")
    assert bad_id.values == {"arguments_valid": 0.0, "result_valid": 1.0}
    assert "$.order_id: '12' does not match '^A-[0-9]+$'" in bad_id.reason
    bad_result = scores["lookup-2"]
    assert (bad_result.outcome, bad_result.error_kind) == ("invalid", "invalid_result")
    assert "$.status: 'lost' is not one of 'open', 'delivered'" in bad_result.reason
    # A failed call: the error's type from "Type: message"; its result is not checked.
    failed = scores["refund-1"]
    assert (failed.outcome, failed.error_kind) == ("error", "RefundError")
    assert failed.values == {"arguments_valid": 1.0}


def test_a_tool_without_a_declaration_is_scored_on_success_and_latency_alone() -> None:
    trace = (
        TraceBuilder("t2")
        .tool("search", {"q": "x"}, result=[1])
        .tool("search", {"q": "y"}, error="backend down")
        .build()
    )
    first, second = score_spans(trace)
    assert (first.outcome, first.values, first.latency_ms) == ("ok", {}, 0.001)
    assert (second.outcome, second.error_kind) == ("error", "error")


def test_a_sub_agent_output_against_its_callers_schema_and_its_own_tool_calls() -> None:
    good = _by_span(score_spans(multi_agent_trace()))["billing"]
    assert good.outcome == "ok"
    assert good.values == {"output_valid": 1.0, "tool_calls": 2, "tool_call_success": 0.0}
    assert "its tool calls: 0/2 succeeded" in good.reason
    bad = _by_span(score_spans(multi_agent_trace(refund_output={"refunded": "yes"})))["billing"]
    assert (bad.outcome, bad.error_kind) == ("invalid", "invalid_output")
    assert "$.refunded: expected boolean, not string" in bad.reason


def test_a_tool_call_of_a_nested_agent_is_that_agents_not_its_callers() -> None:
    spans = [
        span("root", "agent", 0, parent=None, duration_ms=100),
        span("outer", "agent", 1, duration_ms=90),
        span("inner", "agent", 2, parent="outer", duration_ms=50),
        tool("call-1", "search", {}, 3, parent="inner"),
        span("step", "other", 60, parent="outer"),
        tool("call-2", "search", {}, 61, parent="step", error="boom"),
    ]
    scores = _by_span(score_spans(Trace(trace_id="t1", spans=spans)))
    assert scores["inner"].values == {"tool_calls": 1, "tool_call_success": 1.0}
    assert scores["outer"].values == {"tool_calls": 1, "tool_call_success": 0.0}
    assert "root" not in scores


def test_model_calls_tokens_cost_and_whether_the_output_parsed() -> None:
    scores = _by_span(score_spans(multi_agent_trace()))
    assert scores["chat-1"].values == {
        "input_tokens": 120,
        "output_tokens": 30,
        "cost_usd": 0.002,
        "output_parsed": 1.0,
    }
    failed = scores["chat-2"]
    assert (failed.outcome, failed.error_kind) == ("error", "RateLimitError")
    assert failed.values == {"output_parsed": 0.0}
    assert "the arguments of lookup_order were not a JSON object" in failed.reason


def test_json_output_that_is_not_json_is_an_invalid_call() -> None:
    reply = TraceBuilder("t3").llm("Sure! here you go", model="m").build()
    asked = reply.model_copy(
        update={
            "spans": [
                s.model_copy(update={"attributes": {"gen_ai.output.type": "json"}})
                if s.kind == "llm"
                else s
                for s in reply.spans
            ]
        }
    )
    [score] = score_spans(asked)
    assert (score.outcome, score.error_kind) == ("invalid", "unparsed_output")
    [plain] = score_spans(reply)  # text output was not asked for as JSON: nothing to parse
    assert (plain.outcome, plain.values) == ("ok", {})


CASE = Case(
    id="refund",
    input="Refund A-12",
    relevant_chunks=[
        RelevantChunks(query="refund policy", chunks=["doc-1", "doc-2", "doc-3"]),
        RelevantChunks(step=2, chunks=["doc-9"]),
        RelevantChunks(chunks=["doc-7"]),
    ],
)


def test_retrieval_recall_and_precision_against_the_cases_relevant_chunks() -> None:
    [retrieval] = [s for s in score_spans(multi_agent_trace(), CASE) if s.kind == "retriever"]
    # Returned doc-1 and doc-7; relevant for "refund policy": doc-1, doc-2, doc-3.
    assert retrieval.values == {
        "retrieved": 2,
        "recall_at_k": pytest.approx(1 / 3),
        "precision_at_k": 0.5,
    }
    assert "recall@2 1/3=0.333, precision@2 1/2=0.500" in retrieval.reason
    assert retrieval.outcome == "ok"  # recall is a measure, not a failure


def _retrievals(*attributes: dict[str, Any]) -> Trace:
    spans = [span("root", "agent", 0, parent=None, duration_ms=100)]
    spans += [
        span(f"r{index}", "retriever", index + 1, attributes=found)
        for index, found in enumerate(attributes)
    ]
    return Trace(trace_id="t1", spans=spans)


def test_retrievals_are_matched_by_query_then_step_then_the_catch_all() -> None:
    trace = _retrievals(
        {"input.value": "shipping", "retrieval.documents.0.document.id": "doc-7"},
        {"input.value": "returns", "retrieval.documents.0.document.id": "doc-9"},
        {"retrieval.documents": [{"document.id": 4}, {"document": {"id": "doc-7"}}]},
    )
    scores = score_spans(trace, CASE)
    assert [s.values["recall_at_k"] for s in scores] == [1.0, 1.0, 1.0]
    assert [s.values["precision_at_k"] for s in scores] == [1.0, 1.0, 0.5]


def test_a_retrieval_without_ids_or_without_a_case_has_no_recall() -> None:
    trace = _retrievals({"input.value": "refund policy"})
    [score] = score_spans(trace, CASE)
    assert score.values == {}
    assert "records no document ids" in score.reason
    assert score_spans(multi_agent_trace())[0].values == {"retrieved": 2}


def test_relevant_chunks_name_a_retrieval_once_by_query_or_step() -> None:
    with pytest.raises(ValidationError, match="by its query or by its step, not both"):
        RelevantChunks(query="q", step=1, chunks=["a"])
    with pytest.raises(ValidationError, match="more than one entry for step 2"):
        Case(
            id="c",
            input="x",
            relevant_chunks=[RelevantChunks(step=2, chunks=["a"]), {"step": 2, "chunks": ["b"]}],
        )
    with pytest.raises(ValidationError):
        RelevantChunks(chunks=[])


def test_declarations_are_found_where_each_source_keeps_them() -> None:
    definitions = [
        {"type": "function", "name": "search", "parameters": {"type": "object", "required": ["q"]}}
    ]
    openinference = {
        "type": "function",
        "function": {"name": "lookup_order", "parameters": {"type": "object"}},
    }
    spans = [
        span(
            "root",
            "agent",
            0,
            parent=None,
            duration_ms=100,
            attributes={"gen_ai.tool.definitions": orjson.dumps(definitions).decode()},
        ),
        span(
            "chat",
            "llm",
            1,
            llm=ModelInvocation(model="m"),
            attributes={"llm.tools.0.tool.json_schema": orjson.dumps(openinference).decode()},
        ),
        tool("s1", "search", {}, 2),
        # The span's own schema comes first.
        span(
            "s2",
            "tool",
            20,
            tool=tool("x", "search", {"q": 1}, 0).tool,
            attributes={"gen_ai.tool.json_schema": {"type": "object"}},
        ),
    ]
    trace = Trace(trace_id="t1", spans=spans)
    case = Case(id="c", input="x", metadata={"tool_declarations": ORDER_TOOLS})
    contracts = tool_contracts(trace, case)
    assert contracts["search"].arguments == {"type": "object", "required": ["q"]}
    assert contracts["lookup_order"].arguments == {"type": "object"}  # the trace's, not the case's
    assert contracts["billing"].result is not None  # only the case declares it
    scores = _by_span(score_spans(trace, case))
    assert scores["s1"].values == {"arguments_valid": 0.0}
    assert scores["s2"].values == {"arguments_valid": 1.0}
    assert declared_tools(trace) is None
    assert declared_tools(trace, case) == ORDER_TOOLS


ATTRIBUTE = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=20),
    st.lists(
        st.one_of(
            st.integers(),
            st.text(max_size=5),
            st.dictionaries(st.text(max_size=8), st.text(max_size=5)),
        ),
        max_size=3,
    ),
    st.dictionaries(
        st.text(max_size=8),
        st.one_of(st.integers(), st.booleans(), st.text(max_size=5)),
        max_size=3,
    ),
)
KEYS = st.sampled_from(
    [
        "gen_ai.tool.definitions",
        "gen_ai.tool.json_schema",
        "tool.parameters",
        "gen_ai.retrieval.documents",
        "retrieval.documents",
        "retrieval.documents.0.document.id",
        "llm.tools.0.tool.json_schema",
        "gen_ai.agent.name",
        "output.value",
        "gen_ai.output.type",
        "error.type",
    ]
)


@given(
    st.dictionaries(KEYS, ATTRIBUTE, max_size=6),
    st.sampled_from(["tool", "retriever", "agent", "llm"]),
)
def test_whatever_traffic_records_scoring_does_not_raise(
    attributes: dict[str, Any], kind: str
) -> None:
    spans = [span("root", "agent", 0, parent=None, duration_ms=100, attributes=attributes)]
    if kind == "tool":
        spans.append(
            span("c", "tool", 1, tool=tool("x", "search", {"q": 1}, 0).tool, attributes=attributes)
        )
    elif kind == "llm":
        spans.append(span("c", "llm", 1, llm=ModelInvocation(model="m"), attributes=attributes))
    else:
        spans.append(span("c", kind, 1, attributes=attributes))
    spans.append(tool("d", "search", {"q": 1}, 5, parent="c"))
    scores = score_spans(Trace(trace_id="t1", spans=spans), CASE)
    assert {score.span_id for score in scores} >= {"d"}
