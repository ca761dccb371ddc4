"""Span scores kept with their spans: written with the trace at ingest (and on completing a
pending trace), read back by period, and backfilled for traces stored without them; on both
backends."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, func, insert, select, update

from tests.components.builders import multi_agent_trace
from tests.store.builders import refund_trace
from trailcheck.components import component_rates, score_spans
from trailcheck.store import MIGRATIONS, Store, schema
from trailcheck.store.backends import create_store_engine, resolve_db_url
from trailcheck.store.migrations import migrate
from trailcheck.store.rows import trace_rows
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

pytestmark = pytest.mark.live

DAY = 24 * 3600 * 10**9
WEEK = 7 * DAY


def _scored(store: Store) -> int:
    spans = schema.spans
    with store.engine.connect() as connection:
        query = select(func.count()).select_from(spans).where(spans.c.outcome.is_not(None))
        return connection.scalar(query) or 0


def test_ingest_stores_each_component_calls_score_with_the_trace(store_url: str) -> None:
    trace = multi_agent_trace("t1")
    with Store.open(store_url) as store:
        assert store.ingest([trace]).stored == 1
        stored = list(store.span_scores())
        assert stored == sorted(score_spans(trace), key=lambda s: (s.start_ns, s.span_id))
        refund = next(s for s in stored if s.span_id == "refund-1")
        assert (refund.component, refund.outcome, refund.error_kind) == (
            "issue_refund",
            "error",
            "RefundError",
        )
        assert refund.values == {"arguments_valid": 1.0}
        # An identical trace again is a no-op; a conflicting one is refused: rows unchanged.
        assert store.ingest([trace]).unchanged == 1
        assert store.ingest([multi_agent_trace("t1", refund_output={"x": 1})]).conflicted == 1
        assert list(store.span_scores()) == stored


def test_completing_a_pending_trace_stores_its_span_scores(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.complete_pending_traces([refund_trace("p1")])
        assert [s.component for s in store.span_scores()] == [
            "lookup_order",
            "scripted",
            "issue_refund",
        ]


def _week(trace_id: str, week: int, *, refund_fails: bool) -> Trace:
    builder = TraceBuilder(trace_id, start_ns=week * WEEK + DAY).tool(
        "lookup_order", {"order_id": "A-1"}, result={}
    )
    if refund_fails:
        builder = builder.tool("issue_refund", {"order_id": "A-1"}, error="TimeoutError: 30s")
    else:
        builder = builder.tool("issue_refund", {"order_id": "A-1"}, result={"ok": True})
    return builder.build()


def test_which_tool_degraded_this_week_is_a_query(store_url: str) -> None:
    now_week = 2900
    last = [_week(f"last-{i}", now_week - 1, refund_fails=i == 0) for i in range(10)]
    this = [_week(f"this-{i}", now_week, refund_fails=i < 6) for i in range(10)]
    with Store.open(store_url) as store:
        store.ingest([*last, *this])

        def rates(since: int, until: int) -> dict[str, float | None]:
            found = component_rates(store.span_scores(since_ns=since, until_ns=until))
            return {rate.component: rate.success_rate for rate in found.components}

        before = rates((now_week - 1) * WEEK, now_week * WEEK)
        after = rates(now_week * WEEK, (now_week + 1) * WEEK)
    assert before == {"lookup_order": 1.0, "issue_refund": 0.9}
    assert after == {"lookup_order": 1.0, "issue_refund": 0.4}
    degraded = [name for name in after if (after[name] or 0) < (before[name] or 0)]
    assert degraded == ["issue_refund"]


def test_the_backfill_scores_traces_stored_without_span_scores(store_url: str) -> None:
    traces = [multi_agent_trace("t1"), refund_trace("t2"), Trace(trace_id="t3", input="hi")]
    with Store.open(store_url) as store:
        store.ingest(traces)
        written = list(store.span_scores())
        with store.engine.begin() as connection:  # as a store ingested before m010 holds them
            connection.execute(update(schema.spans).values(outcome=None, scores=None))
        assert list(store.span_scores()) == []
        done = store.backfill_span_scores()
        assert (done.traces, done.spans) == (2, len(written))  # t3 has no span to score
        assert list(store.span_scores()) == written
        again = store.backfill_span_scores()
        assert (again.traces, again.spans) == (0, 0)
        assert _scored(store) == len(written)


def test_a_deleted_trace_takes_its_span_scores_with_it(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1"), refund_trace("t2")])
        with store.engine.begin() as connection:
            connection.execute(delete(schema.spans).where(schema.spans.c.trace_id == "t1"))
            connection.execute(delete(schema.traces).where(schema.traces.c.trace_id == "t1"))
        assert {s.trace_id for s in store.span_scores()} == {"t2"}


def test_a_store_from_before_m010_upgrades_and_its_traces_are_backfilled(store_url: str) -> None:
    engine = create_store_engine(resolve_db_url(store_url))
    try:
        assert migrate(engine, MIGRATIONS[:9])[-1] == "m009_online_scoring"
        rows = trace_rows(refund_trace("old"), 1)
        with engine.begin() as connection:  # as m009's store wrote it: no score columns
            connection.execute(insert(schema.traces), [rows.trace])
            columns = ("component", "outcome", "latency_ms", "error_kind", "scores", "reason")
            old = [{k: v for k, v in span.items() if k not in columns} for span in rows.spans]
            connection.execute(insert(schema.spans), old)
    finally:
        engine.dispose()
    with Store.open(store_url) as store:
        assert store.migrations_applied[0] == "m010_span_scores"
        assert list(store.span_scores()) == []
        assert store.backfill_span_scores().spans == 3
        assert [s.component for s in store.span_scores()] == [
            "lookup_order",
            "scripted",
            "issue_refund",
        ]


def test_a_bulk_ingest_stores_the_same_scores(store_url: str) -> None:
    # On PostgreSQL a bulk ingest writes with COPY: the score columns go through it too.
    with Store.open(store_url) as store:
        store.ingest([multi_agent_trace("t1")], bulk=True)
        assert list(store.span_scores()) == sorted(
            score_spans(multi_agent_trace("t1")), key=lambda s: (s.start_ns, s.span_id)
        )
