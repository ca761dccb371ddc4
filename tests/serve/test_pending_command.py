"""``trailcheck pending list | show | retry | drop`` over a real store (SQLite and PostgreSQL):
a trace the sweep quarantined (an orphan span, its parent never came) beside one still
pending."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.serve.otlp_bodies import (
    ROOT,
    TOOL,
    TRACE_A,
    TRACE_B,
    agent_span,
    log_record,
    logs_body,
    protobuf_body,
    tool_span,
)
from trailcheck.cli import run_cli
from trailcheck.serve import Intake, pending_log_events, pending_span, sweep_pending
from trailcheck.serve.export import decode_export
from trailcheck.serve.log_export import decode_logs_export
from trailcheck.serve.receive import receive_traces
from trailcheck.store import PendingSpan, Store

SECOND = 10**9


def _quarantined_and_pending(url: str) -> str:
    """TRACE_A quarantined (its tool span's parent never came, with a log record of that span),
    TRACE_B pending (its root still running); the reason the sweep gave TRACE_A."""
    spans = decode_export(
        protobuf_body(tool_span(TRACE_A), agent_span(TRACE_B, end=None)), "protobuf"
    )
    logs = decode_logs_export(logs_body(log_record(TRACE_A, TOOL)), "protobuf").events
    with Store.open(url) as store:
        store.add_pending([pending_span(span, SECOND) for span in spans[:1]])
        store.add_pending([pending_span(span, 100 * SECOND) for span in spans[1:]])
        store.add_pending_logs(pending_log_events(logs, SECOND))
        result = sweep_pending(store, now_ns=100 * SECOND, idle_timeout_ns=30 * SECOND)
    return result.quarantined[TRACE_A]


def test_list_shows_pending_and_quarantined_traces_with_reasons(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    reason = _quarantined_and_pending(store_url)
    assert "parent_span_id" in reason
    assert run_cli(["pending", "list", "--db", store_url, "--json"]) == 0
    quarantined, pending = orjson.loads(capsys.readouterr().out)
    assert quarantined["trace_id"] == TRACE_A
    assert (quarantined["state"], quarantined["reason"]) == ("quarantined", reason)
    assert (quarantined["spans"], quarantined["log_records"]) == (1, 1)
    assert (pending["trace_id"], pending["state"], pending["reason"]) == (TRACE_B, "pending", None)
    assert run_cli(["pending", "list", "--db", store_url]) == 0
    out = capsys.readouterr()
    assert TRACE_A in out.out
    assert "quarantined" in out.out
    assert "1 pending, 1 quarantined" in out.err


def test_show_gives_the_reason_spans_and_log_records(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    reason = _quarantined_and_pending(store_url)
    assert run_cli(["pending", "show", TRACE_A, "--db", store_url]) == 0
    out = capsys.readouterr().out
    assert f"trace {TRACE_A}: quarantined, 1 span(s), 1 GenAI log record(s)" in out
    assert reason.splitlines()[0] in out
    assert f"span {TOOL} under " in out
    assert f"log record gen_ai.user.message on span {TOOL}" in out


def test_retry_sends_it_back_and_the_next_sweep_tries_again(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _quarantined_and_pending(store_url)
    assert run_cli(["pending", "retry", TRACE_A, "--db", store_url]) == 0
    assert f"trace {TRACE_A} is pending again (1 span(s)" in capsys.readouterr().err
    with Store.open(store_url) as store:
        assert store.ready_pending(100 * SECOND, 30 * SECOND) == [TRACE_A]
        # Its parent still missing, the next sweep quarantines it again.
        result = sweep_pending(store, now_ns=100 * SECOND, idle_timeout_ns=30 * SECOND)
        assert list(result.quarantined) == [TRACE_A]
    assert run_cli(["pending", "retry", TRACE_B, "--db", store_url]) == 2
    assert f"trace {TRACE_B!r} is pending, not quarantined" in capsys.readouterr().err


def test_drop_deletes_without_asking_and_prints_what_went(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    reason = _quarantined_and_pending(store_url)
    assert run_cli(["pending", "drop", TRACE_A, "--db", store_url]) == 0
    err = capsys.readouterr().err
    assert f"dropped quarantined trace {TRACE_A}: 1 span(s), 1 GenAI log record(s)" in err
    assert reason.splitlines()[0] in err
    assert run_cli(["pending", "drop", TRACE_B, "--db", store_url]) == 0
    assert f"dropped pending trace {TRACE_B}: 1 span(s), 0 GenAI log record(s)" in (
        capsys.readouterr().err
    )
    with Store.open(store_url) as store:
        assert store.pending_traces() == []


def test_an_unknown_id_or_store_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = f"sqlite:///{tmp_path / 'none.db'}"
    assert run_cli(["pending", "list", "--db", missing]) == 2
    assert "no store at" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()
    db = f"sqlite:///{tmp_path / 's.db'}"
    Store.open(db).close()
    for command in ("show", "retry", "drop"):
        assert run_cli(["pending", command, "nope", "--db", db]) == 2
        err = capsys.readouterr().err
        assert "error: no pending or quarantined trace 'nope' in the store" in err
        assert "Traceback" not in err


def test_show_lists_a_payload_that_does_not_decode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    with Store.open(db) as store:
        store.add_pending([PendingSpan("t1", "s1", b"not a span payload", True, 1)])
        result = sweep_pending(store, now_ns=SECOND, idle_timeout_ns=SECOND)
        assert "not a pending span payload" in result.quarantined["t1"]
    assert run_cli(["pending", "show", "t1", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "trace t1: quarantined, 1 span(s)" in out
    assert "unreadable span payload 1: " in out


def test_a_conflicting_version_is_listed_shown_and_dropped_beside_the_first(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Kept while its trace is pending, and after the trace is stored: ``pending`` lists it
    with its trace until an operator drops it."""
    with Store.open(store_url) as store:
        intake = Intake(store, idle_timeout_ns=30 * SECOND, clock=lambda: SECOND)
        receive_traces(intake, protobuf_body(agent_span(), tool_span()), "protobuf")
        refused = receive_traces(intake, protobuf_body(tool_span(tool="refund")), "protobuf")
        assert refused.rejected == 1
    assert run_cli(["pending", "list", "--db", store_url, "--json"]) == 0
    [held] = orjson.loads(capsys.readouterr().out)
    assert (held["trace_id"], held["state"], held["spans"]) == (TRACE_A, "pending", 2)
    assert held["conflicting_spans"] == 1
    assert run_cli(["pending", "show", TRACE_A, "--db", store_url]) == 0
    out = capsys.readouterr().out
    assert f"span {TOOL} under {ROOT}: 'execute_tool lookup'" in out
    assert f"conflicting version of span {TOOL} under {ROOT}: 'execute_tool refund'" in out
    assert "refused: the pending version is kept" in out
    with Store.open(store_url) as store:
        assert sweep_pending(store, now_ns=10 * SECOND, idle_timeout_ns=30 * SECOND).stored == [
            TRACE_A
        ]
        assert [s.name for s in store.get_trace(TRACE_A).spans] == [
            "invoke_agent support",
            "execute_tool lookup",
        ]
    assert run_cli(["pending", "list", "--db", store_url]) == 0
    out = capsys.readouterr()
    assert f"{TRACE_A}  conflicts" in out.out
    assert "0 span(s), 0 GenAI log record(s), 1 conflicting span version(s)" in out.out
    assert "0 pending, 0 quarantined; 1 conflicting span version(s) kept" in out.err
    assert run_cli(["pending", "drop", TRACE_A, "--db", store_url]) == 0
    assert f"dropped held trace {TRACE_A}: 0 span(s), 0 GenAI log record(s), 1 conflicting" in (
        capsys.readouterr().err
    )
    with Store.open(store_url) as store:
        assert store.pending_traces() == []
        assert store.span_conflicts(TRACE_A) == []
