"""The spans of one OTLP export request, all of them or none.

An export is decoded with the importing decoders (:mod:`trailcheck.importing.transport.otlp_proto`,
:mod:`trailcheck.importing.transport.otlp_json`). Any Rejection refuses the whole request with 400
and
its reason, so the sender learns which span and field were bad and nothing of the request is kept:
keeping the rest would store traces with a span missing. A span id repeated inside one request
is refused too, since the store keeps only one span per id and would silently drop the other.
"""

from __future__ import annotations

from typing import Final

from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.importing.transport.otlp_json import decode_otlp_json_spans
from trailcheck.importing.transport.otlp_proto import decode_otlp_proto_spans
from trailcheck.serve.body import BodyEncoding
from trailcheck.serve.refusal import BAD_REQUEST, RequestRefused

__all__ = ["EXPORT_SOURCE", "decode_export"]

# What errors name as the source of a span received by the endpoint.
EXPORT_SOURCE: Final = "POST /v1/traces"


def decode_export(
    body: bytes, encoding: BodyEncoding, source: str = EXPORT_SOURCE
) -> list[RawSpan]:
    """Every span of the request body; RequestRefused (400) naming the first bad span and
    field, and how many other problems there were."""
    decode = decode_otlp_proto_spans if encoding == "protobuf" else decode_otlp_json_spans
    spans: list[RawSpan] = []
    rejections: list[Rejection] = []
    for item in decode(body, source):
        if isinstance(item, Rejection):
            rejections.append(item)
        else:
            spans.append(item)
    if rejections:
        more = len(rejections) - 1
        suffix = f" (and {more} more problem(s))" if more else ""
        raise RequestRefused(BAD_REQUEST, f"{rejections[0]}{suffix}; nothing was stored")
    _refuse_repeated_ids(spans)
    return spans


def _refuse_repeated_ids(spans: list[RawSpan]) -> None:
    seen: set[tuple[str, str]] = set()
    for span in spans:
        key = (span.trace_id, span.span_id)
        if key in seen:
            raise RequestRefused(
                BAD_REQUEST,
                f"{span.source or EXPORT_SOURCE}: span {span.span_id!r} of trace"
                f" {span.trace_id!r} appears twice in one request; nothing was stored",
            )
        seen.add(key)
