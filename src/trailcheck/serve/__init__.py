"""The OTLP ingest endpoints, OTLP/HTTP and OTLP/gRPC: spans and GenAI log records from any
OpenTelemetry exporter into the store, held as pending until their trace is complete, then
assembled into Traces (each log record joined to its span); a trace that cannot be made or
stored is quarantined with the reason, its spans kept."""

from trailcheck.serve.app import (
    DEFAULT_IDLE_TIMEOUT_S,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_SETTLE_S,
    DEFAULT_SWEEP_INTERVAL_S,
    create_app,
)
from trailcheck.serve.claims import TraceClaims
from trailcheck.serve.grpc_receiver import (
    GrpcReceiver,
    OtlpService,
    grpc_receiver,
    logs_service,
    trace_service,
)
from trailcheck.serve.held import ConflictingSpan, HeldTrace, held_trace
from trailcheck.serve.intake import Accepted, Intake, pending_log_events, pending_span
from trailcheck.serve.log_codec import decode_log_event, encode_log_event
from trailcheck.serve.metrics import ServeCounts
from trailcheck.serve.pending import PendingSpanStore
from trailcheck.serve.security import READ_TOKEN_ENV, TOKEN_ENV, check_bind, is_loopback
from trailcheck.serve.server import ingest_server, serve_forever
from trailcheck.serve.span_codec import decode_span, encode_span, encode_span_parts
from trailcheck.serve.sweep import SweepResult, sweep_pending

__all__ = [
    "DEFAULT_IDLE_TIMEOUT_S",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_SETTLE_S",
    "DEFAULT_SWEEP_INTERVAL_S",
    "READ_TOKEN_ENV",
    "TOKEN_ENV",
    "Accepted",
    "ConflictingSpan",
    "GrpcReceiver",
    "HeldTrace",
    "Intake",
    "OtlpService",
    "PendingSpanStore",
    "ServeCounts",
    "SweepResult",
    "TraceClaims",
    "check_bind",
    "create_app",
    "decode_log_event",
    "decode_span",
    "encode_log_event",
    "encode_span",
    "encode_span_parts",
    "grpc_receiver",
    "held_trace",
    "ingest_server",
    "is_loopback",
    "logs_service",
    "pending_log_events",
    "pending_span",
    "serve_forever",
    "sweep_pending",
    "trace_service",
]
