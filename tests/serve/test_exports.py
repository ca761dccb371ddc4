"""The public surface of trailcheck.serve changes only on purpose."""

from __future__ import annotations

import trailcheck.serve


def test_serve_exports() -> None:
    assert sorted(trailcheck.serve.__all__) == [
        "Accepted",
        "DEFAULT_IDLE_TIMEOUT_S",
        "DEFAULT_MAX_BODY_BYTES",
        "DEFAULT_SWEEP_INTERVAL_S",
        "GrpcReceiver",
        "Intake",
        "OtlpService",
        "PendingSpanStore",
        "SweepResult",
        "TOKEN_ENV",
        "check_bind",
        "create_app",
        "decode_span",
        "encode_span",
        "grpc_receiver",
        "ingest_server",
        "is_loopback",
        "pending_span",
        "serve_forever",
        "sweep_pending",
        "trace_service",
    ]
    assert all(hasattr(trailcheck.serve, name) for name in trailcheck.serve.__all__)
