"""Telling log records from spans in protobuf exports by their first record
(:mod:`trailcheck.importing.transport.otlp_record_kind`), and ``holds_log_records`` over it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from tests.serve.otlp_bodies import agent_span, app_log, log_record, logs_body, protobuf_body
from trailcheck.importing.transport.otlp_proto import holds_log_records
from trailcheck.importing.transport.otlp_record_kind import RecordKind, first_record_kind


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes([*out, value])


def length_delimited(tag: int, payload: bytes) -> bytes:
    return bytes([tag]) + varint(len(payload)) + payload


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (logs_body(log_record(), app_log()), "log"),
        (logs_body(log_record(trace_id=None, span_id=None)), "log"),
        (protobuf_body(agent_span()), "span"),
        (b"", "none"),
        (ExportLogsServiceRequest().SerializeToString(), "none"),
        (logs_body(), "none"),
        (protobuf_body(), "none"),
        (b"\x08\x00" * 1000, "none"),
        (logs_body(log_record())[:-3], "unreadable"),
        (protobuf_body(agent_span())[:-3], "unreadable"),
        (b"\x00" * 1000, "unreadable"),
        (b"\xff\xff\xff", "unreadable"),
    ],
)
def test_the_first_record_tells(body: bytes, kind: RecordKind) -> None:
    assert first_record_kind(body) == kind


def test_the_first_record_is_found_past_resources_and_scopes_without_one() -> None:
    empty_resource = length_delimited(0x0A, b"")
    resource_of_an_empty_scope = length_delimited(0x0A, length_delimited(0x12, b""))
    span = length_delimited(0x0A, length_delimited(0x12, length_delimited(0x12, b"\x0a\x00")))
    log = length_delimited(0x0A, length_delimited(0x12, length_delimited(0x12, b"\x09" + bytes(8))))
    assert first_record_kind(empty_resource + resource_of_an_empty_scope + span + log) == "span"
    assert first_record_kind(empty_resource + log + span) == "log"


def test_a_cut_export_is_still_told_by_holds_log_records() -> None:
    # A file cut mid-write is walked up to the cut, so it is read, and refused, as what it is.
    assert holds_log_records(logs_body(log_record(), app_log())[:-3])
    assert not holds_log_records(protobuf_body(agent_span())[:-3])
    assert not holds_log_records(b"\x00" * 100)


# --- any nesting, with fields that are not the nesting's between its own ---------------------

# Fields each level of the nesting skips: a varint, a fixed64, a fixed32 and a length-delimited
# field of another number (field 1, which a request does not skip, is left out there).
_OTHER_FIELDS = st.sampled_from(
    [b"\x18\x96\x01", b"\x21" + bytes(8), b"\x2d" + bytes(4), length_delimited(0x1A, b"xyz")]
)
_RECORDS = st.one_of(
    st.binary(max_size=12).map(lambda payload: b"\x0a" + varint(len(payload)) + payload),
    st.binary(max_size=12).filter(lambda record: not record.startswith(b"\x0a")),
)


@st.composite
def _fields(draw: Any, tag: int, parts: list[bytes]) -> bytes:
    """``parts`` as fields with ``tag``, in order, with other fields drawn between them."""
    fields = [length_delimited(tag, part) for part in parts]
    for other in draw(st.lists(_OTHER_FIELDS, max_size=3)):
        fields.insert(draw(st.integers(0, len(fields))), other)
    return b"".join(fields)


@st.composite
def exports(draw: Any) -> tuple[bytes, list[bytes]]:
    """Protobuf bytes nesting resources, scopes and records, and its records in order."""
    nesting = draw(st.lists(st.lists(st.lists(_RECORDS, max_size=3), max_size=3), max_size=3))
    resources = [
        draw(_fields(0x12, [draw(_fields(0x12, records)) for records in scopes]))
        for scopes in nesting
    ]
    records = [record for scopes in nesting for records in scopes for record in records]
    return draw(_fields(0x0A, resources)), records


@given(exports())
def test_any_nesting_is_told_by_its_first_record(export: tuple[bytes, list[bytes]]) -> None:
    data, records = export
    kind = "none" if not records else "span" if records[0].startswith(b"\x0a") else "log"
    assert first_record_kind(data) == kind
    assert holds_log_records(data) == (kind == "log")
