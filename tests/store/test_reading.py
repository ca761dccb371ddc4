"""Reading: streamed in pages, chosen by a TraceFilter (the same in every reader); one trace by
id."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from sqlalchemy import event

from tests.store.builders import lookup_trace, refund_trace, shifted, turn
from trailcheck.store import Store, TraceFilter, UnknownTraceError
from trailcheck.store.browse import browse_traces
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Finding, Span, Trace

# TraceBuilder's spans start at 1_700_000_000 s (2023-11-14T22:13:20Z).
BUILDER_START = datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
HOUR = 3600


def _finding(trace_id: str, label: str) -> Finding:
    return Finding(trace_id=trace_id, label=label, severity="high", reason="r", source="rule:test")


def _traces() -> list[Trace]:
    """One trace per criterion, in ingestion order: an hour apart from the builder's start."""
    failed = (
        TraceBuilder("e1", input="Cancel it")
        .tool("cancel_order", {"order_id": "C-3"}, error="not allowed")
        .output("Sorry.")
        .build()
    )
    return [
        refund_trace("r1"),
        shifted(lookup_trace("l1"), HOUR),
        turn("s1", 2 * HOUR, session_id="conv-A"),
        shifted(failed, 3 * HOUR),
    ]


CRITERIA: list[tuple[TraceFilter, list[str]]] = [
    (TraceFilter(), ["r1", "l1", "s1", "e1"]),
    (TraceFilter(label="tool_call_loop"), ["l1"]),
    (TraceFilter(tool="issue_refund"), ["r1"]),
    (TraceFilter(tool="lookup_order"), ["r1", "l1", "s1"]),
    (TraceFilter(session="conv-A"), ["s1"]),
    (TraceFilter(status="error"), ["e1"]),
    (TraceFilter(status="ok"), ["r1", "l1", "s1"]),
    (TraceFilter(since=BUILDER_START + timedelta(hours=1)), ["l1", "s1", "e1"]),  # inclusive
    (TraceFilter(since=datetime(2023, 11, 14, 23, 30)), ["s1", "e1"]),  # naive: UTC
    (TraceFilter(until=BUILDER_START + timedelta(hours=1)), ["r1"]),  # exclusive
    (
        TraceFilter(
            since=BUILDER_START + timedelta(hours=1), until=BUILDER_START + timedelta(hours=3)
        ),
        ["l1", "s1"],
    ),
    (TraceFilter(text="REFUND order"), ["r1"]),  # a substring, in any case
    (TraceFilter(text="e1"), ["e1"]),  # a trace id
    (TraceFilter(label="tool_call_loop", tool="lookup_order"), ["l1"]),
    (TraceFilter(label="tool_call_loop", tool="issue_refund"), []),
    (TraceFilter(tool="nope"), []),
]


@pytest.mark.parametrize(("where", "wanted"), CRITERIA, ids=[str(where) for where, _ in CRITERIA])
def test_each_criterion_chooses_the_same_traces_in_every_reader(
    store_url: str, where: TraceFilter, wanted: list[str]
) -> None:
    with Store.open(store_url) as store:
        store.ingest(_traces())
        store.add_findings([_finding("l1", "tool_call_loop")])
        assert [trace.trace_id for trace in store.iter_traces(where)] == wanted
        assert [row.trace_id for row in store.list_traces(where)] == wanted
        pages = store.content_pages(where, batch_size=2)
        assert [orjson.loads(content)["trace_id"] for page in pages for content in page] == wanted
        newest_first = browse_traces(store.engine, where, limit=50).traces
        assert [row.trace_id for row in newest_first] == wanted[::-1]


def test_summary_rows_carry_their_labels(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("r1"), lookup_trace("l1"), shifted(refund_trace("r2"), 3600)])
        store.add_findings([_finding("r1", "no_final_answer"), _finding("l1", "tool_call_loop")])
        assert [row.labels for row in store.list_traces()] == [
            ("no_final_answer",),
            ("tool_call_loop",),
            (),
        ]


def test_a_trace_without_spans_counts_from_when_it_was_ingested(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([Trace(trace_id="bare", input="hi")])
        since_2020 = store.iter_traces(TraceFilter(since=datetime(2020, 1, 1)))
        assert [t.trace_id for t in since_2020] == ["bare"]
        assert list(store.iter_traces(TraceFilter(since=datetime(2999, 1, 1)))) == []
        assert list(store.iter_traces(TraceFilter(until=datetime(2020, 1, 1)))) == []


def test_iter_traces_streams_in_pages_of_batch_size(store_url: str) -> None:
    """Each query asks for one page: the rows held at once are at most batch_size, whatever
    the number of traces."""
    with Store.open(store_url) as store:
        store.ingest([lookup_trace(f"t{i:02d}") for i in range(23)])
        limits: list[Any] = []

        def record(_conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
            if statement.lstrip().upper().startswith("SELECT") and "content" in statement:
                limits.append(params)

        event.listen(store.engine, "before_cursor_execute", record)
        stream = store.iter_traces(batch_size=5)
        first = next(stream)
        assert first.trace_id == "t00"
        assert len(limits) == 1  # one page read so far, not the whole table
        rest = [trace.trace_id for trace in stream]
        event.remove(store.engine, "before_cursor_execute", record)
        assert rest == [f"t{i:02d}" for i in range(1, 23)]
        assert len(limits) == 5  # 5 + 5 + 5 + 5 + 3


def test_traces_ingested_while_streaming_are_read_after_the_position(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([lookup_trace("a"), lookup_trace("b")])
        seen: list[str] = []
        for trace in store.iter_traces(batch_size=1):
            seen.append(trace.trace_id)
            if trace.trace_id == "a":
                store.ingest([lookup_trace("c")])
        assert seen == ["a", "b", "c"]


def test_iter_traces_refuses_a_page_size_below_one(store_url: str) -> None:
    with Store.open(store_url) as store, pytest.raises(ValueError, match="at least 1"):
        list(store.iter_traces(batch_size=0))


def test_get_trace_of_an_unknown_id_is_a_clear_error(store_url: str) -> None:
    with Store.open(store_url) as store, pytest.raises(UnknownTraceError, match="'nope'"):
        store.get_trace("nope")


def test_spans_of_llm_only_traces_have_no_tool_name(store_url: str) -> None:
    trace = TraceBuilder("m1", input="hi").llm("hello").output("hello").build()
    with Store.open(store_url) as store:
        store.ingest([trace])
        [row] = store.list_traces()
        assert row.tool_names == ()
        assert isinstance(store.get_trace("m1").spans[0], Span)
