"""The support shop as an OpenAI Agents SDK agent, run as an otel agent: the same brains behind
the SDK's ``Model`` interface, traced by OpenInference's OpenAI Agents instrumentation (the
SDK's export to OpenAI replaced, no key), graded by the same ``support`` dataset. Skipped only
where the ``openai-agents`` extra is not installed (CI installs every extra)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("agents")
pytest.importorskip("openinference.instrumentation.openai_agents")

from agents import Agent, RunConfig, Runner
from agents.tracing import get_trace_provider, processors
from openinference.instrumentation.openai_agents._processor import (
    OpenInferenceTracingProcessor,
)

from tests.demo.framework_support import (
    assert_demo_writes_the_three_reports,
    assert_graded_like_native,
    assert_run_command_gates,
    assert_v1_fails_on_its_bugs,
    assert_v2_passes,
    run_support,
)
from trailcheck.demo.frameworks.openai_agents_model import (
    AgentsChatModel,
    from_agents_input,
    to_response,
)
from trailcheck.demo.support.openai_agents_agent import v1_agent, v2_agent
from trailcheck.errors import UsageError
from trailcheck.models import Reply, ScriptedModel
from trailcheck.run.otel_trial import TRIAL_SPAN_NAME
from trailcheck.trace import Message, MessageToolCall, Usage


def test_v1_fails_the_gate_on_the_cases_that_guard_its_bugs() -> None:
    assert_v1_fails_on_its_bugs(run_support(v1_agent).report)


def test_v2_passes_every_trial_and_the_gate() -> None:
    assert_v2_passes(run_support(v2_agent).report)


def test_the_trace_is_openinferences_and_nothing_goes_to_openai(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = run_support(v2_agent, k=1)
    trace = next(t for t in result.traces if t.metadata["case_id"] == "refund-verified")
    root = trace.tree.root
    assert root is not None
    assert root.name == TRIAL_SPAN_NAME
    [workflow] = trace.tree.children(root.span_id)
    assert workflow.name == "Agent workflow"
    assert {span.attributes.get("otel.scope.name") for span in trace.spans} == {
        "trailcheck.run",
        "openinference.instrumentation.openai_agents",
    }
    assert [call.name for call in trace.tool_calls] == [
        "lookup_order",
        "verify_identity",
        "check_refund_policy",
        "issue_refund",
    ]
    assert {span.llm.model for span in trace.spans if span.llm} == {"support-v2"}
    assert trace.usage is None  # the brains give no usage, and the bridge invents none
    assert trace.final_text.startswith("I've issued your refund of $129.00 for order A-1001")
    assert result.report.manifest["agent"]["framework"] == "openai-agents"  # type: ignore[index,call-overload]
    # OpenInference's processor is the SDK's only one; its exporter to OpenAI never started.
    registered = get_trace_provider()._multi_processor._processors  # type: ignore[attr-defined]
    assert [type(p) for p in registered] == [OpenInferenceTracingProcessor]
    default = processors._global_processor
    assert default is None or default._worker_thread is None


def test_a_recoverable_tool_error_goes_back_to_the_model_and_fails_the_call() -> None:
    result = run_support(v2_agent, k=1)
    trace = next(t for t in result.traces if t.metadata["case_id"] == "refund-failed-no-claim")
    refund = trace.tool_calls[-1]
    assert refund.name == "issue_refund"
    assert refund.result == {
        "error": "ToolError: payment processor declined the refund; nothing was paid out"
    }
    assert refund.error is not None
    assert refund.error.startswith("Error running tool (non-fatal): ")
    assert "payment processor declined the refund" in refund.error
    assert "did not go through" in trace.final_text


def test_openai_agents_and_the_native_loop_are_graded_alike() -> None:
    assert_graded_like_native(v1_agent)


def test_the_model_reads_the_sdks_input_items_as_the_native_loop_writes_messages() -> None:
    items = [
        {"role": "user", "content": "Refund A-1"},
        {"type": "function_call", "call_id": "c1", "name": "lookup_order", "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "name": "verify", "arguments": "[1]"},
        {"type": "function_call_output", "call_id": "c1", "output": '{"total": 5}'},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Done."}],
        },
    ]
    assert from_agents_input("Be kind.", items) == [
        Message(role="system", content="Be kind."),
        Message(role="user", content="Refund A-1"),
        Message(
            role="assistant",
            tool_calls=[
                MessageToolCall(id="c1", name="lookup_order", arguments={}),
                MessageToolCall(id="c2", name="verify", arguments={"_raw_arguments": "[1]"}),
            ],
        ),
        Message(role="tool", tool_call_id="c1", content='{"total": 5}'),
        Message(role="assistant", content="Done."),
    ]


def test_a_reply_becomes_a_responses_api_response() -> None:
    call = MessageToolCall(id="c1", name="lookup_order", arguments={"order_id": "A-1"})
    reply = Reply(text="Looking.", tool_calls=[call], usage=Usage(input_tokens=7, output_tokens=2))
    response = to_response(reply, response_id="resp_1", model="scripted", instructions="Hi.")
    assert [item.type for item in response.output] == ["function_call", "message"]
    assert response.output[0].arguments == '{"order_id":"A-1"}'  # type: ignore[union-attr]
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.total_tokens) == (7, 9)
    assert (response.model, response.instructions) == ("scripted", "Hi.")
    assert to_response(Reply(text="ok"), response_id="r", model="m").usage is None


def test_streaming_is_a_usage_error() -> None:
    agent = Agent(name="a", model=AgentsChatModel(ScriptedModel(["hi"])))

    async def stream() -> None:
        untraced = RunConfig(tracing_disabled=True)
        async for _ in Runner.run_streamed(agent, "hello", run_config=untraced).stream_events():
            pass

    with pytest.raises(UsageError, match=r"use Runner\.run, not Runner\.run_streamed"):
        asyncio.run(stream())


def test_run_command_with_agent_kind_otel_gates_v1_red_and_v2_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = "trailcheck.demo.support.openai_agents_agent"
    assert_run_command_gates(module, "support-openai-agents-v2", tmp_path, capsys)


def test_demo_framework_openai_agents_writes_the_three_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_demo_writes_the_three_reports("openai-agents", "OpenAI Agents SDK", tmp_path, capsys)
