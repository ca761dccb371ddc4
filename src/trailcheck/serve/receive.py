"""One OTLP export (traces or logs), from the request's bytes to stored rows and the answer's
message: the part the HTTP endpoint and the gRPC receiver share.

Each transport reads the request in its own way (the HTTP app checks the token, content type and
size and gunzips; gRPC does the same in its own terms) and hands the payload here. The spans, or
the GenAI log records, are decoded all or none (:func:`~trailcheck.serve.export.decode_export`,
:func:`~trailcheck.serve.log_export.decode_logs_export`) and accepted through the server's one
:class:`~trailcheck.serve.intake.Intake`, durable when this returns. A database or disk error
that stops the store from committing (the server down, a lock held past the busy timeout, the
disk full) is a retryable refusal (HTTP 503, gRPC UNAVAILABLE) rather than a bug, which
exporters would drop. Other exceptions are bugs and propagate.

The response's ``partial_success`` counts the spans (log records) refused: late ones, of a trace
already stored, and conflicting versions of spans received before (kept aside, never dropped
unseen), with the reason and the ids in ``error_message``.

Log records that are not GenAI events, or that name no span, are set aside: counted in the
server log, not in the response (``partial_success`` is for records trailcheck would keep and
could not: late ones; see docs/serve.md).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from sqlalchemy.exc import SQLAlchemyError

from trailcheck.errors import RecordError
from trailcheck.importing.records import RawSpan
from trailcheck.serve.body import BodyEncoding
from trailcheck.serve.export import EXPORT_SOURCE, export_spans
from trailcheck.serve.intake import Accepted, Intake
from trailcheck.serve.log_export import LOGS_EXPORT_SOURCE, DecodedLogs, decode_logs_export
from trailcheck.serve.refusal import BAD_REQUEST, SERVICE_UNAVAILABLE, RequestRefused

__all__ = ["logs_response", "receive_logs", "receive_traces", "trace_response"]

logger = logging.getLogger(__name__)


def receive_traces(
    intake: Intake, payload: bytes, encoding: BodyEncoding, source: str = EXPORT_SOURCE
) -> Accepted:
    """Decode an ``ExportTraceServiceRequest`` payload (uncompressed) and store its spans;
    RequestRefused, with nothing stored, when a span is bad; a 503 when the store fails (the
    batches written before it are held, and the exporter's retry of the request finds them:
    :mod:`trailcheck.serve.intake`). ``source`` is what error messages name as the origin of
    the spans."""
    read = [0]  # how many spans were read: the log line of a store that fails names it

    def spans() -> Iterator[RawSpan]:
        for span in export_spans(payload, encoding, source):
            read[0] += 1
            yield span

    return _stored(lambda: intake.accept(spans()), lambda: f"{read[0]} received span(s)", "spans")


def receive_logs(
    intake: Intake, payload: bytes, encoding: BodyEncoding, source: str = LOGS_EXPORT_SOURCE
) -> Accepted:
    """Decode an ``ExportLogsServiceRequest`` payload (uncompressed) and store its GenAI log
    records; RequestRefused, with nothing stored, when a GenAI record cannot be read or the
    store fails. The records set aside are counted in the server log."""
    decoded = decode_logs_export(payload, encoding, source)
    _log_set_aside(decoded, source)
    events = decoded.events
    what = f"{len(events)} received log record(s)"
    return _stored(lambda: intake.accept_logs(events), lambda: what, "log records")


def _stored(accept: Callable[[], Accepted], what: Callable[[], str], noun: str) -> Accepted:
    """``accept()``, with what the store raises mapped to the refusals exporters understand;
    ``what()`` names what was being stored, for the log."""
    try:
        return accept()
    except RecordError as error:  # a value with no JSON form: the sender's data, not the store
        raise RequestRefused(BAD_REQUEST, f"{error}; nothing was stored") from None
    except (SQLAlchemyError, OSError) as error:
        logger.exception("storing %s failed", what())
        raise RequestRefused(
            SERVICE_UNAVAILABLE,
            f"the store could not take the {noun} ({type(error).__name__}); nothing was"
            " stored: retry later",
        ) from error


def _log_set_aside(decoded: DecodedLogs, source: str) -> None:
    if decoded.unlinked:
        logger.warning(
            "%s: %d GenAI log record(s) name no trace and span, so they join no trace and"
            " are not kept",
            source,
            decoded.unlinked,
        )
    if decoded.other:
        logger.info(
            "%s: %d log record(s) are not GenAI events (gen_ai.*) and are not kept",
            source,
            decoded.other,
        )


def trace_response(accepted: Accepted) -> Any:
    """The ``ExportTraceServiceResponse`` of an accepted export: empty, or with
    ``partial_success`` (``rejected_spans``, ``error_message``) for the late spans and the
    conflicting versions refused."""
    message: Any = ExportTraceServiceResponse()
    if accepted.rejected:
        message.partial_success.rejected_spans = accepted.rejected
        message.partial_success.error_message = accepted.message
    return message


def logs_response(accepted: Accepted) -> Any:
    """The ``ExportLogsServiceResponse`` of an accepted export: empty, or with
    ``partial_success`` (``rejected_log_records``, ``error_message``) for the late records."""
    message: Any = ExportLogsServiceResponse()
    if accepted.rejected:
        message.partial_success.rejected_log_records = accepted.rejected
        message.partial_success.error_message = accepted.message
    return message
