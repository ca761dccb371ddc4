"""Admission on the running app: uvicorn on 127.0.0.1 in a thread, with the gRPC receiver beside
it sharing one :class:`Admission` whose clock the test moves, and the watch run by the test
(``watch_interval_s=None``), so a cut-off happens when the test says, never after a real delay.

Bodies are sent over bare sockets (:mod:`tests.serve.raw_uploads`) to stop half-way. Each test
checks what the refused or cut-off client is told and what the server holds (uploads, bytes,
pending spans), and that a good export is taken afterwards.
"""

from __future__ import annotations

import contextlib
import gzip
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc
import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

from tests.serve.memory_store import MemoryStore
from tests.serve.otlp_bodies import ROOT, TOOL, agent_span, protobuf_body, tool_span
from tests.serve.raw_uploads import (
    PROTOBUF,
    assert_closed_by_server,
    chunk,
    read_answer,
    start_upload,
    upload_socket,
)
from tests.serve.test_admission import MonotonicClock
from tests.waiting import GUARD_S, wait_until
from trailcheck.serve import create_app, grpc_receiver, trace_service
from trailcheck.serve.admission import Admission, UploadLimits

pytestmark = pytest.mark.live

MAX_BODY = 4096
ROOM = 2 * MAX_BODY + MAX_BODY // 2
# Every upload here comes from loopback: one client, given the whole of each cap (one client's
# share is tested in test_admission.py).
LIMITS = UploadLimits(
    max_uploads=3,
    max_inflight_bytes=ROOM,
    body_timeout_s=30.0,
    read_timeout_s=5.0,
    min_rate=100,
    max_client_uploads=3,
    max_client_bytes=ROOM,
    small_body_headroom=0,
)
EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


class Records(logging.Handler):
    """Every log record of the server (its app, uvicorn, gRPC), whichever thread logs it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self._lock_records = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._lock_records:
            self.records.append(record)

    def at_least(self, level: int) -> list[logging.LogRecord]:
        with self._lock_records:
            return [record for record in self.records if record.levelno >= level]


@dataclass
class Running:
    """The app at ``url`` and the gRPC receiver at ``grpc_address``, over ``store``."""

    url: str
    grpc_address: str
    admission: Admission
    clock: MonotonicClock
    store: MemoryStore
    records: Records
    channels: list[grpc.Channel] = field(default_factory=list)

    def post_good(self) -> httpx.Response:
        body = protobuf_body(agent_span(), tool_span())
        return httpx.post(
            f"{self.url}/v1/traces",
            content=body,
            headers={"Content-Type": PROTOBUF},
            timeout=GUARD_S,
        )

    def uploads_become(self, count: int) -> None:
        wait_until(lambda: self.admission.uploads == count, f"{count} upload(s) in flight")

    def received_becomes(self, size: int) -> None:
        wait_until(lambda: self.admission.received_bytes() == size, f"{size} body bytes in")


@pytest.fixture
def running() -> Iterator[Running]:
    # Imported here: live_server imports uvicorn's server, which the unit tests do not need.
    from tests.serve.live_server import live_server

    clock = MonotonicClock()
    admission = Admission(LIMITS, clock=clock)
    store = MemoryStore()
    app = create_app(
        store,
        max_body_bytes=MAX_BODY,
        sweep_interval_s=None,
        admission=admission,
        watch_interval_s=None,
    )
    receiver = grpc_receiver(
        [trace_service(app.state.intake)],
        host="127.0.0.1",
        port=0,
        token=None,
        max_message_bytes=MAX_BODY,
        admission=admission,
    )
    receiver.start()
    records = Records()
    watched = [logging.getLogger(), logging.getLogger("uvicorn")]
    try:
        with live_server(app) as url:
            # After uvicorn configured its loggers (which drops their handlers).
            for logger in watched:
                logger.addHandler(records)
            try:
                running = Running(url, receiver.address, admission, clock, store, records)
                yield running
            finally:
                for channel in running.channels:
                    channel.close()
                for logger in watched:
                    logger.removeHandler(records)
    finally:
        receiver.stop(0)


@contextlib.contextmanager
def _held_uploads(running: Running, sent: list[int], *, declared: int) -> Iterator[None]:
    """Uploads declaring ``declared`` bytes that sent ``sent`` of them and stall, in flight
    while the block runs; the clients leave when it ends."""
    with contextlib.ExitStack() as stack:
        for size in sent:
            connection = stack.enter_context(upload_socket(running.url))
            start_upload(connection, "/v1/traces", b"s" * size, declared=declared)
        running.received_becomes(sum(sent))
        yield


def _grpc_export(address: str) -> None:
    request = ExportTraceServiceRequest.FromString(protobuf_body(agent_span(), tool_span()))
    with grpc.insecure_channel(address) as channel:
        TraceServiceStub(channel).Export(request, timeout=GUARD_S)


def _assert_good_export_taken(running: Running) -> None:
    answer = running.post_good()
    assert answer.status_code == 200, answer.text
    assert sorted(span_id for _, span_id in running.store.pending) == [ROOT, TOOL]
    running.uploads_become(0)
    assert running.admission.held_bytes == 0


def _no_traceback(running: Running) -> None:
    crashes = [r for r in running.records.records if r.exc_info is not None]
    assert crashes == [], [r.getMessage() for r in crashes]
    errors = running.records.at_least(logging.ERROR)
    assert errors == [], [r.getMessage() for r in errors]


def test_an_upload_over_the_cap_gets_503_with_retry_after_and_nothing_is_buffered(
    running: Running,
) -> None:
    with _held_uploads(running, [10, 20, 30], declared=1000):
        assert running.admission.held_bytes == 3000

        busy = httpx.post(
            f"{running.url}/v1/traces",
            content=protobuf_body(agent_span(), tool_span()),
            headers={"Content-Type": PROTOBUF},
            timeout=GUARD_S,
        )
        assert busy.status_code == 503
        assert busy.headers["retry-after"] == "1"
        assert busy.json() == {
            "code": 14,
            "message": "the server is busy: 3 uploads are in flight, the most it takes;"
            " retry later",
        }
        # Nothing of the refused body is held: the three stalled uploads are all there is.
        assert (running.admission.uploads, running.admission.held_bytes) == (3, 3000)
        assert running.admission.received_bytes() == 60
        assert running.store.pending == {}
        assert running.store.add_calls == 0
    running.uploads_become(0)  # the clients left: their slots and bytes are free
    _assert_good_export_taken(running)


def test_a_declared_body_that_does_not_fit_the_bytes_left_gets_503(running: Running) -> None:
    left = ROOM - 2 * MAX_BODY
    with _held_uploads(running, [1, 1], declared=MAX_BODY), upload_socket(running.url) as late:
        start_upload(late, "/v1/traces", b"", declared=left + 1)
        answer = read_answer(late)
        assert answer.status == 503
        assert answer.headers["retry-after"] == "1"
        assert f"{left + 1} more bytes do not fit beside the 8192 bytes".encode() in answer.body
        assert running.admission.uploads == 2
    running.uploads_become(0)
    _assert_good_export_taken(running)


def test_a_chunked_body_reserves_as_it_arrives_and_gets_503_past_the_bytes_left(
    running: Running,
) -> None:
    with (
        _held_uploads(running, [1, 1], declared=MAX_BODY),
        upload_socket(running.url) as chunked,
    ):
        start_upload(chunked, "/v1/traces", chunk(b"a" * 1500), declared=None)
        running.received_becomes(1502)
        assert running.admission.held_bytes == 2 * MAX_BODY + 1500
        chunked.sendall(chunk(b"b" * (ROOM - 2 * MAX_BODY - 1500 + 1)))  # past the room left
        answer = read_answer(chunked)
        assert answer.status == 503
        assert answer.headers["retry-after"] == "1"
        assert b"do not fit beside" in answer.body
        running.uploads_become(2)
        assert running.admission.held_bytes == 2 * MAX_BODY  # the refused one's bytes are free
    running.uploads_become(0)
    assert running.store.pending == {}
    _assert_good_export_taken(running)


def test_gunzipped_bytes_that_do_not_fit_beside_the_others_get_503(running: Running) -> None:
    left = ROOM - 2 * MAX_BODY
    payload = bytes(left + 500)  # fits the body limit; a few dozen bytes of gzip
    with _held_uploads(running, [1, 1], declared=MAX_BODY):
        answer = httpx.post(
            f"{running.url}/v1/traces",
            content=gzip.compress(payload),
            headers={"Content-Type": PROTOBUF, "Content-Encoding": "gzip"},
            timeout=GUARD_S,
        )
        assert answer.status_code == 503, answer.text
        assert answer.headers["retry-after"] == "1"
        assert f"{len(payload)} more bytes do not fit beside" in answer.json()["message"]
        running.uploads_become(2)
        assert running.admission.held_bytes == 2 * MAX_BODY
    running.uploads_become(0)
    assert running.store.pending == {}
    _assert_good_export_taken(running)


def test_a_stalled_body_gets_408_and_its_connection_is_closed(running: Running) -> None:
    with upload_socket(running.url) as stalled:
        start_upload(stalled, "/v1/traces", b"x" * 10, declared=1000)
        running.received_becomes(10)
        running.clock.advance(LIMITS.read_timeout_s - 0.001)
        assert running.admission.cut_off_overdue() == []  # not yet

        running.clock.advance(0.001)
        [cut] = running.admission.cut_off_overdue()
        assert cut.peer.startswith("127.0.0.1:")
        answer = read_answer(stalled)
        assert answer.status == 408
        assert answer.headers["connection"] == "close"
        assert answer.body == (
            b'{"code":4,"message":"the body was cut off after 10 of 1000 bytes: no byte for 5 s'
            b' (--body-read-timeout)"}'
        )
        assert_closed_by_server(stalled)
    running.uploads_become(0)
    warnings = [r.getMessage() for r in running.records.at_least(logging.WARNING)]
    assert warnings == [
        f"/v1/traces from {cut.peer}: the body was cut off after 10 of 1000 bytes: no byte for"
        " 5 s (--body-read-timeout); nothing was stored"
    ]
    assert running.store.pending == {}
    _assert_good_export_taken(running)
    _no_traceback(running)


def test_a_body_under_the_minimum_rate_gets_408_naming_the_rate(running: Running) -> None:
    with upload_socket(running.url) as trickle:
        start_upload(trickle, "/v1/traces", b"x" * 10, declared=1000)
        running.received_becomes(10)
        for sent in range(11, 16):  # a byte every second: under 100 bytes/s
            running.clock.advance(1.0)
            trickle.sendall(b"x")
            running.received_becomes(sent)
            assert running.admission.cut_off_overdue() == []  # the first 5 s owe nothing
        running.clock.advance(1.0)
        [cut] = running.admission.cut_off_overdue()
        answer = read_answer(trickle)
        assert answer.status == 408
        assert b"15 of 1000 bytes" in answer.body
        assert b"under 100 bytes/s after the first 5 s (--body-min-rate)" in answer.body
    running.uploads_become(0)
    assert cut.cut_reason is not None
    _assert_good_export_taken(running)


def test_a_client_that_leaves_mid_body_is_one_warning_line_and_ingestion_goes_on(
    running: Running,
) -> None:
    with upload_socket(running.url) as leaving:
        start_upload(leaving, "/v1/traces", b"x" * 10, declared=1000)
        running.received_becomes(10)
        peer = f"127.0.0.1:{leaving.getsockname()[1]}"
    running.uploads_become(0)
    wait_until(lambda: running.records.at_least(logging.WARNING), "the warning of the leaver")
    warnings = [r.getMessage() for r in running.records.at_least(logging.WARNING)]
    assert warnings == [
        f"/v1/traces from {peer}: the client disconnected after 10 of 1000 bytes of its body;"
        " nothing was stored"
    ]
    assert "\n" not in warnings[0]
    _assert_good_export_taken(running)
    _no_traceback(running)


def test_a_grpc_call_over_the_cap_is_unavailable_until_an_upload_ends(running: Running) -> None:
    with _held_uploads(running, [1, 1, 1], declared=100):
        with pytest.raises(grpc.RpcError) as refused:
            _grpc_export(running.grpc_address)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "3 uploads are in flight" in str(refused.value.details())
        assert running.store.pending == {}
    running.uploads_become(0)
    _grpc_export(running.grpc_address)
    assert sorted(span_id for _, span_id in running.store.pending) == [ROOT, TOOL]
    running.uploads_become(0)
    assert running.admission.held_bytes == 0


def test_a_grpc_call_reserves_its_largest_message_until_it_arrives(running: Running) -> None:
    arrived = threading.Event()
    calls = _stalled_grpc_calls(running, 2, arrived)
    try:
        running.uploads_become(2)
        assert running.admission.held_bytes == 2 * MAX_BODY
        left = ROOM - 2 * MAX_BODY
        with upload_socket(running.url) as third:
            start_upload(third, "/v1/traces", b"", declared=left + 1)
            answer = read_answer(third)
            assert answer.status == 503  # a slot is free; the bytes are not
            assert f"{left + 1} more bytes do not fit beside the 8192".encode() in answer.body
    finally:
        arrived.set()
    for call in calls:
        assert call.result(timeout=GUARD_S) == b""
    running.uploads_become(0)
    assert running.admission.held_bytes == 0


def test_a_grpc_message_not_whole_in_the_body_timeout_is_cut_off_with_one_warning(
    running: Running,
) -> None:
    never = threading.Event()
    [call] = _stalled_grpc_calls(running, 1, never)
    try:
        running.uploads_become(1)
        running.clock.advance(LIMITS.read_timeout_s * 2)  # silent past the read timeout: fine
        assert running.admission.cut_off_overdue() == []
        running.clock.advance(LIMITS.body_timeout_s)
        [cut] = running.admission.cut_off_overdue()
        assert cut.cut_reason == "not whole after 30 s (--body-timeout)"
        with pytest.raises(grpc.RpcError) as cancelled:
            call.result(timeout=GUARD_S)
        assert cancelled.value.code() == grpc.StatusCode.CANCELLED
    finally:
        never.set()
    running.uploads_become(0)
    assert running.admission.held_bytes == 0
    wait_until(lambda: running.records.at_least(logging.WARNING), "the warning of the cut call")
    warnings = [r.getMessage() for r in running.records.at_least(logging.WARNING)]
    assert warnings == [
        f"{EXPORT} from {cut.peer}: the call was cut off: not whole after 30 s (--body-timeout)"
        " before its message was whole; nothing was stored"
    ]
    _grpc_export(running.grpc_address)
    assert sorted(span_id for _, span_id in running.store.pending) == [ROOT, TOOL]
    _no_traceback(running)


def _stalled_grpc_calls(
    running: Running, count: int, release: threading.Event
) -> list[grpc.Future]:
    """``count`` Export calls whose message is sent only once ``release`` is set (an empty
    message then); their futures (a call cut off first sees CANCELLED)."""
    channel = grpc.insecure_channel(running.grpc_address)
    running.channels.append(channel)
    export = channel.stream_unary(EXPORT)

    def one_message_later() -> Iterator[bytes]:
        release.wait(GUARD_S)
        yield b""

    return [export.future(one_message_later(), timeout=GUARD_S) for _ in range(count)]
