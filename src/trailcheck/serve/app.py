"""The OTLP/HTTP ingest endpoints: ``POST /v1/traces`` and ``POST /v1/logs`` into the store, so
any OpenTelemetry exporter sends agent spans, and the GenAI log records that carry their
messages, straight to trailcheck.

A request to either is checked in this order, each refusal storing nothing: the bearer token
(401; without one configured, a ``Host`` that is not loopback is a 403), the Content-Type and
Content-Encoding (415), the declared size (413), admission (503 with ``Retry-After`` when the
uploads in flight are at their cap: :mod:`trailcheck.serve.admission`), the received size
(413), the body's pace (408 when it is overdue), gunzip within the same limit (413; 400 when it
is not gzip), and the decoded spans or GenAI log records (400 naming the span or record and
field); a store that fails is a 503, which exporters retry. A client that leaves mid-body is one
warning line, with its address and the bytes read. Accepted spans and log records are written
as pending rows, and the 200 is sent only after the store returned. At startup the app sweeps
once, completing what an earlier process accepted, and then every ``sweep_interval_s`` seconds
in the background (see :mod:`trailcheck.serve.sweep`): a trace that fails is quarantined and
the others go on, and a sweep that fails as a whole is logged and tried again, so the
background sweep never dies. Beside it, every ``watch_interval_s`` seconds, the uploads whose
bodies are overdue are cut off, and when none is in flight after a burst, the heap's freed
memory is given back to the system (:mod:`trailcheck.serve.heap`).

``GET /metrics`` gives the server's counters (:mod:`trailcheck.serve.metrics`): spans held,
retried, late and conflicting, and the rest. With tokens (:mod:`trailcheck.serve.security`),
sending needs the read-write token (a read-only one is a 403) and the metrics either token: a
scraper holds a token that cannot forge traces.
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

from trailcheck.redaction import Redactor
from trailcheck.serve.admission import DEFAULT_WATCH_INTERVAL_S, Admission
from trailcheck.serve.body import (
    BodyEncoding,
    body_encoding,
    check_declared_length,
    gunzip_capped,
    is_gzip,
)
from trailcheck.serve.heap import HeapTrim
from trailcheck.serve.intake import Accepted, Intake
from trailcheck.serve.metrics import METRICS_MEDIA_TYPE
from trailcheck.serve.pending import PendingSpanStore
from trailcheck.serve.receive import logs_response, receive_logs, receive_traces, trace_response
from trailcheck.serve.refusal import RequestRefused
from trailcheck.serve.responses import export_response, refusal_response
from trailcheck.serve.security import Role, Tokens, receiver_tokens
from trailcheck.serve.upload import (
    ClientLeft,
    HttpUpload,
    UploadCutOff,
    admitted_upload,
    cut_off_response,
)

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
    read_token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
    settle_s: float = DEFAULT_SETTLE_S,
    sweep_interval_s: float | None = DEFAULT_SWEEP_INTERVAL_S,
    clock: Callable[[], int] = time.time_ns,
    admission: Admission | None = None,
    watch_interval_s: float | None = DEFAULT_WATCH_INTERVAL_S,
    redactor: Redactor | None = None,
) -> FastAPI:
    """The ingest app over ``store``. ``clock`` gives nanoseconds since the epoch (received
    times, the settle time and the idle timeout); ``sweep_interval_s=None`` leaves sweeping
    after startup to the caller (``app.state.intake.sweep()``). ``admission`` is what it admits
    at once (default: :class:`~trailcheck.serve.admission.UploadLimits`' defaults), shared with
    a gRPC receiver beside it; ``watch_interval_s=None`` leaves cutting off overdue bodies to
    the caller (``app.state.admission.cut_off_overdue()``). ``token`` is the read-write token,
    ``read_token`` the read-only one (metrics only), which needs a read-write token beside it
    (:func:`~trailcheck.serve.security.receiver_tokens`). ``redactor`` redacts every span and
    log record before it is held (:class:`~trailcheck.serve.intake.Intake`)."""
    tokens = receiver_tokens(token, read_token)
    if max_body_bytes < 1:
        raise ValueError(f"max_body_bytes must be at least 1, got {max_body_bytes}")
    admission = admission or Admission()
    admission.limits.check_body_limit(max_body_bytes)
    for name, seconds in (("idle_timeout_s", idle_timeout_s), ("settle_s", settle_s)):
        if seconds < 0:
            raise ValueError(f"{name} must not be negative, got {seconds}")
    intake = Intake(
        store,
        idle_timeout_ns=round(idle_timeout_s * _NS_PER_S),
        clock=clock,
        settle_ns=round(settle_s * _NS_PER_S),
        redactor=redactor,
    )
    lifespan = _background(intake, sweep_interval_s, admission, watch_interval_s)
    # No /docs, /redoc or /openapi.json: every route here checks the token, and those would not.
    app = FastAPI(
        title="trailcheck OTLP/HTTP ingest",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.intake = intake
    app.state.admission = admission

    async def export(request: Request, receive: Receive, respond: Respond) -> Response:
        peer = _peer(request)
        try:
            tokens.admit(
                request.headers.get("authorization"), request.headers.get("host"), Role.WRITE
            )
            encoding = body_encoding(request.headers.get("content-type"))
            gzipped = is_gzip(request.headers.get("content-encoding"))
            declared = request.headers.get("content-length")
            check_declared_length(declared, max_body_bytes)
            size = None if declared is None else int(declared)
            async with admitted_upload(admission, peer, size) as upload:
                body = await upload.read(request.receive, max_body_bytes)
                accepted = await run_in_threadpool(
                    _accept, receive, intake, body, encoding, gzipped, max_body_bytes, upload
                )
        except RequestRefused as refusal:
            return refusal_response(refusal)
        except UploadCutOff as cut:
            logger.warning("%s from %s: %s; nothing was stored", request.url.path, peer, cut)
            return cut_off_response(cut)
        except ClientLeft as left:
            logger.warning("%s from %s: %s; nothing was stored", request.url.path, peer, left)
            return Response(status_code=400)  # never sent: there is no one to send it to
        return export_response(encoding, respond(accepted))

    @app.post("/v1/traces")
    async def export_traces(request: Request) -> Response:
        return await export(request, receive_traces, trace_response)

    @app.post("/v1/logs")
    async def export_logs(request: Request) -> Response:
        return await export(request, receive_logs, logs_response)

    _add_metrics(app, intake, tokens)
    return app


def _add_metrics(app: FastAPI, intake: Intake, tokens: Tokens) -> None:
    """``GET /metrics``: the server's counters, to a client with either token."""

    @app.get("/metrics")
    async def metrics(request: Request) -> Response:
        try:
            tokens.admit(
                request.headers.get("authorization"), request.headers.get("host"), Role.READ
            )
        except RequestRefused as refusal:
            return refusal_response(refusal)
        return Response(intake.counts.exposition(), media_type=METRICS_MEDIA_TYPE)


# Decode and store one export's payload (receive_traces, receive_logs); its answer's message.
Receive = Callable[[Intake, bytes, BodyEncoding], Accepted]
Respond = Callable[[Accepted], Any]


def _peer(request: Request) -> str:
    """The client's ``host:port``, as the log names it."""
    client = request.client
    return f"{client.host}:{client.port}" if client is not None else "an unknown peer"


def _background(
    intake: Intake,
    sweep_interval_s: float | None,
    admission: Admission,
    watch_interval_s: float | None,
) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """The app's lifespan: a sweep at startup, then one every ``sweep_interval_s``, and the
    watch over the uploads every ``watch_interval_s`` (None: not that one)."""

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await _sweep_once(intake)
        tasks = []
        if sweep_interval_s is not None:
            tasks.append(asyncio.create_task(_sweep_forever(intake, sweep_interval_s)))
        if watch_interval_s is not None:
            tasks.append(asyncio.create_task(_watch_forever(admission, watch_interval_s)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    return lifespan


def _accept(
    receive: Receive,
    intake: Intake,
    body: bytes,
    encoding: BodyEncoding,
    gzipped: bool,
    max_body_bytes: int,
    upload: HttpUpload,
) -> Accepted:
    """Gunzip, decode and store, off the event loop (each may take a while on a big body); a
    store that fails is a 503, which OTLP exporters retry (:mod:`trailcheck.serve.receive`).
    The gunzipped bytes are held beside the body: the upload reserves both as they grow, a
    step at a time, so that gunzips running together never hold more than the bytes in flight
    allow (503, before the next step, when they do not fit)."""
    if gzipped:
        compressed = len(body)

        def grow(gunzipped: int) -> None:
            upload.admission.reserve(upload.upload, compressed + gunzipped)

        body = gunzip_capped(body, max_body_bytes, grow)
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


async def _watch_forever(admission: Admission, interval_s: float) -> None:
    """Every ``interval_s`` seconds, cut off the overdue uploads (HTTP and gRPC alike; each is
    logged where its body was being read) and, when none is in flight, trim the heap if it
    grew (off the event loop: a trim of a large heap takes a while)."""
    trim = HeapTrim()
    while True:
        await asyncio.sleep(interval_s)
        try:
            admission.cut_off_overdue()
            if not admission.uploads:
                await run_in_threadpool(trim)
        # A watch that died would never cut off a stalled upload again: whatever one round
        # raises (a bug in a cancel callback, say) is logged with its traceback, and the next
        # round runs.
        except Exception:
            logger.exception("watching the uploads in flight failed; trying again")
