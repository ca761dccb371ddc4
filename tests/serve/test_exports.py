"""The public surface of trailcheck.serve changes only on purpose."""

from __future__ import annotations

import trailcheck.serve


def test_serve_exports() -> None:
    assert sorted(trailcheck.serve.__all__) == [
        "Accepted",
        "DEFAULT_IDLE_TIMEOUT_S",
        "DEFAULT_MAX_BODY_BYTES",
        "DEFAULT_SETTLE_S",
        "DEFAULT_SWEEP_INTERVAL_S",
        "GrpcReceiver",
        "HeldTrace",
        "Intake",
        "OtlpService",
        "PendingSpanStore",
        "SweepResult",
        "TOKEN_ENV",
        "check_bind",
        "create_app",
        "decode_log_event",
        "decode_span",
        "encode_log_event",
        "encode_span",
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
    assert all(hasattr(trailcheck.serve, name) for name in trailcheck.serve.__all__)
