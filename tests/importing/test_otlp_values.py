"""AnyValue and KeyValue decoding, the same from OTLP/JSON and from protobuf; status codes."""

from __future__ import annotations

import base64
import math
from typing import Any

import orjson
import pytest
from google.protobuf import json_format
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from trailcheck.errors import RecordError
from trailcheck.importing.transport.otlp_values import (
    INT64_MAX,
    INT64_MIN,
    JSON_SYNTAX,
    MAX_DEPTH,
    PROTO_SYNTAX,
    decode_any_value,
    decode_key_values,
    span_times,
    status_code,
)

# Plain values an AnyValue can carry; bytes decode to base64 text, None is the empty AnyValue.
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=INT64_MIN, max_value=INT64_MAX)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.binary(max_size=12)
)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(min_size=1, max_size=6), children, max_size=4)
    ),
    max_leaves=16,
)


def to_json(value: Any) -> dict[str, Any]:
    """``value`` as an OTLP/JSON AnyValue, written as the OTLP/JSON rules say."""
    if value is None:
        return {}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, bytes):
        return {"bytesValue": base64.b64encode(value).decode()}
    if isinstance(value, list):
        return {"arrayValue": {"values": [to_json(item) for item in value]}}
    return {"kvlistValue": {"values": [{"key": k, "value": to_json(v)} for k, v in value.items()]}}


def to_proto(value: Any) -> Any:
    """``value`` as a protobuf AnyValue."""
    if value is None:
        return AnyValue()
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, str):
        return AnyValue(string_value=value)
    if isinstance(value, bytes):
        return AnyValue(bytes_value=value)
    result = AnyValue()
    if isinstance(value, list):
        result.array_value.values.extend(to_proto(item) for item in value)
    else:
        result.kvlist_value.values.extend(
            KeyValue(key=k, value=to_proto(v)) for k, v in value.items()
        )
    return result


def expected(value: Any) -> Any:
    """What decoding gives back: the value, with bytes as base64 text."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, list):
        return [expected(item) for item in value]
    if isinstance(value, dict):
        return {k: expected(v) for k, v in value.items()}
    return value


def typed(value: Any) -> Any:
    """A form where 1, 1.0 and True differ, so equality checks the types too."""
    if isinstance(value, list):
        return ["list", [typed(item) for item in value]]
    if isinstance(value, dict):
        return ["dict", [[k, typed(v)] for k, v in value.items()]]
    return [type(value).__name__, value]


def decode_json(value: Any) -> Any:
    return decode_any_value(JSON_SYNTAX, orjson.loads(orjson.dumps(value)), "v")


@given(values)
def test_json_round_trip(value: Any) -> None:
    assert typed(decode_json(to_json(value))) == typed(expected(value))


@given(values)
def test_proto_round_trip_through_the_wire(value: Any) -> None:
    wire = to_proto(value).SerializeToString()
    decoded = decode_any_value(PROTO_SYNTAX, AnyValue.FromString(wire), "v")
    assert typed(decoded) == typed(expected(value))


@given(values)
def test_protobufs_own_json_mapping_decodes_the_same(value: Any) -> None:
    # json_format writes int64 as strings, bytes as base64 and omits nothing we read: an
    # independent writer of the same mapping.
    document = json_format.MessageToDict(to_proto(value))
    assert typed(decode_json(document)) == typed(expected(value))


@pytest.mark.parametrize(
    ("encoded", "value"),
    [
        ({"intValue": "-9223372036854775808"}, INT64_MIN),
        ({"intValue": 42}, 42),
        ({"doubleValue": 3}, 3.0),
        ({"doubleValue": "2.5"}, 2.5),
        ({"bytesValue": "-_8"}, base64.b64encode(b"\xfb\xff").decode()),  # URL-safe, unpadded
        ({"arrayValue": {}}, []),
        ({"kvlistValue": {}}, {}),
        ({"stringValue": "x", "futureField": 1}, "x"),  # unknown fields are ignored
    ],
)
def test_json_spellings_the_mapping_allows(encoded: dict[str, Any], value: Any) -> None:
    assert typed(decode_json(encoded)) == typed(value)


@pytest.mark.parametrize(
    ("encoded", "field", "message"),
    [
        ({"intValue": "12x"}, "v", "intValue must be an integer or a decimal string"),
        ({"intValue": 1.5}, "v", "intValue must be an integer"),
        ({"intValue": str(INT64_MAX + 1)}, "v", "out of range"),
        ({"boolValue": "true"}, "v", "boolValue must be a bool"),
        ({"stringValue": 5}, "v", "stringValue must be a str"),
        ({"doubleValue": "NaN"}, "v", "is not finite"),
        ({"doubleValue": "1,5"}, "v", "doubleValue must be a number"),
        ({"bytesValue": "a"}, "v", "not valid base64"),
        ({"bytesValue": "*"}, "v", "bytesValue must be base64 text"),
        ({"stringValue": "a", "intValue": "1"}, "v", "one variant, found stringValue, intValue"),
        ({"stringvalue": "a"}, "v", "no AnyValue variant"),
        ({"stringValueStrindex": 3}, "v", "string table"),
        ("text", "v", "must be an object"),
        ({"arrayValue": {"values": {}}}, "v.arrayValue.values", "must be an array"),
        (
            {"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "x"}]}},
            "v.arrayValue.values[1]",
            "intValue",
        ),
        (
            {"kvlistValue": {"values": [{"key": "a", "value": {"boolValue": 1}}]}},
            "v.kvlistValue.values[0].value",
            "boolValue",
        ),
        (
            {"kvlistValue": {"values": [{"key": "a"}, {"key": "a"}]}},
            "v.kvlistValue.values[1].key",
            "duplicate key 'a'",
        ),
    ],
)
def test_json_errors_name_the_value(encoded: Any, field: str, message: str) -> None:
    with pytest.raises(RecordError) as caught:
        decode_json(encoded)
    assert caught.value.field == field
    assert message in caught.value.message


def test_nesting_is_limited() -> None:
    value: dict[str, Any] = {"stringValue": "leaf"}
    for _ in range(MAX_DEPTH + 1):
        value = {"arrayValue": {"values": [value]}}
    with pytest.raises(RecordError, match="nested deeper"):
        decode_any_value(JSON_SYNTAX, value, "v")


def test_key_values_become_a_dict_with_keys_checked() -> None:
    items = [{"key": "a", "value": {"intValue": "1"}}, {"key": "b"}]
    assert decode_key_values(JSON_SYNTAX, items, "attributes") == {"a": 1, "b": None}
    with pytest.raises(RecordError) as caught:
        decode_key_values(JSON_SYNTAX, [{"value": {"intValue": "1"}}], "attributes")
    assert caught.value.field == "attributes[0].key"
    assert "non-empty key" in caught.value.message
    proto_items = [KeyValue(key="a", value=AnyValue(int_value=1)), KeyValue(key="a")]
    with pytest.raises(RecordError, match="duplicate key 'a'") as caught:
        decode_key_values(PROTO_SYNTAX, proto_items, "attributes")
    assert caught.value.field == "attributes[1].key"


def test_proto_scalars_and_strindex() -> None:
    assert decode_any_value(PROTO_SYNTAX, AnyValue(bytes_value=b"\x00\x01"), "v") == "AAE="
    assert decode_any_value(PROTO_SYNTAX, AnyValue(), "v") is None
    with pytest.raises(RecordError, match="is not finite"):
        decode_any_value(PROTO_SYNTAX, AnyValue(double_value=math.inf), "v")
    with pytest.raises(RecordError, match="string table"):
        decode_any_value(PROTO_SYNTAX, AnyValue(string_value_strindex=2), "v")


@pytest.mark.parametrize(
    ("code", "name"),
    [
        (0, "unset"),
        (1, "ok"),
        (2, "error"),
        ("STATUS_CODE_OK", "ok"),
        ("STATUS_CODE_ERROR", "error"),
    ],
)
def test_status_codes(code: int | str, name: str) -> None:
    assert status_code(code, "status.code") == name


@pytest.mark.parametrize("code", [3, -1, "2", "ERROR", True, None, 1.0])
def test_bad_status_codes(code: object) -> None:
    with pytest.raises(RecordError) as caught:
        status_code(code, "status.code")
    assert caught.value.field == "status.code"


def test_span_times() -> None:
    assert span_times(5, 9, "s") == (5, 9)
    assert span_times(5, 0, "s") == (5, None)
    with pytest.raises(RecordError) as caught:
        span_times(0, 9, "s")
    assert caught.value.field == "s.startTimeUnixNano"
