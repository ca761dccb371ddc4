"""A trace whose instrumentation recorded no message content is marked, with the fix to apply;
one that recorded content is not."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given

from tests.trace.strategies import traces
from trailcheck.importing import import_traces
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Message, Trace
from trailcheck.trace.content_gap import DEFAULT_FIX, GapTally, content_gap

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"


def real_traces(name: str, *, with_logs: bool = True) -> list[Trace]:
    files = [REAL / f"{name}.traces.pb"]
    if with_logs and (REAL / f"{name}.logs.pb").exists():
        files.append(REAL / f"{name}.logs.pb")
    found: list[Trace] = []
    import_traces(files, found.append)
    return found


def refund_trace(traces: list[Trace]) -> Trace:
    """The refund conversation's trace: the first to make the refund's three calls."""
    names = ["lookup_order", "verify_identity", "issue_refund"]
    return next(trace for trace in traces if [c.name for c in trace.tool_calls] == names)


@pytest.mark.parametrize(
    ("name", "fix_mentions"),
    [
        ("openai-v2-2.4b0-no-content", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"),
        ("adk-2.13.0", "Google ADK"),
        ("adk-2.13.0-schema-v1-no-content", "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS"),
        ("pydantic-ai-2.68.0-no-content", "include_content=True"),
    ],
)
def test_a_real_trace_without_content_has_a_gap_naming_the_fix(
    name: str, fix_mentions: str
) -> None:
    traces = real_traces(name)
    assert len(traces) == 4  # refund, missing_order, two_turns (two runs)
    gap = content_gap(refund_trace(traces))
    assert gap is not None
    assert fix_mentions in gap.fix
    # One per model call: ADK v1's call_llm and the generate_content span under it are one.
    assert len(gap.llm_span_ids) == 3
    assert gap.reason.startswith("content not captured: 3 model calls record no message content")


@pytest.mark.parametrize(
    "name",
    [
        "openai-v2-2.4b0-legacy-events",
        "openai-v2-2.4b0-span-only",
        "adk-2.13.0-content",
        "adk-2.13.0-schema-v1",
        "langgraph-1.2.24-openinference-0.1.80",
        "openai-agents-0.24.0-openinference-2.6.0",
        "pydantic-ai-2.68.0",
    ],
)
def test_a_real_trace_with_content_has_no_gap(name: str) -> None:
    assert [content_gap(trace) for trace in real_traces(name)] == [None] * 4


def test_content_sent_as_log_records_but_not_imported_is_a_gap_that_says_to_import_them() -> None:
    traces = real_traces("openai-v2-2.4b0-legacy-events", with_logs=False)
    assert len(traces) == 4
    for trace in traces:  # without its log records, no trace holds content to tell it by
        gap = content_gap(trace)
        assert gap is not None
        assert "import or send them with the spans" in gap.fix


def test_model_calls_without_messages_are_no_gap_when_nothing_is_missing() -> None:
    # The agent's own span recorded the input and the answer, and no tool was called.
    trace = TraceBuilder(input="Hi").llm(None).output("Hello").build()
    assert content_gap(trace) is None


def test_a_trace_without_model_calls_has_no_gap() -> None:
    assert content_gap(TraceBuilder(input="Hi").tool("lookup_order", {}).build()) is None


def test_a_gap_of_an_unknown_instrumentation_gets_the_general_fix() -> None:
    trace = TraceBuilder().llm(None, input_messages=[Message(role="user")]).build()
    gap = content_gap(trace)
    assert gap is not None
    assert (gap.instrumentation, gap.fix) == (None, DEFAULT_FIX)


def test_the_tally_prints_one_line_per_kind_of_gap() -> None:
    tally = GapTally()
    for name in ("openai-v2-2.4b0-no-content", "adk-2.13.0", "pydantic-ai-2.68.0"):
        for trace in real_traces(name):
            tally.add(trace)
    lines = tally.warnings()
    assert len(lines) == 2
    assert all(line.startswith("warning: 4 traces recorded no message content: ") for line in lines)


@given(traces())
def test_the_gap_is_the_same_whether_the_calls_were_derived_or_not(trace: Trace) -> None:
    # Read before the calls are derived, a trace's gap is told from its tool spans when no model
    # call records a message; the same trace with its calls derived first has the same gap.
    gap = content_gap(trace)
    derived = trace.model_copy()
    assert derived.tool_calls is not None
    assert content_gap(derived) == gap


def test_a_call_without_arguments_or_result_is_a_gap_when_no_model_call_has_messages() -> None:
    without = TraceBuilder(input="Hi").llm(None).tool("lookup_order", {}).output("Done").build()
    gap = content_gap(without)
    assert gap is not None
    assert "tool_calls" not in without.__dict__  # told from the tool spans alone
    assert (
        content_gap(
            TraceBuilder(input="Hi")
            .llm(None)
            .tool("lookup_order", {"id": 1})
            .output("Done")
            .build()
        )
        is None
    )
