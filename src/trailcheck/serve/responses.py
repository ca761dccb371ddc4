"""What the endpoint answers, in OTLP's form.

Success is the signal's export response (``ExportTraceServiceResponse``,
``ExportLogsServiceResponse``) in the request's encoding: an empty message (``{}`` in JSON), or
one with ``partial_success`` (``rejected_spans`` or ``rejected_log_records``, and
``error_message``) when some were refused. A refusal is the JSON form of ``google.rpc.Status``,
``{"code", "message"}``, whatever the request's encoding, so a person reading an exporter's log
can read the reason (protobuf ``Status`` would need googleapis-common-protos, which trailcheck
does not depend on).
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import Response
from fastapi.responses import JSONResponse

# protobuf ships no type stubs, and pyproject only waives them for opentelemetry.proto.*.
from google.protobuf import json_format

from trailcheck.serve.body import BodyEncoding
from trailcheck.serve.refusal import SERVICE_UNAVAILABLE, UNAUTHORIZED, RequestRefused

__all__ = ["export_response", "refusal_response"]

_PROTOBUF: Final = "application/x-protobuf"
_RETRY_AFTER_S: Final = "1"


def export_response(encoding: BodyEncoding, message: Any) -> Response:
    """The 200 answer to an accepted export: ``message``, its export response."""
    if encoding == "protobuf":
        return Response(message.SerializeToString(), media_type=_PROTOBUF)
    return JSONResponse(json_format.MessageToDict(message))


def refusal_response(refusal: RequestRefused) -> Response:
    """The error answer: the status and ``{"code": ..., "message": reason}`` (with
    ``WWW-Authenticate`` on 401, ``Retry-After`` on 503)."""
    headers: dict[str, str] = {}
    if refusal.status == UNAUTHORIZED:
        headers["WWW-Authenticate"] = "Bearer"
    if refusal.status == SERVICE_UNAVAILABLE:
        headers["Retry-After"] = _RETRY_AFTER_S
    return JSONResponse(refusal.status_body(), status_code=refusal.status, headers=headers)
