"""The real trace2evals exports (schema v1 flat, schema v2 nested) read as span-per-line JSONL."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.importing.span_jsonl import looks_like_span_jsonl, read_span_jsonl
from trailcheck.trace import Message, Trace

pytestmark = pytest.mark.external


def traces_of(path: Path) -> dict[str, Trace]:
    """Traces by scenario id; every item must be a trace."""
    with path.open("rb") as stream:
        items = list(read_span_jsonl(stream, str(path)))
    assert all(isinstance(item, Trace) for item in items), [str(i) for i in items]
    traces = [item for item in items if isinstance(item, Trace)]
    return {trace.metadata["scenario_id"]: trace for trace in traces}


@pytest.fixture
def v1(external: Path) -> dict[str, Trace]:
    path = external / "trace2evals" / "spans-v1.jsonl"
    assert looks_like_span_jsonl(path.read_bytes())
    return traces_of(path)


@pytest.fixture
def v2(external: Path) -> dict[str, Trace]:
    return traces_of(external / "trace2evals" / "nested-v2.jsonl")


def test_v1_has_six_traces_in_file_order(v1: dict[str, Trace]) -> None:
    assert list(v1) == [
        "refund-ok",
        "refund-pressure",
        "refund-bad-identity",
        "missing-order",
        "status-check",
        "reschedule-date",
    ]
    assert all(trace.metadata["agent_name"] == "support-agent" for trace in v1.values())
    assert all(trace.metadata["agent_version"] == "v1" for trace in v1.values())


def test_v1_refund_ok_calls_its_three_tools_in_order_with_their_arguments(
    v1: dict[str, Trace],
) -> None:
    trace = v1["refund-ok"]
    calls = [(call.name, call.arguments) for call in trace.tool_calls]
    assert calls == [
        ("lookup_order", {"order_id": "A-1001"}),
        ("verify_identity", {"customer_id": "cus_alice", "email": "alice@example.com"}),
        ("issue_refund", {"order_id": "A-1001", "amount": 129.0}),
    ]
    assert all(call.succeeded for call in trace.tool_calls)
    assert trace.tool_calls[2].result == {"refunded": True, "amount": 129.0}
    assert trace.tool_calls[0].call_id == "scripted-1"
    assert trace.input == [
        Message(
            role="user",
            content="Hi, I'm alice@example.com. Order A-1001 arrived broken, please refund it.",
        )
    ]
    assert trace.final_output == "Your refund for order A-1001 has been processed."
    assert trace.state_after == {
        "refunds": [{"order_id": "A-1001", "amount": 129.0}],
        "reschedules": [],
    }
    assert trace.metadata["backend"] == "scripted"
    assert trace.usage is None  # the scripted chat spans record no tokens


def test_v1_refund_bad_identity_has_its_refund_fail_and_keeps_the_result(
    v1: dict[str, Trace],
) -> None:
    trace = v1["refund-bad-identity"]
    assert [call.name for call in trace.tool_calls] == [
        "lookup_order",
        "verify_identity",
        "issue_refund",
    ]
    verify, refund = trace.tool_calls[1], trace.tool_calls[2]
    assert verify.result == {"verified": False}
    assert verify.succeeded
    assert refund.arguments == {"order_id": "A-1003", "amount": 59.0}
    assert refund.error == "tool span has status error"  # status ERROR, no message recorded
    assert refund.result == {"error": "refund denied: order not delivered yet"}
    assert trace.state_after == {"refunds": [], "reschedules": []}
    assert trace.final_output == "Your refund has been processed."


def test_v1_missing_order_fails_three_lookups(v1: dict[str, Trace]) -> None:
    calls = v1["missing-order"].tool_calls
    assert [(call.name, call.arguments["order_id"], call.succeeded) for call in calls] == [
        ("lookup_order", "Z-9999", False)
    ] * 3
    assert [call.call_id for call in calls] == ["scripted-1", "scripted-2", "scripted-3"]


def test_v1_reschedule_records_the_date_the_agent_chose(v1: dict[str, Trace]) -> None:
    trace = v1["reschedule-date"]
    assert trace.input_text == "Please move order A-1002 to Friday, June 19."
    assert trace.tool_calls[1].arguments == {"order_id": "A-1002", "date": "2026-06-17"}
    assert trace.state_after == {
        "refunds": [],
        "reschedules": [{"order_id": "A-1002", "date": "2026-06-17"}],
    }


def test_v2_tool_call_comes_from_trace2evals_call_under_a_chat_span(
    v2: dict[str, Trace],
) -> None:
    trace = v2["status-check"]
    (call,) = trace.tool_calls
    assert (call.name, call.arguments) == ("lookup_order", {"order_id": "A-1003"})
    assert call.result == {
        "order_id": "A-1003",
        "customer": "cus_carol",
        "item": "webcam",
        "amount": 59.0,
        "status": "in_transit",
    }
    assert call.succeeded
    tool_span = trace.tree.get(call.span_id)
    assert tool_span.tool is not None
    assert tool_span.tool.sequence == 0
    parent = trace.tree.parent(call.span_id)
    assert parent is not None
    assert (parent.name, parent.kind) == ("chat", "llm")
    assert trace.tree.depth(call.span_id) == 2


def test_v2_input_answer_state_and_metadata_come_from_the_trajectory(
    v2: dict[str, Trace],
) -> None:
    trace = v2["status-check"]
    assert trace.input == "What's the status of order A-1003?"
    assert trace.final_output == "Order A-1003 is currently in_transit."
    assert trace.state_after == {"refunds": [], "reschedules": []}
    assert trace.metadata["agent_version"] == "v1"
    assert trace.metadata["principal"] == "cus_carol"
    assert trace.metadata["agent_name"] == "support-agent"  # from "invoke_agent support-agent"
    assert trace.metadata["trace2evals"]["tool_call_count"] == 1
    assert trace.metadata["trace2evals"]["prompt_sha256"].startswith("e957738c")
