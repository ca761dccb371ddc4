"""The trailcheck JSONL form of a trace loses nothing."""

from __future__ import annotations

import io

from hypothesis import given, settings

from tests.trace.strategies import traces
from trailcheck.importing.trailcheck_jsonl import read_trailcheck_jsonl
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace, write_traces


@settings(max_examples=300, deadline=None)
@given(traces())
def test_json_round_trip_is_lossless(trace: Trace) -> None:
    line = dump_trace(trace)
    again = Trace.model_validate_json(line)
    assert again == trace
    assert dump_trace(again) == line
    assert again.tool_calls == trace.tool_calls


@settings(max_examples=50, deadline=None)
@given(traces(max_spans=4), traces(max_spans=4))
def test_jsonl_file_round_trip_keeps_every_trace_in_order(first: Trace, second: Trace) -> None:
    buffer = io.BytesIO()
    assert write_traces([first, second], buffer) == 2
    buffer.seek(0)
    assert list(read_trailcheck_jsonl(buffer, "mem.jsonl")) == [first, second]
