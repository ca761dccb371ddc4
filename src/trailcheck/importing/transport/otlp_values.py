"""OTLP field values, decoded the same way from OTLP/JSON and from OTLP protobuf.

An ``AnyValue`` becomes a plain Python value: text, bool, int, float, a list (``arrayValue``), a
dict (``kvlistValue``), base64 text (``bytesValue``) or ``None`` (no variant set). A ``KeyValue``
list becomes a dict. Status codes become trailcheck's names, span kinds their lowercase
OpenTelemetry names; trace and span ids are :mod:`~trailcheck.importing.transport.otlp_ids`'
business.
:class:`SpanOrigin` is the resource and instrumentation scope a span was recorded under.

The two encodings differ only in how an AnyValue spells its variant and scalars (JSON writes
64-bit integers as decimal strings and bytes as base64; protobuf has them typed). Each encoding is
a :class:`ValueSyntax`; the rules both share (one variant at most, unique non-empty keys, finite
doubles, a depth limit) live once, in :func:`decode_any_value` and :func:`decode_key_values`.

Errors are :class:`~trailcheck.errors.RecordError` with ``field`` set to the path of the value
(``resourceSpans[0].scopeSpans[0].spans[3].attributes[2].value``); the span decoders add the
source, line and span id.

OTLP/JSON spells field names in lowerCamelCase; a snake_case key (``scope_spans``, what
protobuf-to-JSON tools write when told to keep proto field names) is an error wherever it
appears, since ignoring it as an unknown field would silently drop what it holds.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from trailcheck.errors import RecordError
from trailcheck.importing.records import OtelSpanKind, RawSpan
from trailcheck.trace import StatusCode, semconv
from trailcheck.trace.limits import INT64_MAX, INT64_MIN

UINT64_MAX: Final = 2**64 - 1
UINT32_MAX: Final = 2**32 - 1
TRACE_ID_BYTES: Final = 16
SPAN_ID_BYTES: Final = 8
# Far beyond any real attribute, and well inside Python's recursion limit.
MAX_DEPTH: Final = 64

# lowerCamelCase, as OTLP/JSON spells them; protobuf's snake_case names map onto these.
VARIANTS: Final = (
    "stringValue",
    "boolValue",
    "intValue",
    "doubleValue",
    "arrayValue",
    "kvlistValue",
    "bytesValue",
    "stringValueStrindex",
)
_PROTO_VARIANTS: Final = {re.sub(r"[A-Z]", lambda m: "_" + m[0].lower(), v): v for v in VARIANTS}

_STATUS_CODES: Final[dict[int | str, StatusCode]] = {
    0: "unset",
    1: "ok",
    2: "error",
    "STATUS_CODE_UNSET": "unset",
    "STATUS_CODE_OK": "ok",
    "STATUS_CODE_ERROR": "error",
}
_SPAN_KINDS: Final[dict[int | str, OtelSpanKind | None]] = {
    0: None,
    1: semconv.OTEL_SPAN_KIND_INTERNAL,
    2: semconv.OTEL_SPAN_KIND_SERVER,
    3: semconv.OTEL_SPAN_KIND_CLIENT,
    4: semconv.OTEL_SPAN_KIND_PRODUCER,
    5: semconv.OTEL_SPAN_KIND_CONSUMER,
    "SPAN_KIND_UNSPECIFIED": None,
    "SPAN_KIND_INTERNAL": semconv.OTEL_SPAN_KIND_INTERNAL,
    "SPAN_KIND_SERVER": semconv.OTEL_SPAN_KIND_SERVER,
    "SPAN_KIND_CLIENT": semconv.OTEL_SPAN_KIND_CLIENT,
    "SPAN_KIND_PRODUCER": semconv.OTEL_SPAN_KIND_PRODUCER,
    "SPAN_KIND_CONSUMER": semconv.OTEL_SPAN_KIND_CONSUMER,
}
_SNAKE_CASE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")
_DECIMAL = re.compile(r"-?[0-9]+")
_JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_NON_FINITE: Final = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def field_error(path: str, message: str) -> RecordError:
    """A RecordError about the value at ``path``; the span decoder adds source, line and span."""
    return RecordError(message, field=path)


def shown(value: object) -> str:
    """``repr`` of a bad value, cut short so one huge attribute cannot flood the message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class ValueSyntax(Protocol):
    """How one encoding spells AnyValue and KeyValue. ``path`` is for errors only."""

    def variant(self, value: Any, path: str) -> tuple[str, Any] | None:
        """The set variant as (lowerCamelCase name, payload); ``None`` when none is set."""

    def values(self, payload: Any, path: str) -> Sequence[Any]:
        """The ``values`` of an arrayValue (AnyValues) or kvlistValue (KeyValues) payload."""

    def key_value(self, item: Any, path: str) -> tuple[str, Any]:
        """The key and the AnyValue (``None`` when absent) of one KeyValue."""

    def scalar(self, name: str, payload: Any, path: str) -> str | bool | int | float | bytes:
        """A scalar variant's payload as its Python type (int64 range already checked)."""


def decode_any_value(syntax: ValueSyntax, value: Any, path: str, depth: int = 0) -> Any:
    """The plain Python value of one AnyValue."""
    if depth > MAX_DEPTH:
        raise field_error(path, f"values nested deeper than {MAX_DEPTH} levels")
    found = syntax.variant(value, path)
    if found is None:
        return None
    name, payload = found
    if name == "arrayValue":
        items = syntax.values(payload, f"{path}.arrayValue")
        return [
            decode_any_value(syntax, item, f"{path}.arrayValue.values[{i}]", depth + 1)
            for i, item in enumerate(items)
        ]
    if name == "kvlistValue":
        items = syntax.values(payload, f"{path}.kvlistValue")
        return decode_key_values(syntax, items, f"{path}.kvlistValue.values", depth + 1)
    if name == "stringValueStrindex":
        # Only profiles carry the string table this index points into; a trace cannot resolve it.
        raise field_error(path, "stringValueStrindex refers to a string table traces do not have")
    scalar = syntax.scalar(name, payload, path)
    if isinstance(scalar, bytes):
        return base64.b64encode(scalar).decode("ascii")
    if isinstance(scalar, float) and not math.isfinite(scalar):
        # trailcheck stores traces as JSON, which has no NaN or infinity: it could not keep it.
        raise field_error(path, f"doubleValue {scalar!r} is not finite and cannot be stored")
    return scalar


def decode_key_values(
    syntax: ValueSyntax, items: Sequence[Any], path: str, depth: int = 0
) -> dict[str, Any]:
    """A KeyValue list as a dict. Keys must be non-empty and unique: a duplicate would be lost."""
    decoded: dict[str, Any] = {}
    for i, item in enumerate(items):
        item_path = f"{path}[{i}]"
        key, value = syntax.key_value(item, item_path)
        if not key:
            raise field_error(f"{item_path}.key", "an attribute needs a non-empty key")
        if key in decoded:
            raise field_error(f"{item_path}.key", f"duplicate key {shown(key)}")
        decoded[key] = (
            None if value is None else decode_any_value(syntax, value, f"{item_path}.value", depth)
        )
    return decoded


def storable_time(time_ns: int, path: str) -> int:
    """``time_ns``, an OTLP time (unsigned 64-bit nanoseconds), when trailcheck can keep it: at
    most ``INT64_MAX`` (in the year 2262), since the store's integers are signed 64-bit on
    both backends (:mod:`trailcheck.trace.limits`). A later one is refused here, naming the
    field, so it never reaches the store."""
    if time_ns > INT64_MAX:
        raise field_error(
            path,
            f"{time_ns} is later than trailcheck can store: OTLP times are unsigned 64-bit,"
            f" the store's signed 64-bit, at most {INT64_MAX} (2^63-1 ns, in the year 2262)",
        )
    return time_ns


def span_times(start_ns: int, end_ns: int, path: str) -> tuple[int, int | None]:
    """Start and end as a RawSpan holds them. 0 is protobuf's "not set" (and what an omitted JSON
    field means): a span without a start cannot be placed in time, one without an end is open.
    Either beyond what the store holds is refused (:func:`storable_time`), and so is an end
    before the start, naming the file's field rather than the model's."""
    if start_ns == 0:
        raise field_error(f"{path}.startTimeUnixNano", "the span has no start time")
    storable_time(start_ns, f"{path}.startTimeUnixNano")
    end = storable_time(end_ns, f"{path}.endTimeUnixNano") or None
    if end is not None and end < start_ns:
        raise field_error(
            f"{path}.endTimeUnixNano", f"the span ends ({end}) before it starts ({start_ns})"
        )
    return start_ns, end


def status_code(code: object, path: str) -> StatusCode:
    """0/1/2 or STATUS_CODE_UNSET/OK/ERROR as ``unset``/``ok``/``error``."""
    if isinstance(code, int | str) and not isinstance(code, bool) and code in _STATUS_CODES:
        return _STATUS_CODES[code]
    raise field_error(path, f"must be 0, 1, 2 or STATUS_CODE_UNSET/OK/ERROR, got {shown(code)}")


def otel_span_kind(code: object, path: str) -> OtelSpanKind | None:
    """0-5 or SPAN_KIND_UNSPECIFIED/INTERNAL/... as ``None`` (unspecified), ``internal``, ..."""
    if isinstance(code, int | str) and not isinstance(code, bool) and code in _SPAN_KINDS:
        return _SPAN_KINDS[code]
    raise field_error(path, f"must be 0 to 5 or SPAN_KIND_INTERNAL, ..., got {shown(code)}")


@dataclass(frozen=True, slots=True)
class SpanOrigin:
    """The resource and instrumentation scope spans were recorded under, as RawSpan holds them."""

    resource: dict[str, Any] = field(default_factory=dict)
    resource_dropped_attributes_count: int = 0
    resource_schema_url: str | None = None
    scope_name: str | None = None
    scope_version: str | None = None
    scope_attributes: dict[str, Any] = field(default_factory=dict)
    scope_dropped_attributes_count: int = 0
    scope_schema_url: str | None = None

    def stamp(self, raw: RawSpan) -> RawSpan:
        """``raw``, given this origin (its own copies of the dicts)."""
        raw.resource = dict(self.resource)
        raw.resource_dropped_attributes_count = self.resource_dropped_attributes_count
        raw.resource_schema_url = self.resource_schema_url
        raw.scope_name = self.scope_name
        raw.scope_version = self.scope_version
        raw.scope_attributes = dict(self.scope_attributes)
        raw.scope_dropped_attributes_count = self.scope_dropped_attributes_count
        raw.scope_schema_url = self.scope_schema_url
        return raw


def lower_camel(name: str) -> str:
    """A protobuf field name as OTLP/JSON spells it: ``scope_spans`` as ``scopeSpans``."""
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def json_integer(value: object, path: str, *, name: str, minimum: int, maximum: int) -> int:
    """A 64-bit integer from JSON: a number, or a decimal string as the JSON mapping writes it."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _DECIMAL.fullmatch(value):
        number = int(value)
    else:
        raise field_error(
            path, f"{name} must be an integer or a decimal string, got {shown(value)}"
        )
    if not minimum <= number <= maximum:
        raise field_error(path, f"{name} {number} is out of range [{minimum}, {maximum}]")
    return number


def json_object(value: object, path: str) -> dict[str, Any]:
    """``value`` when it is a JSON object (an OTLP message) without snake_case keys; ``path``
    is the object's, empty for the document itself."""
    if not isinstance(value, dict):
        raise field_error(path or "(document)", f"must be an object, got {type(value).__name__}")
    for key in value:
        if _SNAKE_CASE.fullmatch(key):
            raise field_error(
                f"{path}.{key}" if path else key,
                "is a protobuf field name; OTLP/JSON spells field names in lowerCamelCase"
                f" ({lower_camel(key)!r})",
            )
    return value


def json_list(value: object, path: str) -> list[Any]:
    """``value`` when it is a JSON array; ``None`` (omitted) is the empty list."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise field_error(path, f"must be an array, got {type(value).__name__}")
    return value


class JsonSyntax:
    """AnyValue as OTLP/JSON writes it (``{"intValue": "42"}``)."""

    def variant(self, value: Any, path: str) -> tuple[str, Any] | None:
        obj = json_object(value, path)
        present = [name for name in VARIANTS if name in obj]
        if len(present) > 1:
            raise field_error(path, f"an AnyValue holds one variant, found {', '.join(present)}")
        if present:
            return present[0], obj[present[0]]
        if obj:
            # Unknown fields are to be ignored, but ignoring these would turn a value into null.
            keys = ", ".join(shown(key) for key in obj)
            raise field_error(path, f"no AnyValue variant (stringValue, intValue, ...): {keys}")
        return None

    def values(self, payload: Any, path: str) -> Sequence[Any]:
        return json_list(json_object(payload, path).get("values"), f"{path}.values")

    def key_value(self, item: Any, path: str) -> tuple[str, Any]:
        obj = json_object(item, path)
        key = obj.get("key", "")
        if not isinstance(key, str):
            raise field_error(f"{path}.key", f"must be a string, got {type(key).__name__}")
        return key, obj.get("value")

    def scalar(self, name: str, payload: Any, path: str) -> str | bool | int | float | bytes:
        if name == "intValue":
            return json_integer(payload, path, name=name, minimum=INT64_MIN, maximum=INT64_MAX)
        if name == "doubleValue":
            return _json_double(payload, path)
        if name == "bytesValue":
            return _json_bytes(payload, path)
        expected = str if name == "stringValue" else bool
        if not isinstance(payload, expected):
            raise field_error(path, f"{name} must be a {expected.__name__}, got {shown(payload)}")
        return payload


def _json_double(payload: object, path: str) -> float:
    if isinstance(payload, int | float) and not isinstance(payload, bool):
        return float(payload)
    # The protobuf JSON mapping also allows a double as a string, NaN and infinities included.
    if isinstance(payload, str):
        if payload in _NON_FINITE:
            return _NON_FINITE[payload]
        if _JSON_NUMBER.fullmatch(payload):
            return float(payload)
    raise field_error(path, f"doubleValue must be a number, got {shown(payload)}")


def _json_bytes(payload: object, path: str) -> bytes:
    if isinstance(payload, str) and _BASE64.fullmatch(payload):
        try:
            return decode_base64(payload)
        except binascii.Error as error:
            raise field_error(path, f"bytesValue is not valid base64: {error}") from None
    raise field_error(path, f"bytesValue must be base64 text, got {shown(payload)}")


def decode_base64(text: str) -> bytes:
    """Base64 text as the protobuf JSON mapping accepts it: standard or URL-safe, with or without
    padding. ``binascii.Error`` when it is not base64."""
    standard = text.rstrip("=").replace("-", "+").replace("_", "/")
    return base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)


class ProtoSyntax:
    """AnyValue as the generated protobuf classes hold it (a ``oneof value``)."""

    def variant(self, value: Any, path: str) -> tuple[str, Any] | None:
        name = value.WhichOneof("value")
        if name is None:
            return None
        if name not in _PROTO_VARIANTS:
            raise field_error(path, f"unsupported AnyValue variant {name!r}")
        return _PROTO_VARIANTS[name], getattr(value, name)

    def values(self, payload: Any, path: str) -> Sequence[Any]:
        return list(payload.values)

    def key_value(self, item: Any, path: str) -> tuple[str, Any]:
        return str(item.key), item.value if item.HasField("value") else None

    def scalar(self, name: str, payload: Any, path: str) -> str | bool | int | float | bytes:
        if not isinstance(payload, str | bool | int | float | bytes):
            raise field_error(path, f"{name} has an unexpected type {type(payload).__name__}")
        return payload


JSON_SYNTAX: Final = JsonSyntax()
PROTO_SYNTAX: Final = ProtoSyntax()
