"""The support shop as a LangGraph agent, run as an otel agent: the same brains under LangGraph,
traced by OpenInference's LangChain instrumentation, graded by the same ``support`` dataset.
Skipped only where the ``langgraph`` extra is not installed (CI installs every extra)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain")
pytest.importorskip("openinference.instrumentation.langchain")

from tests.demo.framework_support import (
    assert_demo_writes_the_three_reports,
    assert_graded_like_native,
    assert_run_command_gates,
    assert_v1_fails_on_its_bugs,
    assert_v2_passes,
    run_support,
)
from trailcheck.demo.support.langgraph_agent import v1_agent, v2_agent
from trailcheck.run.otel_trial import TRIAL_SPAN_NAME


def test_v1_fails_the_gate_on_the_cases_that_guard_its_bugs() -> None:
    assert_v1_fails_on_its_bugs(run_support(v1_agent).report)


def test_v2_passes_every_trial_and_the_gate() -> None:
    assert_v2_passes(run_support(v2_agent).report)


def test_the_trace_is_langgraphs_under_the_trial_span() -> None:
    result = run_support(v2_agent)
    trace = next(t for t in result.traces if t.metadata["case_id"] == "refund-verified")
    root = trace.tree.root
    assert root is not None
    assert root.name == TRIAL_SPAN_NAME
    [graph] = trace.tree.children(root.span_id)
    assert graph.name == "LangGraph"
    assert {span.attributes.get("otel.scope.name") for span in trace.spans} >= {
        "openinference.instrumentation.langchain"
    }
    assert [call.name for call in trace.tool_calls] == [
        "lookup_order",
        "verify_identity",
        "check_refund_policy",
        "issue_refund",
    ]
    assert trace.state_after is not None
    assert len(trace.state_after["refunds"]) == 1
    assert trace.final_text.startswith("I've issued your refund of $129.00 for order A-1001")
    assert result.report.manifest["agent"]["framework"] == "langgraph"  # type: ignore[index,call-overload]


def test_langgraph_and_the_native_loop_are_graded_alike() -> None:
    assert_graded_like_native(v1_agent)


def test_run_command_with_agent_kind_otel_gates_v1_red_and_v2_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = "trailcheck.demo.support.langgraph_agent"
    assert_run_command_gates(module, "support-langgraph-v2", tmp_path, capsys)


def test_demo_framework_langgraph_writes_the_three_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_demo_writes_the_three_reports("langgraph", "LangGraph", tmp_path, capsys)
