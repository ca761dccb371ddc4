"""Sessions: traces grouped by conversation or session id, listed by time, read in start order."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

import pytest
from sqlalchemy import event

from tests.store.builders import turn
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.store import SessionSummary, Store, TraceFilter
from trailcheck.trace import Trace

# TraceBuilder's root span starts at 1_700_000_000 s; turn() shifts it by whole seconds.
ORIGIN_NS = 1_700_000_000 * 10**9
SECOND = 10**9

# Offered out of time order: ingestion order is not start order.
TRAFFIC = [
    turn("a2", 20, conversation_id="conv-A"),
    turn("b1", 5, session_id="sess-B"),
    turn("a1", 10, conversation_id="conv-A"),
    turn("lone", 0),
    turn("b2", 30, session_id="sess-B"),
    # Both recorded: the conversation (the GenAI convention) wins.
    turn("a3", 40, conversation_id="conv-A", session_id="sess-B"),
]


def _ids(traces: Iterable[Trace]) -> list[str]:
    return [trace.trace_id for trace in traces]


def test_sessions_are_listed_by_first_start_with_counts_and_times(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest(TRAFFIC)
        assert store.list_sessions() == [
            SessionSummary("sess-B", 2, ORIGIN_NS + 5 * SECOND, ORIGIN_NS + 30 * SECOND),
            SessionSummary("conv-A", 3, ORIGIN_NS + 10 * SECOND, ORIGIN_NS + 40 * SECOND),
        ]
        assert [row.session_id for row in store.list_sessions(limit=1)] == ["sess-B"]


def test_a_sessions_traces_stream_in_start_order(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest(TRAFFIC)
        assert _ids(store.session_traces("conv-A")) == ["a1", "a2", "a3"]
        assert _ids(store.session_traces("sess-B")) == ["b1", "b2"]
        assert list(store.session_traces("nope")) == []
        [first, *_] = store.session_traces("conv-A")
        assert first == turn("a1", 10, conversation_id="conv-A")


def test_the_session_filter_of_the_readers_keeps_ingestion_order(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest(TRAFFIC)
        conversation = store.list_traces(TraceFilter(session="conv-A"))
        assert [row.trace_id for row in conversation] == ["a2", "a1", "a3"]
        assert _ids(store.iter_traces(TraceFilter(session="sess-B"))) == ["b1", "b2"]
        assert store.list_traces(TraceFilter(session="nope")) == []
        sessions = {row.trace_id: row.session_id for row in store.list_traces()}
        assert sessions == {
            "a1": "conv-A",
            "a2": "conv-A",
            "a3": "conv-A",
            "b1": "sess-B",
            "b2": "sess-B",
            "lone": None,
        }


def test_session_traces_pages_on_start_then_ingestion_order(store_url: str) -> None:
    """Ties in start time come in ingestion order, and a page boundary inside a tie loses and
    repeats nothing; each page is one query of batch_size rows."""
    offered = [
        turn("late", 9, session_id="s"),
        turn("tie1", 3, session_id="s"),
        turn("tie2", 3, session_id="s"),
        turn("tie3", 3, session_id="s"),
        turn("early", 1, session_id="s"),
        turn("other", 2, session_id="x"),
    ]
    with Store.open(store_url) as store:
        store.ingest(offered)
        queries: list[str] = []

        def record(_conn: object, _cursor: object, statement: str, *_: object) -> None:
            if statement.lstrip().upper().startswith("SELECT") and "content" in statement:
                queries.append(statement)

        event.listen(store.engine, "before_cursor_execute", record)
        read = _ids(store.session_traces("s", batch_size=2))
        event.remove(store.engine, "before_cursor_execute", record)
        assert read == ["early", "tie1", "tie2", "tie3", "late"]
        assert len(queries) == 3  # 2 + 2 + 1
        with pytest.raises(ValueError, match="at least 1"):
            list(store.session_traces("s", batch_size=0))


def test_a_trace_without_spans_counts_from_when_it_was_ingested(store_url: str) -> None:
    bare = Trace(trace_id="bare", input="hi", metadata={"session_id": "s"})
    with Store.open(store_url) as store:
        before = time.time_ns()
        store.ingest([turn("old", 0, session_id="s"), bare])
        [summary] = store.list_sessions()
        assert summary.first_started_ns == ORIGIN_NS
        assert summary.last_started_ns >= before
        assert _ids(store.session_traces("s")) == ["old", "bare"]


def test_a_trace_completed_from_pending_spans_gets_its_session(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.complete_pending("p1", turn("p1", 0, conversation_id="c"))
        assert [(row.session_id, row.trace_count) for row in store.list_sessions()] == [("c", 1)]
        assert _ids(store.session_traces("c")) == ["p1"]


def test_real_recordings_group_by_either_convention(store_url: str, fixtures: Path) -> None:
    """Pydantic AI writes gen_ai.conversation.id, LangGraph under OpenInference session.id;
    the same conversation recorded by each is one session. The bare openai recording names
    none."""
    real = fixtures / "real"
    sources = {
        "pydantic-ai": real / "pydantic-ai-2.68.0.traces.pb",
        "langgraph": real / "langgraph-1.2.24-openinference-0.1.80.traces.pb",
        "bare": real / "openinference-openai-0.1.66-bare.traces.pb",
    }
    imported = {
        name: list(iter_import([path], summary=ImportSummary())) for name, path in sources.items()
    }
    assert {name: len(traces) for name, traces in imported.items()} == {
        "pydantic-ai": 4,
        "langgraph": 4,
        "bare": 10,
    }
    with Store.open(store_url) as store:
        store.ingest(trace for traces in imported.values() for trace in traces)
        [session] = store.list_sessions()
        assert (session.session_id, session.trace_count) == ("session-ana-1", 8)
        grouped = {trace.trace_id for trace in store.session_traces("session-ana-1")}
        named = imported["pydantic-ai"] + imported["langgraph"]
        assert grouped == {trace.trace_id for trace in named}
        starts = [min(s.start_ns for s in t.spans) for t in store.session_traces("session-ana-1")]
        assert starts == sorted(starts)
