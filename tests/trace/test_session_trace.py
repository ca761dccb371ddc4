"""A session's turns graded as one conversation: their calls in order, the last answer, the
first state before and the last state after."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from trailcheck.cli import run_cli
from trailcheck.importing import import_traces
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace
from trailcheck.trace.session import SESSION_TRACE_IDS_KEY, session_trace, session_traces

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"


STATUS_INPUT = "Where is order A-1001?"
FOLLOW_UP_INPUT = "Then refund it please, I'm ana@example.com"


def conversation() -> list[Trace]:
    # Pydantic AI's two_turns, run twice with one conversation id (the second run given the
    # first's messages): two traces of one session, picked by their user input.
    found: list[Trace] = []
    import_traces([REAL / "pydantic-ai-2.68.0.traces.pb"], found.append)
    by_input = {trace.input_text: trace for trace in found}
    return [by_input[STATUS_INPUT], by_input[FOLLOW_UP_INPUT]]


def test_the_turns_become_one_trace_in_order() -> None:
    first, second = conversation()
    merged = session_trace("session-ana-1", [second, first])
    assert merged.trace_id == "session-ana-1"
    assert [call.name for call in merged.tool_calls] == [
        "lookup_order",
        "verify_identity",
        "issue_refund",
    ]
    assert merged.input_text == f"{STATUS_INPUT}\n{FOLLOW_UP_INPUT}"
    assert merged.final_text == second.final_text
    assert merged.metadata[SESSION_TRACE_IDS_KEY] == [first.trace_id, second.trace_id]
    assert merged.usage is not None
    assert merged.usage.input_tokens == (80 + 120) + (160 + 200 + 240)
    assert len(merged.tree.roots) == 2


def test_state_before_is_the_first_turns_and_state_after_the_last() -> None:
    one = Trace(trace_id="t1", input="a", state_before={"n": 0}, state_after={"n": 1})
    two = Trace(trace_id="t2", input="b", state_before={"n": 1}, state_after={"n": 2})
    merged = session_trace("s", [one, two])
    assert (merged.state_before, merged.state_after) == ({"n": 0}, {"n": 2})


def test_turns_naming_different_cases_are_not_one_conversation() -> None:
    one = TraceBuilder("t1", input="a").metadata(case_id="x").build()
    two = TraceBuilder("t2", input="b").metadata(case_id="y").build()
    with pytest.raises(ValueError, match="different cases"):
        session_trace("s", [one, two])


def test_a_span_id_in_two_turns_is_refused() -> None:
    one = TraceBuilder("t1", input="a").tool("lookup_order", {}).build()
    two = TraceBuilder("t2", input="b").tool("lookup_order", {}).build()
    with pytest.raises(ValueError, match="span id 'span-000' is in traces 't1' and 't2'"):
        session_trace("s", [one, two])


def test_traces_without_a_session_stay_alone() -> None:
    alone = TraceBuilder("alone", input="hi").build()
    first, second = conversation()
    out = list(session_traces([first, alone, second]))
    assert [getattr(item, "trace_id", None) for item in out] == ["session-ana-1", "alone"]


def test_score_by_session_grades_the_conversation(tmp_path: Path) -> None:
    traces = tmp_path / "turns.jsonl"
    lines = [
        dump_trace(trace.model_copy(update={"metadata": {**trace.metadata, "case_id": "ana"}}))
        for trace in conversation()
    ]
    traces.write_bytes(b"\n".join(lines) + b"\n")
    dataset = tmp_path / "cases.yaml"
    case = {
        "id": "ana",
        "input": [
            {"role": "user", "content": STATUS_INPUT},
            {"role": "user", "content": FOLLOW_UP_INPUT},
        ],
        "expected_tools": ["lookup_order", "verify_identity", "issue_refund"],
        "tool_match": "exact",
        "review_status": "approved",
        "reviewed_by": "ana",
    }
    dataset.write_text(yaml.safe_dump({"name": "sessions", "cases": [case]}))
    # Turn by turn, neither trace made the whole conversation's calls.
    assert run_cli(["score", str(traces), "-d", str(dataset)]) == 1
    assert run_cli(["score", str(traces), "-d", str(dataset), "--by-session"]) == 0
