"""A RawSpan as the opaque bytes of a pending row, and back, losslessly.

The bytes are one JSON object, ``{"version": 2, "span": {...}}``, whose ``span`` holds the fields
of :class:`~trailcheck.importing.records.RawSpan` that differ from their defaults, under their own
names (events and links as objects of their fields): a span of a few fields takes a few hundred
bytes, not the size of every field it leaves empty. (Version 1, written before, held every
field; it reads the same.) Decoding validates strictly: a field of the wrong type is an error,
never coerced, so a damaged row is reported rather than turned into a different span. The OTLP
decoders already refuse what JSON cannot hold (non-finite doubles, integers beyond 64 bits), so
what they yield comes back equal.

:func:`encode_span` keeps a span whole. The endpoint keeps it in two parts
(:func:`encode_span_parts`): the span's own fields, and its *origin* (the resource and
instrumentation scope it was recorded under, the same for every span of an OTLP
``ResourceSpans``), which the store holds once however many spans name it;
``decode_span(payload, origin)`` joins them again.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from trailcheck.errors import RecordError
from trailcheck.importing.records import RawSpan, validation_record_error
from trailcheck.importing.transport.otlp_values import SpanOrigin
from trailcheck.trace.record import Record

__all__ = [
    "CODEC_VERSION",
    "SpanParts",
    "content_digest",
    "decode_span",
    "encode_span",
    "encode_span_parts",
    "same_span",
]

CODEC_VERSION: Final = 2

_ORIGIN_FIELDS: Final = frozenset(field.name for field in dataclasses.fields(SpanOrigin))
# Where a field's error is named, and what every copy of a span is compared without.
_PLACE_FIELDS: Final = frozenset({"source", "line"})


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


# (name, default) of RawSpan's fields; a required field's default is MISSING, never equal.
_SPAN_FIELDS: Final = tuple((field.name, _default(field)) for field in dataclasses.fields(RawSpan))


class _Envelope(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    version: Literal[1, 2]
    span: RawSpan


class _OriginEnvelope(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    version: Literal[2]
    origin: SpanOrigin


def _model_fields(value: object) -> Any:
    if isinstance(value, Record):  # an event: its fields that differ from their defaults
        return value.model_dump(exclude_defaults=True)
    if isinstance(value, BaseModel):
        return value.model_dump()
    raise TypeError(f"cannot encode a {type(value).__name__} in a span payload")


def _fields(span: RawSpan) -> dict[str, Any]:
    """The fields of ``span`` that differ from their defaults."""
    return {
        name: value for name, default in _SPAN_FIELDS if (value := getattr(span, name)) != default
    }


def _split(span: RawSpan) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`_fields`, the span's own and its origin's apart."""
    own: dict[str, Any] = {}
    origin: dict[str, Any] = {}
    for name, default in _SPAN_FIELDS:
        value = getattr(span, name)
        if value != default:
            (origin if name in _ORIGIN_FIELDS else own)[name] = value
    return own, origin


def _dumps(span: RawSpan, document: dict[str, Any]) -> bytes:
    try:
        encoded = orjson.dumps(document, default=_model_fields)
    except orjson.JSONEncodeError as error:
        raise RecordError(
            f"cannot keep the span as JSON: {error}", source=span.source, span_id=span.span_id
        ) from None
    # orjson's bytes keep the buffer it wrote into (4 KiB at least); a pending span is held
    # until its batch is written, so it is copied into bytes of its own size.
    return memoryview(encoded).tobytes()


def encode_span(span: RawSpan) -> bytes:
    """The payload of ``span``, whole; RecordError naming the span when a value has no JSON
    form."""
    return _dumps(span, {"version": CODEC_VERSION, "span": _fields(span)})


class SpanParts:
    """:func:`encode_span_parts` for the spans of one request: an origin equal to the one
    before it (the spans of one OTLP ``ResourceSpans`` come one after another) is not encoded
    again, and its bytes are the same object."""

    def __init__(self) -> None:
        self._last: tuple[dict[str, Any], bytes] | None = None

    def encode(self, span: RawSpan) -> tuple[bytes, bytes | None]:
        own, origin = _split(span)
        payload = _dumps(span, {"version": CODEC_VERSION, "span": own})
        if not origin:
            return payload, None
        if self._last is None or self._last[0] != origin:
            self._last = origin, _dumps(span, {"version": CODEC_VERSION, "origin": origin})
        return payload, self._last[1]


def encode_span_parts(span: RawSpan) -> tuple[bytes, bytes | None]:
    """The payload of ``span`` without its origin, and its origin's (None when it has none:
    every origin field at its default)."""
    return SpanParts().encode(span)


def decode_span(payload: bytes, origin: bytes | None = None) -> RawSpan:
    """The RawSpan a payload of :func:`encode_span` holds, or, with ``origin``, the two parts
    of :func:`encode_span_parts`; RecordError naming the field when either is not one."""
    try:
        span = _Envelope.model_validate_json(payload).span
        if origin is not None:
            _OriginEnvelope.model_validate_json(origin).origin.stamp(span)
    except ValidationError as error:
        problem = validation_record_error(error)
        raise RecordError(
            f"not a pending span payload of codec version {CODEC_VERSION}: {problem.message}",
            field=problem.field,
        ) from None
    return span


def same_span(first: RawSpan, second: RawSpan) -> bool:
    """Whether two spans hold the same content: every field, but where each was read."""
    return dataclasses.replace(first, source=None, line=None) == dataclasses.replace(
        second, source=None, line=None
    )


def content_digest(span: RawSpan) -> str:
    """A digest of what :func:`same_span` compares: two versions of a span differ in it."""
    content = _fields(span)
    for name in _PLACE_FIELDS:
        content.pop(name, None)
    encoded = orjson.dumps(content, default=_model_fields, option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(encoded, digest_size=16).hexdigest()
