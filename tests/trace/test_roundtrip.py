"""The trailcheck JSONL form of a trace loses nothing."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from hypothesis import given, settings

from tests.trace.strategies import traces
from trailcheck.importing.trailcheck_jsonl import read_trailcheck_jsonl
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import WRITE_BATCH_BYTES, dump_trace, write_lines, write_traces


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


class _CountingStream(io.BytesIO):
    writes = 0

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.writes += 1
        return super().write(data)


def test_lines_are_written_in_batches_each_with_its_newline() -> None:
    line = b"x" * (WRITE_BATCH_BYTES // 4)
    stream = _CountingStream()
    assert write_lines([line] * 9, stream) == 9
    assert stream.getvalue() == (line + b"\n") * 9
    assert stream.writes == 3  # 4 lines, 4 lines, then the last one


def test_the_lines_read_before_an_error_are_written_before_it_goes_on() -> None:
    def failing() -> Iterator[bytes]:
        yield b"{}"
        yield b"[]"
        raise OSError("the disk went away")

    stream = io.BytesIO()
    with pytest.raises(OSError, match="the disk went away"):
        write_lines(failing(), stream)
    assert stream.getvalue() == b"{}\n[]\n"
