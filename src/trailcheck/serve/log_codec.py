"""A GenAI log record (a :class:`~trailcheck.importing.records.LogEvent`) as the opaque bytes of a
pending row, and back, losslessly; and the key that tells a repeat of a record from another.

The bytes are one JSON object, ``{"version": 1, "log": {...}}``, whose ``log`` holds every field
of the LogEvent under its own name (the event as an object of its fields). Decoding validates
strictly, as :mod:`trailcheck.serve.span_codec` does for spans: a damaged row is reported, never
turned into a different record.

A log record has no id. Its key is the SHA-256 of its event (name, time and attributes, as
canonical JSON) and which copy it is among identical records of its span in one request, so an
exporter's retry of a request repeats its keys (and adds nothing), while identical records sent
together are all kept, as ``trailcheck import`` keeps them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from trailcheck.errors import RecordError
from trailcheck.importing.records import LogEvent, validation_record_error
from trailcheck.trace.record import Record

__all__ = ["LOG_CODEC_VERSION", "decode_log_event", "encode_log_event", "record_keys"]

LOG_CODEC_VERSION: Final = 1


class _Envelope(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    version: Literal[1]
    log: LogEvent


def _model_fields(value: object) -> Any:
    if isinstance(value, BaseModel | Record):
        return value.model_dump()
    raise TypeError(f"cannot encode a {type(value).__name__} in a log record payload")


def _cannot_keep(log: LogEvent, error: orjson.JSONEncodeError) -> RecordError:
    return RecordError(
        f"cannot keep the log record of span {log.span_id!r} as JSON: {error}",
        source=log.source,
        line=log.line,
    )


def encode_log_event(log: LogEvent) -> bytes:
    """The payload of ``log``; RecordError naming its span when a value has no JSON form."""
    try:
        encoded = orjson.dumps({"version": LOG_CODEC_VERSION, "log": log}, default=_model_fields)
    except orjson.JSONEncodeError as error:
        raise _cannot_keep(log, error) from None
    # orjson's bytes keep the buffer it wrote into (4 KiB at least): held until written, a
    # record is copied into bytes of its own size.
    return memoryview(encoded).tobytes()


def decode_log_event(payload: bytes) -> LogEvent:
    """The LogEvent a payload of :func:`encode_log_event` holds; RecordError naming the field
    when the payload is not one."""
    try:
        return _Envelope.model_validate_json(payload).log
    except ValidationError as error:
        problem = validation_record_error(error)
        raise RecordError(
            f"not a pending log record payload of codec version {LOG_CODEC_VERSION}:"
            f" {problem.message}",
            field=problem.field,
        ) from None


def record_keys(logs: Sequence[LogEvent]) -> list[str]:
    """The key of each record of one request, in order: ``<sha256 of the event>-<copy>``."""
    copies: dict[tuple[str, str, str], int] = {}
    keys: list[str] = []
    for log in logs:
        try:
            content = orjson.dumps(log.event.model_dump(), option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError as error:
            raise _cannot_keep(log, error) from None
        digest = hashlib.sha256(content).hexdigest()
        copy = copies.get((log.trace_id, log.span_id, digest), 0)
        copies[(log.trace_id, log.span_id, digest)] = copy + 1
        keys.append(f"{digest}-{copy}")
    return keys
