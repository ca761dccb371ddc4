"""Crash safety, measured: a span acknowledged is a span kept, across ``kill -9``.

The real ``trailcheck serve`` runs as a subprocess over a store (SQLite, and PostgreSQL when one
is running). Four sender threads post OTLP/HTTP protobuf batches, each a few whole traces with
fresh ids, retrying a batch that got no answer (or a 503) as an exporter does. Mid-stream, once
some batches were acknowledged and while the senders are still sending (each holds its last batch
until the kill), the server is killed with SIGKILL and started again over the same database; the
senders go on against the new one. When they are done and the new server's sweep has emptied
the pending table, the store is read: every span of every acknowledged batch is in a stored
trace, every stored trace is exactly the trace that was sent (never half of it), nothing is stored
that was not sent, and nothing is pending or quarantined. Three rounds per backend, chained:
the server that came up after one round's kill is the one the next round kills, and each round
checks everything sent so far.

``pytest -q tests/serve/test_crash_safety.py -s`` prints each round's figures.
"""

from __future__ import annotations

import http.client
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)

from tests.serve.otlp_bodies import agent_span, llm_span, protobuf_body, tool_span
from tests.waiting import GUARD_S, wait_until
from trailcheck.store import Store

pytestmark = pytest.mark.live

ROUNDS = 3
SENDERS = 4
BATCHES_PER_SENDER = 12
TRACES_PER_BATCH = 3  # each trace: the ended root, a model call, two tool calls
KILL_AFTER_ACKED = 10  # batches acknowledged in this round before the kill
# Spacing of a sender's retries, as an exporter's backoff: pacing, not a deadline. A batch is
# retried until it is acknowledged (however long the restart takes) or refused for good; only
# GUARD_S without an acknowledgement (a hang) makes its sender give it up.
RETRY_PAUSE_S = 0.15
RETRIED = {429, 502, 503, 504}  # what OTLP exporters retry
# uvicorn's line once the app has started and the socket listens, naming the port the OS gave.
LISTENING = re.compile(rb"Uvicorn running on http://127\.0\.0\.1:(\d+) ")


class Server:
    """``trailcheck serve`` over ``db`` in a subprocess, on a port the OS picks, logging to
    ``log``; :meth:`kill` is ``kill -9``."""

    def __init__(self, db: str, log: Path) -> None:
        self.log = log
        start = log.stat().st_size if log.exists() else 0  # the log is shared across restarts
        command = [
            sys.executable,
            "-m",
            "trailcheck",
            "serve",
            "--db",
            db,
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-grpc",
            "--settle",
            "0",
        ]
        with log.open("ab") as sink:
            self.process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
        try:
            self.port = wait_until(lambda: self._listening(start), "the server listening")
        except BaseException:
            self.process.kill()  # not left running behind a failed test
            self.process.wait(GUARD_S)
            raise

    def _listening(self, start: int) -> int | None:
        """The port, once this process's part of the log says it listens."""
        assert self.process.poll() is None, f"the server exited while starting:\n{self.tail()}"
        with self.log.open("rb") as lines:
            lines.seek(start)
            found = LISTENING.search(lines.read())
        return int(found[1]) if found else None

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(GUARD_S)  # a guard: SIGKILL cannot be caught
        assert self.process.returncode == -signal.SIGKILL


@dataclass
class Batch:
    """One request: its body and what it holds, trace id -> span ids."""

    body: bytes
    spans: dict[str, set[str]]
    acknowledged: bool = False
    attempts: int = 0
    rejected_spans: int = 0


def _batch() -> Batch:
    spans = []
    held: dict[str, set[str]] = {}
    for _ in range(TRACES_PER_BATCH):
        trace_id = uuid.uuid4().hex
        tools = [uuid.uuid4().hex[:16] for _ in range(2)]
        trace = [agent_span(trace_id), llm_span(trace_id)]
        trace += [tool_span(trace_id, span_id=s, tool=f"tool{i}") for i, s in enumerate(tools)]
        spans += trace
        held[trace_id] = {span.span_id.hex() for span in trace}
    return Batch(protobuf_body(*spans), held)


@dataclass
class Traffic:
    """The batches of one round, the port they currently go to, and the senders."""

    port: int
    batches: list[list[Batch]] = field(
        default_factory=lambda: [
            [_batch() for _ in range(BATCHES_PER_SENDER)] for _ in range(SENDERS)
        ]
    )
    acked: int = 0
    in_flight: int = 0  # requests sent and not yet answered
    lock: threading.Lock = field(default_factory=threading.Lock)
    threads: list[threading.Thread] = field(default_factory=list)
    # Set once the server was killed: each sender holds its last batch until then, so the kill
    # always finds senders still sending, however the threads are scheduled.
    killed: threading.Event = field(default_factory=threading.Event)
    stopped: threading.Event = field(default_factory=threading.Event)  # the test ended: give up

    def post(self, batch: Batch) -> int | None:
        """The status of one attempt; None when no answer came (refused, reset). A killed
        server's connections are reset at once, so the timeout is only a guard."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=GUARD_S)
        try:
            connection.request(
                "POST",
                "/v1/traces",
                body=batch.body,
                headers={"Content-Type": "application/x-protobuf"},
            )
            response = connection.getresponse()
            answer = response.read()
        except (OSError, http.client.HTTPException):
            return None
        finally:
            connection.close()
        if 200 <= response.status < 300:
            rejected = ExportTraceServiceResponse.FromString(answer).partial_success
            batch.rejected_spans = rejected.rejected_spans
        return response.status

    def send(self, batches: list[Batch]) -> None:
        for number, batch in enumerate(batches, start=1):
            if number == len(batches):
                self.killed.wait(GUARD_S)  # a guard: the test kills once enough are acknowledged
            guard = time.monotonic() + GUARD_S
            while time.monotonic() < guard and not self.stopped.is_set():
                batch.attempts += 1
                with self.lock:
                    self.in_flight += 1
                status = self.post(batch)
                with self.lock:
                    self.in_flight -= 1
                if status is not None and 200 <= status < 300:
                    batch.acknowledged = True
                    with self.lock:
                        self.acked += 1
                    break
                if status is not None and status not in RETRIED:
                    break  # refused for good: not acknowledged, and the test says so
                time.sleep(RETRY_PAUSE_S)

    def start(self) -> None:
        for batches in self.batches:
            thread = threading.Thread(target=self.send, args=(batches,), daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self) -> None:
        """End the senders early (a failed test): no batch is tried again."""
        self.stopped.set()
        self.killed.set()

    def running(self) -> int:
        return sum(thread.is_alive() for thread in self.threads)

    def join(self) -> None:
        for thread in self.threads:
            thread.join(GUARD_S)  # a guard: a sender ends once its batches are answered
        assert self.running() == 0, "a sender did not stop"

    def all(self) -> Iterator[Batch]:
        for batches in self.batches:
            yield from batches


def _settled(store: Store) -> dict[str, set[str]]:
    """Once the sweep has emptied the pending table: the stored traces' span ids by trace."""
    wait_until(
        lambda: not (held := store.pending_traces()) or any(t.quarantined for t in held),
        "the new server's sweep emptying the pending table",
        poll_s=0.1,
    )
    held = store.pending_traces()
    quarantined = [(t.trace_id, t.reason) for t in held if t.quarantined]
    assert not quarantined, f"quarantined after the crash: {quarantined[:3]}"
    assert not held, f"still pending after the sweep: {held[:3]}"
    return {t.trace_id: {s.span_id for s in t.spans} for t in store.iter_traces()}


def test_every_acknowledged_span_survives_kill_9(store_url: str, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    server = Server(store_url, log)
    sent: dict[str, set[str]] = {}
    acknowledged: dict[str, set[str]] = {}
    traffic: Traffic | None = None
    try:
        for round_number in range(1, ROUNDS + 1):
            traffic = Traffic(server.port)
            traffic.start()

            def enough_acknowledged(traffic: Traffic = traffic, server: Server = server) -> bool:
                assert server.process.poll() is None, f"the server exited:\n{server.tail()}"
                assert traffic.running(), "the senders finished before the kill"
                return traffic.acked >= KILL_AFTER_ACKED

            wait_until(enough_acknowledged, f"{KILL_AFTER_ACKED} batches acknowledged")
            with traffic.lock:
                server.kill()
                senders_at_kill = traffic.running()
                acked_at_kill = traffic.acked
                in_flight_at_kill = traffic.in_flight
            traffic.killed.set()  # the held last batches go, to the dead port first
            server = Server(store_url, log)
            traffic.port = server.port
            traffic.join()

            batches = list(traffic.all())
            for batch in batches:
                sent.update(batch.spans)
                if batch.acknowledged:
                    acknowledged.update(batch.spans)
            with Store.open(store_url) as store:
                stored = _settled(store)

            round_spans = sum(len(s) for b in batches if b.acknowledged for s in b.spans.values())
            found = sum(
                len(stored.get(t, set()) & s)
                for b in batches
                if b.acknowledged
                for t, s in b.spans.items()
            )
            figures = (
                f"round {round_number} ({store_url.split(':')[0]}): "
                f"{len(batches)} batches sent, {acked_at_kill} acknowledged before the kill "
                f"({senders_at_kill} senders still sending, "
                f"{in_flight_at_kill} requests in flight), "
                f"{sum(b.acknowledged for b in batches)} acknowledged in all "
                f"({sum(b.attempts for b in batches)} attempts), "
                f"{round_spans} spans acknowledged, {found} of them found after the restart; "
                f"store: {len(stored)} traces, {sum(len(s) for s in stored.values())} spans"
            )
            print(figures)
            assert senders_at_kill > 0, figures
            assert all(b.acknowledged for b in batches), figures
            assert not any(b.rejected_spans for b in batches), figures
            missing = {t: s - stored.get(t, set()) for t, s in acknowledged.items()}
            missing = {t: s for t, s in missing.items() if s}
            assert not missing, f"acknowledged, not stored: {list(missing.items())[:3]}; {figures}"
            strangers = set(stored) - set(sent)
            assert not strangers, f"stored, never sent: {sorted(strangers)[:3]}; {figures}"
            partial = {t: s for t, s in stored.items() if s != sent[t]}
            assert not partial, f"half-stored: {list(partial.items())[:3]}; {figures}"
    finally:
        if traffic is not None:
            traffic.stop()
        if server.process.poll() is None:
            server.kill()
