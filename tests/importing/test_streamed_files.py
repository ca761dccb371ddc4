"""Span-based files read one record at a time give what their bytes read whole give; a record
over the bound is refused, naming file and offset; an import of a file whose traces interleave
across its length imports what reading it whole did."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.importing.otlp_json_documents import TRACE_A, TRACE_B, document, span
from trailcheck.cli import run_cli
from trailcheck.importing import span_store
from trailcheck.importing.complete_traces import assemble_complete_traces
from trailcheck.importing.importer import import_traces
from trailcheck.importing.log_join import join_log_events
from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.importing.span_jsonl import read_span_jsonl_spans
from trailcheck.importing.transport.otlp_json import decode_otlp_json_items, read_otlp_json_items
from trailcheck.importing.transport.otlp_proto import decode_otlp_proto_items
from trailcheck.importing.transport.otlp_proto_file import read_otlp_proto_items
from trailcheck.importing.transport.record_stream import MAX_RECORD_BYTES
from trailcheck.trace import Trace

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
PROTOBUF = sorted(REAL.glob("adk-2.13.0*.pb")) + sorted(REAL.glob("langgraph-1.2.24-open*.pb"))


def _whole_and_streamed_proto(data: bytes, limit: int = MAX_RECORD_BYTES) -> tuple[list, list]:
    whole = list(decode_otlp_proto_items(data, "f.pb"))
    streamed = list(read_otlp_proto_items(io.BytesIO(data), "f.pb", limit=limit))
    return whole, streamed


@pytest.mark.parametrize("path", PROTOBUF, ids=lambda path: path.name)
def test_a_protobuf_file_read_record_by_record_gives_what_its_bytes_give(path: Path) -> None:
    whole, streamed = _whole_and_streamed_proto(path.read_bytes())
    assert streamed == whole
    assert whole


@pytest.mark.parametrize("cut", [1, 2, 7, 100, -300, -1])
def test_a_protobuf_file_that_does_not_parse_is_one_rejection_as_its_bytes_are(cut: int) -> None:
    for path in (REAL / "adk-2.13.0.traces.pb", REAL / "adk-2.13.0.logs.pb"):
        data = path.read_bytes()[:cut]
        whole, streamed = _whole_and_streamed_proto(data)
        assert streamed == whole
        (rejection,) = streamed
        assert isinstance(rejection, Rejection)
        assert rejection.message.startswith("not an OTLP protobuf Export")


def _request(*trace_ids: bytes) -> bytes:
    request = ExportTraceServiceRequest()
    for index, trace_id in enumerate(trace_ids):
        scope = request.resource_spans.add().scope_spans.add()
        scope.spans.add(
            trace_id=trace_id,
            span_id=bytes([index + 1]) * 8,
            name="invoke_agent a",
            start_time_unix_nano=1000,
            end_time_unix_nano=2000,
        )
    return bytes(request.SerializeToString())


def test_a_protobuf_record_over_the_bound_is_refused_naming_its_offset_and_the_rest_is_read() -> (
    None
):
    small, large = _request(bytes.fromhex(TRACE_A)), _request(bytes.fromhex(TRACE_B) * 1)
    padded = ExportTraceServiceRequest.FromString(large)
    padded.resource_spans[0].schema_url = "x" * 200
    data = small + padded.SerializeToString() + small
    items = list(read_otlp_proto_items(io.BytesIO(data), "big.pb", limit=150))
    refusal = items[1]
    assert isinstance(refusal, Rejection)
    assert (refusal.source, refusal.field, refusal.trace_id) == ("big.pb", "resourceSpans[1]", None)
    assert f"a record of {len(data) - 2 * len(small) - 3} bytes at byte offset {len(small)}" in (
        refusal.message
    )
    assert "is over the 150 bytes one record may hold" in refusal.message
    assert [type(item) for item in items] == [RawSpan, Rejection, RawSpan]


def test_an_otlp_json_file_over_the_bound_is_read_line_by_line_as_json_lines() -> None:
    first = document(span(trace_id=TRACE_A, span_id="a1a2a3a4a5a6a7a8"))
    second = document(span(trace_id=TRACE_B, span_id="b1b2b3b4b5b6b7b8"))
    data = b"\n".join([first, b"", b'{"resourceSpans": [{', second])
    whole = list(decode_otlp_json_items(data, "c.jsonl"))
    streamed = list(read_otlp_json_items(io.BytesIO(data), "c.jsonl", limit=len(data) - 1))
    assert streamed == whole
    assert [type(item) for item in streamed] == [RawSpan, Rejection, RawSpan]
    assert [item.line for item in streamed] == [1, 3, 4]  # type: ignore[union-attr]


def test_an_otlp_json_line_over_the_bound_is_refused_and_the_others_read() -> None:
    first = document(span(trace_id=TRACE_A, span_id="a1a2a3a4a5a6a7a8"))
    data = b"\n".join([first, document(span(trace_id=TRACE_B, name="x" * 500)), first])
    items = list(read_otlp_json_items(io.BytesIO(data), "c.jsonl", limit=len(first) + 10))
    assert [type(item) for item in items] == [RawSpan, Rejection, RawSpan]
    assert items[1].line == 2  # type: ignore[union-attr]
    refusal = items[1]
    assert isinstance(refusal, Rejection)
    assert f"a line of {len(data) - 2 * len(first) - 1} bytes at byte offset {len(first) + 1}" in (
        refusal.message
    )


def test_an_otlp_json_document_over_the_bound_is_refused_asking_for_json_lines() -> None:
    pretty = orjson.dumps(orjson.loads(document(span())), option=orjson.OPT_INDENT_2)
    data = b"\n\n" + pretty
    (refusal,) = read_otlp_json_items(io.BytesIO(data), "one.json", limit=100)
    assert isinstance(refusal, Rejection)
    assert (refusal.source, refusal.line, refusal.trace_id) == ("one.json", 3, None)
    assert f"a JSON document of {len(pretty)} bytes at byte offset 2 is over the 100 bytes" in (
        refusal.message
    )
    assert "write one document per line" in refusal.message
    (whole,) = [item for item in decode_otlp_json_items(data, "one.json")]
    assert isinstance(whole, RawSpan)  # read whole below the bound


def test_a_span_line_over_the_bound_is_refused_naming_its_line_and_offset() -> None:
    first = orjson.dumps({"trace_id": "t", "span_id": "s", "name": "n", "start_ns": 1}) + b"\n"
    data = first + b'{"trace_id": "' + b"x" * 200 + b'"}\n' + first
    items = list(read_span_jsonl_spans(io.BytesIO(data), "s.jsonl", limit=100))
    assert [type(item) for item in items] == [RawSpan, Rejection, RawSpan]
    refusal = items[1]
    assert isinstance(refusal, Rejection)
    assert (refusal.line, refusal.trace_id) == (2, None)
    assert f"a line of 217 bytes at byte offset {len(first)} is over the 100 bytes" in (
        refusal.message
    )


def _interleaved(count: int) -> bytes:
    """Span JSONL of ``count`` traces, each of a root and two children; every trace's root is in
    the first third of the file, its first child in the middle third, its second in the last."""
    lines = []
    for part, parent in (("root", None), ("child1", "root"), ("child2", "root")):
        for number in range(count):
            record = {
                "trace_id": f"trace-{number}",
                "span_id": part,
                "parent_span_id": parent,
                "name": f"{part} {number}",
                "start_ns": 100 + number,
                "end_ns": 200 + number,
                "attributes": {"n": number},
            }
            lines.append(orjson.dumps(record))
    return b"\n".join(lines) + b"\n"


def test_traces_interleaved_across_a_file_import_as_reading_it_whole_assembles_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(span_store, "SPILL_OVER_BYTES", 0)  # as a file of gigabytes: on disk
    path = tmp_path / "interleaved.jsonl"
    path.write_bytes(_interleaved(50))
    imported: list[Trace] = []
    summary = import_traces([path], imported.append)
    with path.open("rb") as stream:
        spans = list(read_span_jsonl_spans(stream, str(path)))
    in_memory = list(assemble_complete_traces(join_log_events(spans), str(path)))
    assert imported == in_memory
    assert [trace.trace_id for trace in imported] == [f"trace-{n}" for n in range(50)]
    assert {len(trace.spans) for trace in imported} == {3}
    assert (summary.spans, summary.imported, summary.rejected) == (150, 50, 0)


def test_a_record_over_the_bound_withholds_every_trace_naming_file_and_offset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real record of more than 64 MiB: a resourceSpans whose schema URL is a hole in a
    sparse file (nothing is written)."""
    small = _request(bytes.fromhex(TRACE_A))
    path = tmp_path / "huge.pb"
    schema_url = MAX_RECORD_BYTES - 4  # its length takes 4 bytes: the record is one byte over
    with path.open("wb") as stream:
        stream.write(small)
        stream.write(b"\x0a" + _varint(MAX_RECORD_BYTES + 1) + b"\x1a" + _varint(schema_url))
        stream.seek(schema_url, 1)
        stream.write(_request(bytes.fromhex(TRACE_B)))
    out = tmp_path / "out.jsonl"
    assert run_cli(["import", str(path), "-o", str(out)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert (
        f"{path}: field 'resourceSpans[1]': a record of {MAX_RECORD_BYTES + 1} bytes at byte"
        f" offset {len(small)} is over the {MAX_RECORD_BYTES} bytes (64 MiB) one record may hold,"
        " so it was not read"
    ) in err
    assert "2 traces withheld because part of the input" in err
    assert out.read_bytes() == b""
    assert run_cli(["import", str(path), "-o", str(out), "--keep-incomplete"]) == 1
    assert len(out.read_bytes().splitlines()) == 2


def _varint(value: int) -> bytes:
    encoded = bytearray()
    while value > 0x7F:
        encoded.append(value & 0x7F | 0x80)
        value >>= 7
    encoded.append(value)
    return bytes(encoded)
