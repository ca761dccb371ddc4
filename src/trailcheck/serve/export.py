"""The spans of one OTLP export request, all of them or none.

An export is decoded with the importing decoders (:mod:`trailcheck.importing.transport.otlp_proto`,
:mod:`trailcheck.importing.transport.otlp_json`). Any Rejection refuses the whole request with 400
and
its reason, so the sender learns which span and field were bad and nothing of the request is kept:
keeping the rest would store traces with a span missing. A span id repeated inside one request
is refused too, since the store keeps only one span per id and would silently drop the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.importing.transport.otlp_json import decode_otlp_json_spans
from trailcheck.importing.transport.otlp_proto import decode_otlp_proto_spans
from trailcheck.serve.body import BodyEncoding
from trailcheck.serve.refusal import BAD_REQUEST, RequestRefused

__all__ = ["EXPORT_SOURCE", "decode_export", "export_spans"]

# What errors name as the source of a span received by the endpoint.
EXPORT_SOURCE: Final = "POST /v1/traces"


def decode_export(
    body: bytes, encoding: BodyEncoding, source: str = EXPORT_SOURCE
) -> list[RawSpan]:
    """Every span of the request body; RequestRefused (400) naming the first bad span and
    field, and how many other problems there were."""
    return list(export_spans(body, encoding, source))


def export_spans(
    body: bytes, encoding: BodyEncoding, source: str = EXPORT_SOURCE
) -> Iterator[RawSpan]:
    """The spans of the request body, one at a time, as :func:`decode_export` reads them: once
    the last one is read it raises RequestRefused if any span was bad (or, else, if a span id
    repeats). A caller that stores nothing before it has read them all stores nothing of a
    refused request, without holding every decoded span at once."""
    decode = decode_otlp_proto_spans if encoding == "protobuf" else decode_otlp_json_spans
    rejections: list[Rejection] = []
    repeated: RawSpan | None = None
    seen: set[tuple[str, str]] = set()
    for item in decode(body, source):
        if isinstance(item, Rejection):
            rejections.append(item)
            continue
        key = (item.trace_id, item.span_id)
        if key in seen:
            repeated = repeated or item
        seen.add(key)
        if not rejections and repeated is None:  # once refused, the rest is only read
            yield item
    if rejections:
        more = len(rejections) - 1
        suffix = f" (and {more} more problem(s))" if more else ""
        raise RequestRefused(BAD_REQUEST, f"{rejections[0]}{suffix}; nothing was stored")
    if repeated is not None:
        raise RequestRefused(
            BAD_REQUEST,
            f"{repeated.source or EXPORT_SOURCE}: span {repeated.span_id!r} of trace"
            f" {repeated.trace_id!r} appears twice in one request; nothing was stored",
        )
