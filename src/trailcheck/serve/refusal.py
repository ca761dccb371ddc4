"""Why a request to the endpoint was not accepted: an HTTP status and a reason for the sender.

Raised by the parts of request handling (body limits, content types, decoding, the token and
its role) and answered by the HTTP app as an OTLP-style error body, ``{"code": ..., "message":
reason}`` (the JSON form of ``google.rpc.Status``), and by the gRPC receiver as that status code
and message, with nothing stored.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "BAD_REQUEST",
    "FORBIDDEN",
    "PAYLOAD_TOO_LARGE",
    "SERVICE_UNAVAILABLE",
    "UNAUTHORIZED",
    "UNSUPPORTED_MEDIA_TYPE",
    "RequestRefused",
]

BAD_REQUEST: Final = 400
UNAUTHORIZED: Final = 401
# A known token whose role does not allow the request (a read-only token sending spans).
FORBIDDEN: Final = 403
PAYLOAD_TOO_LARGE: Final = 413
UNSUPPORTED_MEDIA_TYPE: Final = 415
# The store could not take the spans: one of the codes OTLP exporters retry.
SERVICE_UNAVAILABLE: Final = 503

# The google.rpc.Code each refusal stands for, as OTLP's Status body carries it.
_RPC_CODES: Final = {
    BAD_REQUEST: 3,  # INVALID_ARGUMENT
    UNAUTHORIZED: 16,  # UNAUTHENTICATED
    FORBIDDEN: 7,  # PERMISSION_DENIED
    PAYLOAD_TOO_LARGE: 8,  # RESOURCE_EXHAUSTED
    UNSUPPORTED_MEDIA_TYPE: 3,  # INVALID_ARGUMENT
    SERVICE_UNAVAILABLE: 14,  # UNAVAILABLE
}


class RequestRefused(Exception):  # noqa: N818 (a refusal is an outcome, not an error of ours)
    """The request is refused with ``status``; ``message`` says why, for the sender."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    @property
    def rpc_code(self) -> int:
        """The ``google.rpc.Code`` of the refusal (2, UNKNOWN, for a status not listed)."""
        return _RPC_CODES.get(self.status, 2)

    def status_body(self) -> dict[str, object]:
        """The OTLP error body: google.rpc.Status as JSON."""
        return {"code": self.rpc_code, "message": self.message}
