"""The OTLP/gRPC receiver: ``TraceService/Export`` and ``LogsService/Export`` on a gRPC server
beside the HTTP endpoints, so an OpenTelemetry Collector's default ``otlp`` exporter, or any
SDK's gRPC exporter, can send spans and GenAI log records to trailcheck.

Each means what its ``POST /v1/traces`` or ``POST /v1/logs`` means, in gRPC's terms, over the
same :class:`~trailcheck.serve.intake.Intake` and decoders (:mod:`trailcheck.serve.receive`):

- with a token, every call carries ``authorization: Bearer <token>`` metadata, or it is
  UNAUTHENTICATED; the read-only token is PERMISSION_DENIED (every call here writes);
- a message over ``max_message_bytes`` (gRPC's max receive message length, which it applies to
  the message after decompression) is RESOURCE_EXHAUSTED, refused by gRPC before it is read;
- a call is admitted by the :class:`~trailcheck.serve.admission.Admission` the HTTP app shares
  before its message is read, reserving ``max_message_bytes`` until the message is in (gRPC
  tells its size only then), or refused with UNAVAILABLE, which exporters retry; one whose
  message is not whole within the body timeout is cancelled (the client sees CANCELLED). Each
  handler thread serves one call, and gRPC refuses calls beyond them with RESOURCE_EXHAUSTED,
  so none waits unadmitted;
- a bad payload, a bad span, a span id twice or an unreadable GenAI log record is
  INVALID_ARGUMENT with the HTTP message, naming the span or record and field; a store that
  fails is UNAVAILABLE, which exporters retry;
- otherwise the spans (log records) are durable before the ``ExportTraceServiceResponse``
  (``ExportLogsServiceResponse``) is sent, with ``partial_success`` for late ones and
  conflicting versions of spans received before. A refused call stores nothing.

The request reaches the handler as the bytes received, not parsed by gRPC: the generated
``add_TraceServiceServicer_to_server`` would parse it with ``FromString`` first, so a payload
that is not protobuf would be an INTERNAL "Exception deserializing request" naming nothing, and
every request would be parsed twice. gzip (and deflate) are undone by gRPC. The handler is
client-streaming (the same call on the wire as a unary one), so that it runs, and the call is
admitted and watched, before the message arrives; it takes exactly one message.

Each OTLP signal is one :class:`OtlpService`: its gRPC service name and a function from request
bytes to response bytes, :func:`trace_service` and :func:`logs_service`, served together as
``grpc_receiver([trace_service(intake), logs_service(intake)], ...)`` with token and size checks
shared. The receiver does not sweep: the HTTP app that runs beside it does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass
from typing import Any, Final

import grpc
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from trailcheck.errors import UsageError
from trailcheck.serve.admission import Admission, Upload
from trailcheck.serve.intake import Intake
from trailcheck.serve.receive import logs_response, receive_logs, receive_traces, trace_response
from trailcheck.serve.refusal import BAD_REQUEST, RequestRefused
from trailcheck.serve.security import Role, Tokens, check_bind

__all__ = [
    "GRPC_LOGS_SOURCE",
    "GRPC_TRACE_SOURCE",
    "GrpcReceiver",
    "OtlpService",
    "grpc_receiver",
    "logs_service",
    "trace_service",
]

# Every OTLP collector service has the one unary method Export.
_EXPORT: Final = "Export"
_TRACE_SERVICE: Final[str] = trace_service_pb2.DESCRIPTOR.services_by_name["TraceService"].full_name
_LOGS_SERVICE: Final[str] = logs_service_pb2.DESCRIPTOR.services_by_name["LogsService"].full_name
# What errors name as the source of a span, or log record, received over gRPC.
GRPC_TRACE_SOURCE: Final = f"/{_TRACE_SERVICE}/{_EXPORT}"
GRPC_LOGS_SOURCE: Final = f"/{_LOGS_SERVICE}/{_EXPORT}"
# Handler threads beyond the uploads admitted at once, which answer the calls over the cap.
_SPARE_WORKERS: Final = 8
_STOP_GRACE_S: Final = 5.0
_STATUS_CODES: Final = {code.value[0]: code for code in grpc.StatusCode}

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class OtlpService:
    """One OTLP signal's gRPC service: its full name (``opentelemetry.proto.collector...``) and
    its Export, from the request's bytes to the response's, raising RequestRefused."""

    name: str
    export: Callable[[bytes], bytes]


def trace_service(intake: Intake) -> OtlpService:
    """``TraceService/Export`` into ``intake``."""

    def export(payload: bytes) -> bytes:
        accepted = receive_traces(intake, payload, "protobuf", GRPC_TRACE_SOURCE)
        return bytes(trace_response(accepted).SerializeToString())

    return OtlpService(_TRACE_SERVICE, export)


def logs_service(intake: Intake) -> OtlpService:
    """``LogsService/Export`` into ``intake``: the GenAI log records, joined to their spans
    when the trace is completed."""

    def export(payload: bytes) -> bytes:
        accepted = receive_logs(intake, payload, "protobuf", GRPC_LOGS_SOURCE)
        return bytes(logs_response(accepted).SerializeToString())

    return OtlpService(_LOGS_SERVICE, export)


@dataclass(frozen=True)
class GrpcReceiver:
    """A gRPC server bound to ``host:port`` (``port`` as bound: the OS's pick for 0), not yet
    started."""

    server: grpc.Server
    host: str
    port: int
    _workers: futures.ThreadPoolExecutor

    @property
    def address(self) -> str:
        """``host:port`` as a gRPC client names it (``[::1]:4317`` for IPv6)."""
        return f"{_bracketed(self.host)}:{self.port}"

    def start(self) -> None:
        self.server.start()

    def stop(self, grace_s: float = _STOP_GRACE_S) -> None:
        """Stop taking calls and wait up to ``grace_s`` for those in flight to finish."""
        self.server.stop(grace_s).wait()
        self._workers.shutdown(wait=True)


def grpc_receiver(
    services: Sequence[OtlpService],
    *,
    host: str,
    port: int,
    token: str | None,
    max_message_bytes: int,
    admission: Admission | None = None,
    read_token: str | None = None,
) -> GrpcReceiver:
    """A receiver for ``services`` bound to ``host:port``; UsageError for a non-loopback
    ``host`` without a token (before any socket is opened) or an address it cannot bind.
    ``admission`` is the one the HTTP app beside it uses (``app.state.admission``); its watch
    runs in that app (default: one of its own, which nothing watches). Every call is an export,
    so it needs the read-write ``token``; a call with ``read_token`` is PERMISSION_DENIED."""
    check_bind(host, token, read_token=read_token)
    tokens = Tokens(token, read_token)
    if max_message_bytes < 1:
        raise ValueError(f"max_message_bytes must be at least 1, got {max_message_bytes}")
    admission = admission or Admission()
    admission.limits.check_body_limit(max_message_bytes)
    threads = admission.limits.max_uploads + _SPARE_WORKERS
    workers = futures.ThreadPoolExecutor(threads, thread_name_prefix="trailcheck-grpc")
    options = [
        ("grpc.max_receive_message_length", max_message_bytes),
        # A port another server holds is an error, not silently shared between the two.
        ("grpc.so_reuseport", 0),
    ]
    server = grpc.server(workers, options=options, maximum_concurrent_rpcs=threads)
    for service in services:
        handler = _export_handler(service, tokens, admission, max_message_bytes)
        server.add_generic_rpc_handlers(
            [grpc.method_handlers_generic_handler(service.name, {_EXPORT: handler})]
        )
    address = f"{_bracketed(host)}:{port}"
    try:
        bound = server.add_insecure_port(address)
    except RuntimeError:
        bound = 0
    if not bound:
        workers.shutdown(wait=False)
        raise UsageError(
            f"cannot listen for OTLP/gRPC on {address}: the port is taken or the address is"
            " not this machine's; choose another --grpc-port, or --no-grpc"
        )
    return GrpcReceiver(server, host, bound, workers)


def _export_handler(
    service: OtlpService, tokens: Tokens, admission: Admission, max_message_bytes: int
) -> grpc.RpcMethodHandler[Any, Any]:
    """A handler taking one message of bytes and answering bytes, admitted before the message
    is read; a refusal aborts with its gRPC code; a call cancelled before its message is whole
    (by the watch or the client) is one warning line."""
    source = f"/{service.name}/{_EXPORT}"

    def handle(requests: Iterator[bytes], context: grpc.ServicerContext) -> bytes:
        try:
            tokens.require(_authorization(context), Role.WRITE)
            upload = admission.admit(
                context.peer(), max_message_bytes, lambda: _cancel(context), counts_bytes=False
            )
            try:
                payload = _one_message(requests, source, upload, context)
                if payload is None:
                    return b""  # never sent: the call is over
                admission.reserve(upload, len(payload))
                admission.received_whole(upload)
                return service.export(payload)
            finally:
                admission.release(upload)
        except RequestRefused as refusal:
            context.abort(_STATUS_CODES[refusal.rpc_code], refusal.message)

    return grpc.stream_unary_rpc_method_handler(handle)


def _cancel(context: grpc.ServicerContext) -> None:
    context.cancel()


def _one_message(
    requests: Iterator[bytes], source: str, upload: Upload, context: grpc.ServicerContext
) -> bytes | None:
    """The call's one request message; RequestRefused (INVALID_ARGUMENT) for none or more;
    None, logged in one line, when the call was cancelled before it was whole (by the watch or
    by the client).

    A cancelled call may end the request stream as a client that sent nothing does, before
    gRPC marks the call cancelled (its receive ends before its close is seen): a call the watch
    cut off is known by its reason, set before it was cancelled, and one the client cancelled
    by the call being no longer active, when gRPC has seen it by then."""
    try:
        payload = next(requests, None)
        more = payload is not None and next(requests, None) is not None
    except grpc.RpcError:
        payload, more = None, False
    if payload is None and (upload.cut_reason is not None or not context.is_active()):
        why = f"cut off: {upload.cut_reason}" if upload.cut_reason else "cancelled by the client"
        logger.warning(
            "%s from %s: the call was %s before its message was whole; nothing was stored",
            source,
            upload.peer,
            why,
        )
        return None
    if payload is None or more:
        count = "none" if payload is None else "more than one"
        raise RequestRefused(
            BAD_REQUEST, f"an Export call carries one request message, not {count}"
        )
    return payload


def _authorization(context: grpc.ServicerContext) -> str | None:
    """The ``authorization`` metadata (gRPC lowercases keys), if the call has one."""
    for key, value in context.invocation_metadata():
        if key == "authorization" and isinstance(value, str):
            return value
    return None


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
