"""The support shop as a Pydantic AI agent, run as an otel agent: the same brains behind
Pydantic AI's ``FunctionModel``, traced by Pydantic AI's own OpenTelemetry instrumentation,
graded by the same ``support`` dataset. Skipped only where the ``pydantic-ai`` extra is not
installed (CI installs every extra)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from tests.demo.framework_support import (
    assert_demo_writes_the_three_reports,
    assert_graded_like_native,
    assert_run_command_gates,
    assert_v1_fails_on_its_bugs,
    assert_v2_passes,
    run_support,
)
from trailcheck.demo.frameworks.pydantic_ai_model import from_pydantic_ai, to_model_response
from trailcheck.demo.support.pydantic_ai_agent import v1_agent, v2_agent
from trailcheck.models import Reply
from trailcheck.run.otel_trial import TRIAL_SPAN_NAME
from trailcheck.trace import Message, MessageToolCall, Usage


def test_v1_fails_the_gate_on_the_cases_that_guard_its_bugs() -> None:
    assert_v1_fails_on_its_bugs(run_support(v1_agent).report)


def test_v2_passes_every_trial_and_the_gate() -> None:
    assert_v2_passes(run_support(v2_agent).report)


def test_the_trace_is_pydantic_ais_under_the_trial_span() -> None:
    result = run_support(v2_agent, k=1)
    trace = next(t for t in result.traces if t.metadata["case_id"] == "refund-verified")
    root = trace.tree.root
    assert root is not None
    assert root.name == TRIAL_SPAN_NAME
    [agent_run] = trace.tree.children(root.span_id)
    assert agent_run.name == "invoke_agent support-pydantic-ai-v2"
    assert {span.attributes.get("otel.scope.name") for span in trace.spans} == {
        "trailcheck.run",
        "pydantic-ai",
    }
    assert [call.name for call in trace.tool_calls] == [
        "lookup_order",
        "verify_identity",
        "check_refund_policy",
        "issue_refund",
    ]
    assert {span.llm.model for span in trace.spans if span.llm} == {"support-v2"}
    assert trace.usage is None  # the brains give no usage, and none is estimated
    assert trace.final_text.startswith("I've issued your refund of $129.00 for order A-1001")
    assert result.report.manifest["agent"]["framework"] == "pydantic-ai"  # type: ignore[index,call-overload]
    # The instrumentation is the agent's own: nothing was installed for every agent.
    assert Agent._instrument_default is False


def test_a_recoverable_tool_error_goes_back_to_the_model_and_fails_the_call() -> None:
    result = run_support(v2_agent, k=1)
    trace = next(t for t in result.traces if t.metadata["case_id"] == "lookup-outage-no-loop")
    assert [call.name for call in trace.tool_calls] == ["lookup_order", "lookup_order"]
    for call in trace.tool_calls:  # retried once (v2's habit), with no retry budget spent
        assert call.error == (
            "ToolFailedError: ToolError: order service unavailable: the request timed out"
        )
    assert "not responding" in trace.final_text


def test_pydantic_ai_and_the_native_loop_are_graded_alike() -> None:
    assert_graded_like_native(v1_agent)


def test_the_model_reads_the_runs_messages_as_the_native_loop_writes_them() -> None:
    now = datetime(2026, 6, 15, tzinfo=UTC)
    messages = [
        ModelRequest(parts=[UserPromptPart("Refund A-1", timestamp=now)]),
        ModelResponse(
            parts=[TextPart("Looking."), ToolCallPart("lookup_order", '{"order_id": "A-1"}', "c1")]
        ),
        ModelRequest(
            parts=[
                ToolReturnPart("lookup_order", "no such order", "c1", outcome="failed"),
                ToolReturnPart("verify", {"ok": True}, "c2"),
            ]
        ),
    ]
    assert from_pydantic_ai(messages, "Be kind.") == [
        Message(role="system", content="Be kind."),
        Message(role="user", content="Refund A-1"),
        Message(
            role="assistant",
            content="Looking.",
            tool_calls=[
                MessageToolCall(id="c1", name="lookup_order", arguments={"order_id": "A-1"})
            ],
        ),
        Message(role="tool", tool_call_id="c1", content='{"error":"no such order"}'),
        Message(role="tool", tool_call_id="c2", content='{"ok":true}'),
    ]


def test_a_reply_becomes_a_model_response_with_its_usage_or_none() -> None:
    call = MessageToolCall(id="c1", name="lookup_order", arguments={"order_id": "A-1"})
    reply = Reply(text="Looking.", tool_calls=[call], usage=Usage(input_tokens=7, output_tokens=2))
    response = to_model_response(reply)
    assert [part.part_kind for part in response.parts] == ["text", "tool-call"]
    assert (response.usage.input_tokens, response.usage.output_tokens) == (7, 2)
    assert to_model_response(Reply(text="ok")).usage.unmeasured_requests == 1


def test_run_command_with_agent_kind_otel_gates_v1_red_and_v2_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = "trailcheck.demo.support.pydantic_ai_agent"
    assert_run_command_gates(module, "support-pydantic-ai-v2", tmp_path, capsys)


def test_demo_framework_pydantic_ai_writes_the_three_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_demo_writes_the_three_reports("pydantic-ai", "Pydantic AI", tmp_path, capsys)
