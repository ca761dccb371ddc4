"""Keyset browsing of the store (trailcheck.store.browse) and its index (m007), on SQLite and
PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, inspect, text

from tests.ui.seed import DAY_NS, LABEL, TRACES, plain, seed_store
from trailcheck.store import MIGRATIONS, Store, TraceFilter
from trailcheck.store.browse import Cursor, browse_traces, label_days
from trailcheck.store.migrations import migrate


def _all_pages(store: Store, where: TraceFilter, limit: int) -> list[list[str]]:
    pages, after = [], None
    while True:
        page = browse_traces(store.engine, where, after=after, limit=limit)
        pages.append([summary.trace_id for summary in page.traces])
        if page.next_cursor is None:
            return pages
        after = page.next_cursor


def _at(ns: int) -> datetime:
    """The moment ``ns`` (whole seconds) since the epoch."""
    return datetime.fromtimestamp(ns // 10**9, tz=UTC)


def _newest_first() -> list[str]:
    def key(trace_id: str) -> tuple[int, str]:
        trace = next(t for t in TRACES if t.trace_id == trace_id)
        return min(span.start_ns for span in trace.spans), trace_id

    return sorted((t.trace_id for t in TRACES), key=key, reverse=True)


@pytest.mark.parametrize("limit", [1, 2, 4, 6, 50])
def test_pages_follow_on_without_gaps_or_repeats(store_url: str, limit: int) -> None:
    with Store.open(store_url) as store:
        seed_store(store)
        pages = _all_pages(store, TraceFilter(), limit)
    assert [trace_id for page in pages for trace_id in page] == _newest_first()
    assert all(len(page) == limit for page in pages[:-1])
    assert len(pages) == -(-len(TRACES) // limit)


def test_each_filter_keeps_only_its_traces(store_url: str) -> None:
    day0 = min(s.start_ns for s in TRACES[0].spans)
    expected = {
        TraceFilter(label=LABEL): {"t-refund-1", "t-refund-2"},
        TraceFilter(tool="store_hours"): {"t-hours-1", "t-hours-2", "t-hours-3"},
        TraceFilter(session="s-refunds"): {"t-refund-1", "t-refund-2"},
        TraceFilter(status="error"): {"t-hostile"},
        TraceFilter(status="ok"): {t.trace_id for t in TRACES} - {"t-hostile"},
        TraceFilter(since=_at(day0 + DAY_NS), until=_at(day0 + 2 * DAY_NS)): {
            "t-refund-2",
            "t-hostile",
        },
        TraceFilter(text="OPENING hours"): {"t-hours-1", "t-hours-2", "t-hours-3"},
        TraceFilter(text="t-refund-2"): {"t-refund-2"},
        TraceFilter(label=LABEL, since=_at(day0 + DAY_NS)): {"t-refund-2"},
        TraceFilter(tool="no_such_tool"): set(),
    }
    with Store.open(store_url) as store:
        seed_store(store)
        for where, wanted in expected.items():
            found = browse_traces(store.engine, where, limit=50)
            assert {summary.trace_id for summary in found.traces} == wanted, where
            assert found.next_cursor is None


def test_text_search_takes_wildcards_literally(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([plain("percent", 0).model_copy(update={"input": "100% sure_thing"})])
        store.ingest([plain("other", 0)])
        for query, wanted in (("100%", {"percent"}), ("e_t", {"percent"}), ("%", {"percent"})):
            found = browse_traces(store.engine, TraceFilter(text=query))
            assert {s.trace_id for s in found.traces} == wanted, query
        assert browse_traces(store.engine, TraceFilter(text="_x_")).traces == []


def test_a_page_carries_the_labels_of_its_traces(store_url: str) -> None:
    with Store.open(store_url) as store:
        seed_store(store)
        page = browse_traces(store.engine, TraceFilter(session="s-refunds"))
    assert [s.labels for s in page.traces] == [(LABEL,), (LABEL,)]


def test_cursor_text_round_trips_and_rejects_junk() -> None:
    cursor = Cursor(1_700_000_000_000_000_000, "a:b/c")
    assert Cursor.parse(cursor.text()) == cursor
    for junk in ("", "12", "x:id", "12:"):
        assert Cursor.parse(junk) is None


def test_label_days_counts_traces_per_utc_day(store_url: str) -> None:
    with Store.open(store_url) as store:
        seed_store(store)
        days = label_days(store.engine)
    assert [(d.label, d.traces) for d in days] == [(LABEL, 1), (LABEL, 1)]
    assert days[1].day_start_ns - days[0].day_start_ns == DAY_NS
    assert all(d.day_start_ns % DAY_NS == 0 for d in days)


def test_m007_adds_the_browse_index_to_a_store_that_has_traces(store_url: str) -> None:
    engine = create_engine(store_url)
    try:
        names = [migration.name for migration in MIGRATIONS]
        m007 = names.index("m007_trace_browse_order")
        assert migrate(engine, MIGRATIONS[:m007])[-1] == "m006_quarantined_traces"
        with Store(engine) as store:
            assert store.migrations_applied == names[m007:]  # m007 and what came after it
            seed_store(store)
            with engine.connect() as connection:
                names = {index["name"] for index in inspect(connection).get_indexes("traces")}
                assert "ix_traces_start_key" in names
                plan = _plan(connection, store)
            assert "ix_traces_start_key" in plan
            assert len(browse_traces(engine, TraceFilter()).traces) == len(TRACES)
    finally:
        engine.dispose()


def _plan(connection: object, store: Store) -> str:
    """How the backend runs the list's query: the index must serve its order."""
    from sqlalchemy import Connection, select

    from trailcheck.store import schema

    assert isinstance(connection, Connection)
    traces = schema.traces
    query = (
        select(traces.c.trace_id)
        .order_by(traces.c.start_key.desc(), traces.c.trace_id.desc())
        .limit(5)
        .compile(store.engine, compile_kwargs={"literal_binds": True})
    )
    if connection.dialect.name == "postgresql":
        connection.execute(text("SET enable_seqscan = off"))
        rows = connection.execute(text(f"EXPLAIN {query}")).all()
        return "\n".join(row[0] for row in rows)
    rows = connection.execute(text(f"EXPLAIN QUERY PLAN {query}")).all()
    return "\n".join(str(row[-1]) for row in rows)


@pytest.mark.parametrize("window", [1, 2, 3, 5])
def test_a_row_filter_searches_a_bounded_window_and_goes_on_from_it(
    store_url: str, window: int
) -> None:
    where = TraceFilter(tool="store_hours")
    with Store.open(store_url) as store:
        seed_store(store)
        found: list[str] = []
        after, requests = None, 0
        while True:
            page = browse_traces(store.engine, where, after=after, limit=2, window=window)
            requests += 1
            found += [summary.trace_id for summary in page.traces]
            assert len(page.traces) <= 2
            if page.searched_to is not None:
                assert page.next_cursor == page.searched_to
            if page.next_cursor is None:
                break
            after = page.next_cursor
    assert found == ["t-hours-3", "t-hours-2", "t-hours-1"]
    if window == 1:  # one trace searched per request, and one to find nothing is left
        assert requests == len(TRACES) + 1


def test_a_window_that_ends_short_says_how_far_it_searched(store_url: str) -> None:
    newest = _newest_first()  # hours-3, hours-2, refund-2, hostile, refund-1, hours-1
    where = TraceFilter(label=LABEL)
    with Store.open(store_url) as store:
        seed_store(store)
        first = browse_traces(store.engine, where, limit=50, window=2)
        second = browse_traces(store.engine, where, after=first.searched_to, limit=50, window=3)
        last = browse_traces(store.engine, where, after=second.searched_to, limit=50, window=3)
    assert first.traces == []
    assert first.searched_to is not None
    assert first.searched_to.trace_id == newest[1]
    assert [s.trace_id for s in second.traces] == ["t-refund-2", "t-refund-1"]
    assert second.searched_to is not None
    assert second.searched_to.trace_id == newest[4]
    assert last.traces == []
    assert (last.searched_to, last.next_cursor) == (None, None)


def test_a_session_or_no_filter_is_not_windowed(store_url: str) -> None:
    with Store.open(store_url) as store:
        seed_store(store)
        for where in (TraceFilter(), TraceFilter(session="s-refunds", label=LABEL)):
            page = browse_traces(store.engine, where, limit=50, window=1)
            assert page.searched_to is None
            assert page.traces
