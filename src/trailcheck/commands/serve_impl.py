"""What ``trailcheck serve`` does (its options: :mod:`trailcheck.commands.serve`); importing
it needs the ``serve`` extra."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from trailcheck.commands.online_impl import WEBHOOK_TIMEOUT_S, judge_runner
from trailcheck.commands.output import stderr
from trailcheck.commands.serve import ServeRequest
from trailcheck.commands.store_commands_impl import open_store
from trailcheck.commands.store_impl import prune_words
from trailcheck.errors import UsageError
from trailcheck.online import load_online_config
from trailcheck.online.alerting import Notifier
from trailcheck.online.worker import OnlineWorker
from trailcheck.redaction import load_redactor
from trailcheck.serve import (
    GrpcReceiver,
    Intake,
    check_bind,
    create_app,
    grpc_receiver,
    logs_service,
    serve_forever,
    trace_service,
)
from trailcheck.serve.admission import Admission, UploadLimits
from trailcheck.serve.retention import RetentionSchedule
from trailcheck.serve.security import receiver_tokens
from trailcheck.store import PruneSummary, Retention, Store, parse_age


def _endpoints(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/v1/traces, /v1/logs"


def serve_command(request: ServeRequest) -> None:
    """The body of :func:`trailcheck.commands.serve.serve_command`."""
    check_bind(request.host, request.token, read_token=request.read_token)
    receiver_tokens(request.token, request.read_token)
    if request.retention is not None:
        parse_age(request.retention)  # a bad age is a usage error before anything is opened
    admission = Admission(_upload_limits(request))
    # A bad rules file (or a hash key missing from the environment) stops the command before
    # the store or a socket is opened.
    redactor = None if request.redact is None else load_redactor(request.redact)
    with open_store(request.db) as store:
        app = create_app(
            store,
            token=request.token,
            read_token=request.read_token,
            max_body_bytes=request.max_body_bytes,
            idle_timeout_s=request.idle_timeout,
            settle_s=request.settle,
            admission=admission,
            redactor=redactor,
        )
        receiver: GrpcReceiver | None = None
        if request.grpc:
            intake: Intake = app.state.intake
            receiver = grpc_receiver(
                [trace_service(intake), logs_service(intake)],
                host=request.host,
                port=request.grpc_port,
                token=request.token,
                read_token=request.read_token,
                max_message_bytes=request.max_body_bytes,
                admission=admission,
            )
        auth = _auth_line(request)
        grpc_shown = f" and OTLP/gRPC {receiver.address}" if receiver is not None else ""
        endpoints = _endpoints(request.host, request.port)
        stderr.print(f"serving {endpoints}{grpc_shown} into {store.url}; {auth}", markup=False)
        if redactor is not None:
            rules = ", ".join(redactor.rule_names)
            stderr.print(f"redacting before anything is stored: {rules}", markup=False)
        with _online_worker(request, store), _retention(request, store):
            serve_forever(
                app, host=request.host, port=request.port, token=request.token, grpc=receiver
            )


@contextmanager
def _online_worker(request: ServeRequest, store: Store) -> Iterator[None]:
    """With ``--online FILE``, the online worker scoring beside the receiver, in a thread
    stopped (between two passes) when the server stops."""
    if request.online is None:
        yield
        return
    config = load_online_config(request.online)
    judge = judge_runner(
        config,
        judge_model=request.judge_model,
        base_url=request.judge_base_url,
        api_key_env=request.api_key_env,
    )
    client = httpx.Client(timeout=WEBHOOK_TIMEOUT_S)
    # Alerts go to the terminal and webhooks; `otel` destinations need `trailcheck online run
    # --emit-otel` (here they are recorded as not delivered, saying so).
    notifier = Notifier(write=lambda text: stderr.print(text, markup=False), client=client)
    worker = OnlineWorker(store, config, judge=judge, notifier=notifier)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,), name="online-worker", daemon=True)
    thread.start()
    names = ", ".join(f"{e.name}@{e.version}" for e in config.evaluators)
    stderr.print(f"scoring online: {names}", markup=False)
    try:
        yield
    finally:
        stop.set()
        thread.join()
        client.close()


def _auth_line(request: ServeRequest) -> str:
    """What the startup line says of tokens (never the tokens themselves)."""
    if request.token is None:
        return "no token (loopback only)"
    if request.read_token is None:
        return "bearer token required"
    return "bearer token required (the read-only token reads /metrics only)"


@contextmanager
def _retention(request: ServeRequest, store: Store) -> Iterator[None]:
    """With ``--retention AGE``, the store pruned on a schedule beside the receiver, in a
    thread stopped (between two batches) when the server stops."""
    if request.retention is None:
        yield
        return
    retention = Retention(request.retention)

    def report(summary: PruneSummary) -> None:
        if summary.deleted:
            for line in prune_words(summary, retention):
                stderr.print(f"retention: {line.strip()}", markup=False)

    schedule = RetentionSchedule(store, retention, report=report)
    stop = threading.Event()
    thread = threading.Thread(target=schedule.run, args=(stop,), name="retention", daemon=True)
    thread.start()
    stderr.print(
        f"pruning traces older than {request.retention} every {schedule.every_s:g} s",
        markup=False,
    )
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _upload_limits(request: ServeRequest) -> UploadLimits:
    """The admission limits the options ask for, or UsageError (exit 2) naming the option."""
    for option, seconds in (
        ("--body-timeout", request.body_timeout),
        ("--body-read-timeout", request.body_read_timeout),
    ):
        if not 0 < seconds < math.inf:
            raise UsageError(f"{option} must be a number of seconds more than 0, got {seconds:g}")
    if request.max_body_bytes > request.max_inflight_bytes:
        raise UsageError(
            f"--max-body-bytes {request.max_body_bytes} is over --max-inflight-bytes"
            f" {request.max_inflight_bytes}: a body that large could never be taken; lower the"
            " one or raise the other"
        )
    return UploadLimits(
        max_uploads=request.max_uploads,
        max_inflight_bytes=request.max_inflight_bytes,
        body_timeout_s=request.body_timeout,
        read_timeout_s=request.body_read_timeout,
        min_rate=request.body_min_rate,
        max_client_uploads=request.max_client_uploads,
        max_client_bytes=request.max_client_bytes,
    )
