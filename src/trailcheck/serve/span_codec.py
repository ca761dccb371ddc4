"""A RawSpan as the opaque bytes of a pending row, and back, losslessly.

The bytes are one JSON object, ``{"version": 1, "span": {...}}``, whose ``span`` holds every
field of :class:`~trailcheck.importing.records.RawSpan` under its own name (events and links as
objects of their fields). Decoding validates strictly: a field of the wrong type is an error,
never coerced, so a damaged row is reported rather than turned into a different span. The OTLP
decoders already refuse what JSON cannot hold (non-finite doubles, integers beyond 64 bits), so
what they yield comes back equal.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from trailcheck.errors import RecordError
from trailcheck.importing.records import RawSpan, validation_record_error
from trailcheck.trace.record import Record

__all__ = ["CODEC_VERSION", "decode_span", "encode_span"]

CODEC_VERSION: Final = 1


class _Envelope(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    version: Literal[1]
    span: RawSpan


def _model_fields(value: object) -> Any:
    if isinstance(value, BaseModel | Record):
        return value.model_dump()
    raise TypeError(f"cannot encode a {type(value).__name__} in a span payload")


def encode_span(span: RawSpan) -> bytes:
    """The payload of ``span``; RecordError naming the span when a value has no JSON form."""
    try:
        return orjson.dumps({"version": CODEC_VERSION, "span": span}, default=_model_fields)
    except orjson.JSONEncodeError as error:
        raise RecordError(
            f"cannot keep the span as JSON: {error}", source=span.source, span_id=span.span_id
        ) from None


def decode_span(payload: bytes) -> RawSpan:
    """The RawSpan a payload of :func:`encode_span` holds; RecordError naming the field when
    the payload is not one."""
    try:
        return _Envelope.model_validate_json(payload).span
    except ValidationError as error:
        problem = validation_record_error(error)
        raise RecordError(
            f"not a pending span payload of codec version {CODEC_VERSION}: {problem.message}",
            field=problem.field,
        ) from None
