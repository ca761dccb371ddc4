"""The OTLP/HTTP ingest endpoints: ``POST /v1/traces`` and ``POST /v1/logs`` into the store, so
any OpenTelemetry exporter sends agent spans, and the GenAI log records that carry their
messages, straight to trailcheck.

A request to either is checked in this order, each refusal storing nothing: the bearer token
(401), the Content-Type and Content-Encoding (415), the declared and the received size (413),
gunzip within the same limit (413; 400 when it is not gzip), and the decoded spans or GenAI log
records (400 naming the span or record and field); a store that fails is a 503, which exporters
retry. Accepted spans and log records are written as pending rows, and the 200 is sent only
after the store returned. At startup the app sweeps once, completing what an earlier process
accepted, and then every ``sweep_interval_s`` seconds in the background (see
:mod:`trailcheck.serve.sweep`): a trace that fails is quarantined and the others go on, and a
sweep that fails as a whole is logged and tried again, so the background sweep never dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

from fastapi import FastAPI, Request, Response
from starlette.concurrency import run_in_threadpool

from trailcheck.serve.body import (
    BodyEncoding,
    body_encoding,
    check_declared_length,
    gunzip_capped,
    is_gzip,
    read_capped,
)
from trailcheck.serve.intake import Accepted, Intake
from trailcheck.serve.pending import PendingSpanStore
from trailcheck.serve.receive import logs_response, receive_logs, receive_traces, trace_response
from trailcheck.serve.refusal import RequestRefused
from trailcheck.serve.responses import export_response, refusal_response
from trailcheck.serve.security import check_bearer

__all__ = [
    "DEFAULT_IDLE_TIMEOUT_S",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_SETTLE_S",
    "DEFAULT_SWEEP_INTERVAL_S",
    "create_app",
]

DEFAULT_MAX_BODY_BYTES: Final = 16 * 1024 * 1024
# An agent may think for minutes between spans; a trace whose root has ended completes once
# nothing of it arrived for the settle time: an SDK's log records (flushed about every second)
# may come after the root span they belong under.
DEFAULT_IDLE_TIMEOUT_S: Final = 300.0
DEFAULT_SETTLE_S: Final = 2.0
DEFAULT_SWEEP_INTERVAL_S: Final = 1.0
_NS_PER_S: Final = 1_000_000_000

logger = logging.getLogger(__name__)


def create_app(
    store: PendingSpanStore,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
    settle_s: float = DEFAULT_SETTLE_S,
    sweep_interval_s: float | None = DEFAULT_SWEEP_INTERVAL_S,
    clock: Callable[[], int] = time.time_ns,
) -> FastAPI:
    """The ingest app over ``store``. ``clock`` gives nanoseconds since the epoch (received
    times, the settle time and the idle timeout); ``sweep_interval_s=None`` leaves sweeping
    after startup to the caller (``app.state.intake.sweep()``)."""
    if max_body_bytes < 1:
        raise ValueError(f"max_body_bytes must be at least 1, got {max_body_bytes}")
    for name, seconds in (("idle_timeout_s", idle_timeout_s), ("settle_s", settle_s)):
        if seconds < 0:
            raise ValueError(f"{name} must not be negative, got {seconds}")
    intake = Intake(
        store,
        idle_timeout_ns=round(idle_timeout_s * _NS_PER_S),
        clock=clock,
        settle_ns=round(settle_s * _NS_PER_S),
    )
    app = FastAPI(title="trailcheck OTLP/HTTP ingest", lifespan=_sweeping(intake, sweep_interval_s))
    app.state.intake = intake

    async def export(request: Request, receive: Receive, respond: Respond) -> Response:
        try:
            check_bearer(request.headers.get("authorization"), token)
            encoding = body_encoding(request.headers.get("content-type"))
            gzipped = is_gzip(request.headers.get("content-encoding"))
            check_declared_length(request.headers.get("content-length"), max_body_bytes)
            body = await read_capped(request.stream(), max_body_bytes)
            accepted = await run_in_threadpool(
                _accept, receive, intake, body, encoding, gzipped, max_body_bytes
            )
        except RequestRefused as refusal:
            return refusal_response(refusal)
        return export_response(encoding, respond(accepted))

    @app.post("/v1/traces")
    async def export_traces(request: Request) -> Response:
        return await export(request, receive_traces, trace_response)

    @app.post("/v1/logs")
    async def export_logs(request: Request) -> Response:
        return await export(request, receive_logs, logs_response)

    return app


# Decode and store one export's payload (receive_traces, receive_logs); its answer's message.
Receive = Callable[[Intake, bytes, BodyEncoding], Accepted]
Respond = Callable[[Accepted], Any]


def _sweeping(
    intake: Intake, interval_s: float | None
) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """The app's lifespan: a sweep at startup, then one every ``interval_s`` (None: none)."""

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await _sweep_once(intake)
        sweeper = None
        if interval_s is not None:
            sweeper = asyncio.create_task(_sweep_forever(intake, interval_s))
        try:
            yield
        finally:
            if sweeper is not None:
                sweeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sweeper

    return lifespan


def _accept(
    receive: Receive,
    intake: Intake,
    body: bytes,
    encoding: BodyEncoding,
    gzipped: bool,
    max_body_bytes: int,
) -> Accepted:
    """Gunzip, decode and store, off the event loop (each may take a while on a big body); a
    store that fails is a 503, which OTLP exporters retry (:mod:`trailcheck.serve.receive`)."""
    if gzipped:
        body = gunzip_capped(body, max_body_bytes)
    return receive(intake, body, encoding)


async def _sweep_once(intake: Intake) -> None:
    """One sweep. A trace that fails is quarantined by the sweep itself
    (:mod:`trailcheck.serve.sweep`); a sweep that fails as a whole (the database unreachable a
    while, or a bug) is logged with its traceback and tried again at the next one: the pending
    rows stay, so nothing is lost meanwhile, and the failure is not silent, as a dead
    background task would be."""
    try:
        await run_in_threadpool(intake.sweep)
    except Exception:
        logger.exception("sweeping pending traces failed; they stay pending for the next sweep")


async def _sweep_forever(intake: Intake, interval_s: float) -> None:
    """Sweep every ``interval_s`` seconds, for as long as the app runs: no failure stops it."""
    while True:
        await asyncio.sleep(interval_s)
        await _sweep_once(intake)
