"""The incomplete mark: written on a trace, read back, and what a hand-written one means."""

from __future__ import annotations

from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace
from trailcheck.trace.incomplete import (
    INCOMPLETE_KEY,
    incompleteness,
    mark_incomplete,
    needs_complete_trace,
)
from trailcheck.trace.jsonl import dump_trace


def test_a_mark_keeps_the_other_metadata_and_survives_a_round_trip() -> None:
    trace = TraceBuilder("t1", input="hi").output("hello").build()
    trace = trace.model_copy(update={"metadata": {"agent_name": "shop"}})
    marked = mark_incomplete(trace, "line 7 of a.jsonl could not be read", [("a.jsonl", 7)])
    assert marked.metadata == {
        "agent_name": "shop",
        INCOMPLETE_KEY: {
            "reason": "line 7 of a.jsonl could not be read",
            "unreadable": [{"source": "a.jsonl", "line": 7}],
        },
    }
    assert incompleteness(trace) is None
    again = Trace.model_validate_json(dump_trace(marked))
    found = incompleteness(again)
    assert found is not None
    assert found.verdict_reason == (
        "incomplete trace: line 7 of a.jsonl could not be read (imported with --keep-incomplete)"
    )


def test_a_hand_written_mark_without_a_reason_still_marks_the_trace() -> None:
    trace = TraceBuilder("t1").build().model_copy(update={"metadata": {INCOMPLETE_KEY: True}})
    found = incompleteness(trace)
    assert found is not None
    assert found.reason == "marked incomplete"


def test_checkers_need_a_complete_trace_unless_they_say_otherwise() -> None:
    class Reads:
        pass

    class DoesNotNeedIt:
        needs_complete_trace = False

    assert needs_complete_trace(Reads())
    assert not needs_complete_trace(DoesNotNeedIt())
