"""One structural mutation of an OTLP protobuf export request, in protobuf's own terms: an id
of the wrong length, a time of 2^63 or 2^64-1, a token count of -2^63, a cleared field, NaN, an
attribute of another type, a duplicate attribute key, or a kvlist nested past the parser's
depth (encoded by hand, since the generated classes refuse to build it).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

NON_FINITE = (math.nan, math.inf, -math.inf)


def _records(message: Any) -> list[Any]:
    """The spans of an ExportTraceServiceRequest, or the log records of a logs request."""
    if hasattr(message, "resource_spans"):
        return [s for r in message.resource_spans for ss in r.scope_spans for s in ss.spans]
    return [x for r in message.resource_logs for sl in r.scope_logs for x in sl.log_records]


_ID_FIELDS = ("trace_id", "span_id", "parent_span_id")
_TIME_FIELDS = ("start_time_unix_nano", "end_time_unix_nano", "time_unix_nano")
_CLEARABLE = ("trace_id", "span_id", "name", "start_time_unix_nano", "end_time_unix_nano")
_LOG_CLEARABLE = ("trace_id", "span_id", "event_name", "body", "time_unix_nano")


def _any_values() -> list[Any]:
    nested = AnyValue()
    nested.array_value.values.add(int_value=1)
    kvlist = AnyValue()
    kvlist.kvlist_value.values.add(key="k", value=AnyValue(bool_value=True))
    return [
        AnyValue(),
        AnyValue(string_value="text"),
        AnyValue(int_value=12),
        AnyValue(bool_value=True),
        AnyValue(double_value=1.5),
        AnyValue(bytes_value=b"\xff\x00"),
        nested,
        kvlist,
    ]


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field, encoded by hand."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(value: int) -> bytes:
    encoded = bytearray()
    while True:
        encoded.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(encoded)


def _deep_attribute(depth: int) -> bytes:
    """A KeyValue ``fuzz.deep`` whose AnyValue nests kvlists and arrays ``depth`` deep, encoded
    by hand: the generated classes refuse to build past their own depth limit."""
    value = AnyValue(string_value="bottom").SerializeToString()
    for level in range(depth):
        if level % 2:  # AnyValue.array_value (5) holding ArrayValue.values (1)
            value = _field(5, _field(1, value))
        else:  # AnyValue.kvlist_value (6) holding KeyValueList.values (1), a KeyValue
            value = _field(6, _field(1, _field(1, b"k") + _field(2, value)))
    return _field(1, b"fuzz.deep") + _field(2, value)


def _with_deep_attribute(message: Any, index: int, depth: int) -> bytes:
    """``message`` serialized with record ``index`` moved into a resource entry of its own and
    given a deeply nested attribute (protobuf merges repeated fields of concatenated bytes)."""
    result = type(message)()
    result.CopyFrom(message)
    record = _records(result)[index]
    is_span = hasattr(record, "start_time_unix_nano")
    raw = record.SerializeToString() + _field(9 if is_span else 6, _deep_attribute(depth))
    for entry in result.resource_spans if is_span else result.resource_logs:
        for scope in entry.scope_spans if is_span else entry.scope_logs:
            held = scope.spans if is_span else scope.log_records
            if record in held:
                held.remove(record)
    # request.resource_* (1) > ResourceSpans/Logs.scope_* (2) > ScopeSpans/Logs.spans/records (2)
    return bytes(result.SerializeToString()) + _field(1, _field(2, _field(2, raw)))


@st.composite
def proto_mutation(draw: st.DrawFn, message: Any, kind: str) -> tuple[bytes, str, Any] | None:
    """``message`` mutated, serialized: (bytes, where, the value written), or None."""
    result = type(message)()
    result.CopyFrom(message)
    records = _records(result)
    if not records:
        return None
    index = draw(st.integers(0, len(records) - 1))
    record = records[index]
    where = f"{'span' if hasattr(record, 'start_time_unix_nano') else 'log record'} {index}"
    if kind == "deep":
        depth = draw(st.sampled_from((10, 60, 99, 150, 2000)))
        return _with_deep_attribute(message, index, depth), f"{where} 'fuzz.deep'", depth
    changed = _change_record(draw, record, kind)
    if changed is None:
        return None
    field, value = changed
    return bytes(result.SerializeToString()), f"{where} {field}", value


def _change_record(draw: st.DrawFn, record: Any, kind: str) -> tuple[str, Any] | None:
    """Change one span or log record in place: (the field changed, the value written)."""
    is_span = hasattr(record, "start_time_unix_nano")
    if kind == "huge_int":
        field = draw(st.sampled_from([f for f in _TIME_FIELDS if hasattr(record, f)] + ["attr"]))
        if field == "attr":
            value = draw(st.sampled_from((2**63 - 1, -(2**63), -1)))
            record.attributes.add(key="gen_ai.usage.input_tokens", value=AnyValue(int_value=value))
            return "attribute gen_ai.usage.input_tokens (added)", value
        value = draw(st.sampled_from((2**63 - 1, 2**63, 2**64 - 1, 0)))
        setattr(record, field, value)
        return field, value
    if kind == "bad_id":
        field = draw(st.sampled_from([f for f in _ID_FIELDS if hasattr(record, f)]))
        right = 16 if field == "trace_id" else 8
        size = draw(st.sampled_from([s for s in (1, 4, 7, 9, 15, 17, 32) if s != right]))
        setattr(record, field, bytes(range(1, size + 1)))
        return field, size
    if kind == "missing":
        field = draw(st.sampled_from(_CLEARABLE if is_span else _LOG_CLEARABLE))
        record.ClearField(field)
        return field, None
    if kind == "duplicate_key":
        if not record.attributes:
            return None
        first = record.attributes[draw(st.integers(0, len(record.attributes) - 1))]
        record.attributes.add(key=first.key, value=AnyValue(string_value="again"))
        return f"attribute {first.key!r} (twice)", first.key
    if kind == "nan":
        new = AnyValue(double_value=draw(st.sampled_from(NON_FINITE)))
    else:
        assert kind == "wrong_type", kind
        new = draw(st.sampled_from(_any_values()))
    if not record.attributes or draw(st.booleans()):
        record.attributes.append(KeyValue(key="fuzz.value", value=new))
        return "attribute 'fuzz.value' (added)", kind
    target = record.attributes[draw(st.integers(0, len(record.attributes) - 1))]
    target.value.CopyFrom(new)
    return f"attribute {target.key!r}", kind
