"""POST /v1/logs tells log records from spans without walking the body in Python.

The work is counted, not timed: the Python function calls that deciding a protobuf body makes
are as many for a body of 4 MB as for one of 64 KB, where a walk of its fields made one call
per field (a body of zero bytes was 3.6 s for 16 MB).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

from tests.serve.otlp_bodies import agent_span, app_log, log_record, logs_body, protobuf_body
from trailcheck.serve.log_export import DecodedLogs, decode_logs_export
from trailcheck.serve.refusal import RequestRefused


def python_calls(work: Callable[[], Any]) -> int:
    """How many Python functions ``work()`` calls (C functions are not counted)."""
    calls = 0

    def count(_frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal calls
        calls += event == "call"

    previous = sys.getprofile()
    sys.setprofile(count)
    try:
        work()
    finally:
        sys.setprofile(previous)
    return calls


def refused(body: bytes) -> str:
    with pytest.raises(RequestRefused) as raised:
        decode_logs_export(body, "protobuf")
    assert raised.value.status == 400
    return str(raised.value)


def decided(body: bytes) -> None:
    with contextlib.suppress(RequestRefused):
        decode_logs_export(body, "protobuf")


def length_delimited(tag: int, payload: bytes) -> bytes:
    size, length = bytearray(), len(payload)
    while length > 0x7F:
        size.append(length & 0x7F | 0x80)
        length >>= 7
    return bytes([tag, *size, length]) + payload


def nothing(fields: bytes) -> bytes:
    return fields


def in_a_resource(fields: bytes) -> bytes:
    return length_delimited(0x0A, fields)


def in_a_scope(fields: bytes) -> bytes:
    return length_delimited(0x0A, length_delimited(0x12, fields))


@pytest.mark.parametrize(
    ("field", "nest"),
    [
        pytest.param(b"\x00", nothing, id="zero bytes: not protobuf"),
        pytest.param(b"\x08\x00", nothing, id="varint fields: protobuf holding no resource"),
        pytest.param(b"\x08\x00", in_a_resource, id="a resource of varint fields, no scope"),
        pytest.param(b"\x1d" + bytes(4), in_a_scope, id="a scope of fixed32 fields, no record"),
        pytest.param(b"\x00", in_a_scope, id="a scope of zero bytes"),
    ],
)
def test_a_body_of_tiny_fields_is_decided_without_a_walk(
    field: bytes, nest: Callable[[bytes], bytes]
) -> None:
    decided(b"")  # whatever is built once is built
    small = python_calls(lambda: decided(nest(field * (64 * 1024 // len(field)))))
    large = python_calls(lambda: decided(nest(field * (4 * 1024 * 1024 // len(field)))))
    assert small == large
    assert small < 100


def test_zero_bytes_are_refused_as_not_protobuf() -> None:
    message = refused(b"\x00" * (1024 * 1024))
    assert "not an OTLP protobuf ExportLogsServiceRequest" in message


def test_fields_that_are_not_resources_are_an_empty_export() -> None:
    assert decode_logs_export(b"\x08\x00" * (1024 * 1024), "protobuf") == DecodedLogs()


def test_a_trace_export_is_still_refused_by_name() -> None:
    message = refused(protobuf_body(agent_span()))
    assert "the payload holds spans, not log records: send trace exports to /v1/traces" in message


def test_log_records_are_still_read() -> None:
    decoded = decode_logs_export(logs_body(log_record(), app_log()), "protobuf")
    assert (len(decoded.events), decoded.other) == (1, 1)


def test_a_cut_logs_body_is_refused_as_logs() -> None:
    message = refused(logs_body(log_record())[:-3])
    assert "not an OTLP protobuf ExportLogsServiceRequest" in message
