"""One OTLP trace export, from the request's bytes to stored spans and the answer's message:
the part the HTTP endpoint and the gRPC receiver share.

Each transport reads the request in its own way (the HTTP app checks the token, content type and
size and gunzips; gRPC does the same in its own terms) and hands the payload here. The spans are
decoded all or none (:func:`~trailcheck.serve.export.decode_export`) and accepted through the
server's one :class:`~trailcheck.serve.intake.Intake`, durable when this returns. A database or
disk error that stops the store from committing (the server down, a lock held past the busy
timeout, the disk full) is a retryable refusal (HTTP 503, gRPC UNAVAILABLE) rather than a bug,
which exporters would drop. Other exceptions are bugs and propagate.

A receiver for another OTLP signal (logs) gets its own ``receive_*`` function and response
message beside these, over its own intake.
"""

from __future__ import annotations

import logging
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from sqlalchemy.exc import SQLAlchemyError

from trailcheck.errors import RecordError
from trailcheck.serve.body import BodyEncoding
from trailcheck.serve.export import EXPORT_SOURCE, decode_export
from trailcheck.serve.intake import Accepted, Intake
from trailcheck.serve.refusal import BAD_REQUEST, SERVICE_UNAVAILABLE, RequestRefused

__all__ = ["receive_traces", "trace_response"]

logger = logging.getLogger(__name__)


def receive_traces(
    intake: Intake, payload: bytes, encoding: BodyEncoding, source: str = EXPORT_SOURCE
) -> Accepted:
    """Decode an ``ExportTraceServiceRequest`` payload (uncompressed) and store its spans;
    RequestRefused, with nothing stored, when a span is bad or the store fails. ``source`` is
    what error messages name as the origin of the spans."""
    spans = decode_export(payload, encoding, source)
    try:
        return intake.accept(spans)
    except RecordError as error:  # a span with no JSON form: the sender's data, not the store
        raise RequestRefused(BAD_REQUEST, f"{error}; nothing was stored") from None
    except (SQLAlchemyError, OSError) as error:
        logger.exception("storing %d received span(s) failed", len(spans))
        raise RequestRefused(
            SERVICE_UNAVAILABLE,
            f"the store could not take the spans ({type(error).__name__}); nothing was"
            " stored: retry later",
        ) from error


def trace_response(accepted: Accepted) -> Any:
    """The ``ExportTraceServiceResponse`` of an accepted export: empty, or with
    ``partial_success`` (``rejected_spans``, ``error_message``) for the late spans refused."""
    message: Any = ExportTraceServiceResponse()
    if accepted.rejected:
        message.partial_success.rejected_spans = accepted.rejected
        message.partial_success.error_message = accepted.message
    return message
