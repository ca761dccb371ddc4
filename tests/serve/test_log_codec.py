"""The pending log record codec: every GenAI log record the decoders yield comes back equal,
and its key tells a repeat from another record."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.serve.otlp_bodies import REAL, real_body
from trailcheck.errors import RecordError
from trailcheck.importing.records import LogEvent
from trailcheck.importing.transport.otlp_logs import decode_otlp_logs_proto
from trailcheck.serve import decode_log_event, encode_log_event
from trailcheck.serve.log_codec import record_keys
from trailcheck.trace import SpanEvent

_INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
_SCALARS = st.none() | st.booleans() | _INT64 | st.floats(allow_nan=False, allow_infinity=False)
_VALUES: Any = st.recursive(
    _SCALARS | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


def _log(content: str = "hi", *, span_id: str = "d1d2d3d4d5d6d7d8", time_ns: int = 5) -> LogEvent:
    event = SpanEvent(
        name="gen_ai.user.message",
        time_ns=time_ns,
        attributes={"otel.log.body": {"content": content}},
    )
    return LogEvent("0af7651916cd43dd8448eb211c80319c", span_id, event, "POST /v1/logs")


@pytest.mark.parametrize("name", sorted(p.name.split(".logs.")[0] for p in REAL.glob("*.logs.pb")))
def test_recorded_log_records_round_trip(name: str) -> None:
    logs = [
        i
        for i in decode_otlp_logs_proto(real_body("logs", name=name), name)
        if isinstance(i, LogEvent)
    ]
    assert logs
    for log in logs:
        assert decode_log_event(encode_log_event(log)) == log


@given(
    attributes=st.dictionaries(st.text(), _VALUES, max_size=4),
    line=st.none() | st.integers(1, 10**6),
)
def test_any_log_record_round_trips(attributes: dict[str, Any], line: int | None) -> None:
    # The latest time a trace can hold (OTLP's unsigned times beyond it are refused on receipt).
    event = SpanEvent(name="gen_ai.choice", time_ns=2**63 - 1, attributes=attributes)
    log = LogEvent("0af7651916cd43dd8448eb211c80319c", "d1d2d3d4d5d6d7d8", event, "s", line)
    assert decode_log_event(encode_log_event(log)) == log


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        (b'{"version": 2, "log": {}}', "version"),
        (b'{"version": 1, "log": {"trace_id": 7}}', "log.trace_id"),
        (b"not json", None),
    ],
)
def test_a_damaged_payload_is_an_error_not_another_record(
    payload: bytes, field: str | None
) -> None:
    with pytest.raises(RecordError, match="not a pending log record payload") as raised:
        decode_log_event(payload)
    if field is not None:
        assert raised.value.field == field


def test_keys_repeat_for_a_repeated_request_and_number_identical_copies() -> None:
    request = [_log(), _log(), _log("other"), _log(span_id="0000000000000001")]
    keys = record_keys(request)
    assert keys == record_keys(request)  # a retried export: the same keys, nothing added
    assert keys[0].endswith("-0")
    assert keys[1] == keys[0][:-1] + "1"  # the same message twice in one call: both kept
    assert len(set(keys[:3])) == 3
    assert keys[3] == keys[0]  # another span: told apart by the span id beside the key
    assert record_keys([_log(time_ns=6)]) != record_keys([_log()])  # another moment
