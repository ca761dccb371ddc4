"""One bad body never stops ingestion, and never gets a 5xx from a healthy store: a property
test of ``POST /v1/traces`` and ``POST /v1/logs`` over the real SQLite store, with OTLP/JSON and
protobuf exports left valid or damaged one mutation at a time
(:mod:`tests.importing.fuzz_mutations`).

For each example, on a fresh server: every answer is 2xx or 4xx (the store is healthy, so a
503 is a bug, as is an exception); a 400 names the field when a value was damaged; a 200 means
the spans are kept: after the idle timeout a sweep (which never raises) has stored or
quarantined every trace, and nothing is left ready; a stored trace is the trace ``trailcheck
import`` makes of the same bodies, so the endpoint keeps nothing the importer rejects. Then a
good trace is posted, and stored: one bad body never stops ingestion.

CI runs a bounded number of examples; ``TRAILCHECK_FUZZ_EXAMPLES=5000`` runs the long one.
"""

from __future__ import annotations

import tempfile
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import event, given
from hypothesis import strategies as st

from tests.importing.fuzz_inputs import otlp_exports
from tests.importing.fuzz_mutations import MutatedInput, fuzz_settings, mutated_inputs
from tests.importing.import_properties import about_a_value, names_field
from tests.serve.conftest import IDLE_TIMEOUT_S, RECEIVER_URL, Clock
from tests.serve.otlp_bodies import agent_span, protobuf_body, tool_span
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.serve import create_app
from trailcheck.store import Store, UnknownTraceError
from trailcheck.trace import Trace

CI_EXAMPLES = 15
GOOD_TRACE = "600d600d600d600d600d600d600d600d"
CONTENT_TYPES = {".json": "application/json", ".pb": "application/x-protobuf"}


@dataclass
class Answer:
    """The status and body of one POST, or the traceback of what the app raised."""

    path: str
    status: int
    text: str
    crash: str | None = None


@dataclass
class Server:
    client: TestClient
    store: Store
    clock: Clock

    def post(self, name: str, body: bytes) -> Answer:
        path = "/v1/logs" if name.startswith("logs") else "/v1/traces"
        headers = {"Content-Type": CONTENT_TYPES[Path(name).suffix]}
        try:
            response = self.client.post(path, content=body, headers=headers)
        except Exception:  # noqa: BLE001 - what the app raised is the finding
            return Answer(path, 500, "", traceback.format_exc())
        return Answer(path, response.status_code, response.text)

    def sweep_after_idle(self) -> set[str]:
        """Move past the idle timeout and sweep; the ids stored or quarantined."""
        self.clock.advance(IDLE_TIMEOUT_S + 1)
        result = self.client.app.state.intake.sweep()  # type: ignore[attr-defined]
        return {*result.stored, *result.quarantined}


@contextmanager
def fresh_server() -> Iterator[Server]:
    """The app over a new SQLite store, swept only when the test says."""
    with tempfile.TemporaryDirectory() as directory:
        clock = Clock()
        with Store.open(f"sqlite:///{Path(directory) / 'store.db'}") as store:
            app = create_app(
                store, idle_timeout_s=IDLE_TIMEOUT_S, sweep_interval_s=None, clock=clock
            )
            with TestClient(app, base_url=RECEIVER_URL) as client:
                yield Server(client, store, clock)


def imported_traces(files: dict[str, bytes]) -> tuple[dict[str, Trace], ImportSummary]:
    """What ``trailcheck import`` imports of the bodies as files, by trace id (the traces it
    rejects are not among them), and its summary."""
    summary = ImportSummary()
    if not files:
        return {}, summary
    with tempfile.TemporaryDirectory() as directory:
        paths = []
        for name, data in files.items():
            paths.append(Path(directory) / name)
            paths[-1].write_bytes(data)
        fmt = "otlp-proto" if paths[0].suffix == ".pb" else "otlp-json"
        traces = iter_import(paths, format_name=fmt, summary=summary)
        return {trace.trace_id: trace for trace in traces}, summary


def check_answer(answer: Answer, case: MutatedInput) -> None:
    where = f"{case.mutation or 'valid bodies'}\nPOST {answer.path}: {answer.status} {answer.text}"
    assert answer.crash is None, f"the app raised:\n{answer.crash}\n{where}"
    assert 200 <= answer.status < 300 or 400 <= answer.status < 500, where
    if case.mutation is None:
        assert answer.status == 200, where
    mutation = case.mutation
    if answer.status == 400 and mutation is not None and about_a_value(mutation):
        assert names_field([answer.text], mutation), f"the refusal names no field\n{where}"


def check_bodies(server: Server, case: MutatedInput) -> list[Answer]:
    """Post the bodies, sweep, and check what became of them."""
    answers = [server.post(name, body) for name, body in case.files.items()]
    for answer in answers:
        check_answer(answer, case)
    where = f"{case.mutation or 'valid bodies'}\n{answers}"
    try:
        swept = server.sweep_after_idle()
    except Exception:  # noqa: BLE001
        pytest.fail(f"the sweep raised:\n{traceback.format_exc()}\n{where}")
    assert server.store.ready_pending(server.clock(), 0) == [], f"left ready\n{where}"
    # What the server took: the bodies it answered 2xx.
    taken = {n: b for (n, b), a in zip(case.files.items(), answers, strict=True) if a.status < 300}
    expected, _ = imported_traces(taken)
    for trace_id in swept:
        try:
            stored = server.store.get_trace(trace_id)
        except UnknownTraceError:
            continue  # quarantined, with its reason
        assert trace_id in expected, f"stored {trace_id!r}, which import rejects\n{where}"
        assert stored == expected[trace_id], f"stored {trace_id!r} differently\n{where}"
    if case.mutation is None:
        assert set(expected) == swept, where
    return answers


def check_still_ingests(server: Server) -> None:
    good = protobuf_body(agent_span(GOOD_TRACE), tool_span(GOOD_TRACE))
    answer = server.post("traces.pb", good)
    assert answer.status == 200, answer
    assert GOOD_TRACE in server.sweep_after_idle()
    assert [c.name for c in server.store.get_trace(GOOD_TRACE).tool_calls] == ["lookup"]


@pytest.mark.parametrize("encoding", ["json", "protobuf"])
@fuzz_settings(CI_EXAMPLES)
@given(data=st.data())
def test_a_bad_body_is_refused_by_name_or_kept_and_never_stops_ingestion(
    encoding: str, data: st.DataObject
) -> None:
    case = data.draw(mutated_inputs(otlp_exports(encoding)), label="bodies")  # type: ignore[arg-type]
    with fresh_server() as server:
        answers = check_bodies(server, case)
        check_still_ingests(server)
    kind = "valid" if case.mutation is None else case.mutation.kind
    statuses = ", ".join(f"{a.path} {a.status}" for a in answers)
    event(f"{encoding} {kind}: {statuses}")
