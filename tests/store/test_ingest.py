"""Ingest: whole or nothing, identical is a no-op, a different trace under a stored id refused."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Connection, func, select
from sqlalchemy.exc import OperationalError

from tests.store.builders import lookup_trace, refund_trace
from trailcheck.store import IngestSummary, Store, TraceFilter, canonical_content, schema
from trailcheck.store import ingest as ingest_module
from trailcheck.store.rows import TraceRows
from trailcheck.testing import TraceBuilder

pytestmark = pytest.mark.live


def _count(store: Store, table: schema.Table) -> int:
    with store.engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(table)) or 0


def test_ingest_stores_traces_whole_and_reads_them_back(store_url: str) -> None:
    traces = [refund_trace("t1"), lookup_trace("t2")]
    with Store.open(store_url) as store:
        summary = store.ingest(traces)
        assert (summary.stored, summary.unchanged, summary.conflicted) == (2, 0, 0)
        assert store.get_trace("t1") == traces[0]
        assert store.get_trace("t2") == traces[1]
        # Every span of both traces is a row: the root and its children.
        assert _count(store, schema.spans) == len(traces[0].spans) + len(traces[1].spans)
        [row] = store.list_traces(TraceFilter(tool="issue_refund"))
        assert row.trace_id == "t1"
        assert row.tool_names == ("lookup_order", "issue_refund")
        assert row.input_text == "Please refund order A-1"
        assert row.final_output == "Refunded."
        assert row.span_count == len(traces[0].spans)


def test_identical_trace_again_is_a_no_op(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1")])
        again = store.ingest([refund_trace("t1"), refund_trace("t1")])
        assert (again.stored, again.unchanged, again.conflicted) == (0, 2, 0)
        assert again.ok
        assert _count(store, schema.traces) == 1


def test_identical_content_in_another_key_order_is_a_no_op(store_url: str) -> None:
    first = TraceBuilder("t1", input="x").metadata(a=1, b=2).build()
    second = TraceBuilder("t1", input="x").metadata(b=2, a=1).build()
    assert canonical_content(first) == canonical_content(second)
    with Store.open(store_url) as store:
        store.ingest([first])
        assert store.ingest([second]).unchanged == 1


def test_different_trace_under_a_stored_id_is_refused(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1")])
        summary = store.ingest([refund_trace("t1", answer="Done!"), lookup_trace("t2")])
        assert (summary.stored, summary.unchanged, summary.conflicted) == (1, 0, 1)
        assert not summary.ok
        [conflict] = summary.conflicts
        assert conflict.trace_id == "t1"
        assert "trace 't1': refused: another trace with this id is already stored" in str(conflict)
        # The stored trace is untouched; the other trace of the batch is stored.
        assert store.get_trace("t1").final_output == "Refunded."
        assert store.get_trace("t2") == lookup_trace("t2")


def test_same_id_twice_in_one_input_conflicts_with_the_first(store_url: str) -> None:
    with Store.open(store_url) as store:
        summary = store.ingest([refund_trace("t1"), refund_trace("t1", answer="other")])
        assert (summary.stored, summary.conflicted) == (1, 1)
        assert store.get_trace("t1").final_output == "Refunded."


@pytest.mark.parametrize("batch_size", [1, 3, 500])
def test_counts_do_not_depend_on_the_batch_size(store_url: str, batch_size: int) -> None:
    offered = [refund_trace(f"t{i}") for i in range(7)]
    with Store.open(store_url) as store:
        store.ingest(offered[:2])
        summary = store.ingest(
            [*offered, refund_trace("t3", answer="changed")], batch_size=batch_size
        )
        assert (summary.stored, summary.unchanged, summary.conflicted) == (5, 2, 1)
        assert [trace.trace_id for trace in store.iter_traces()] == [
            f"t{i}" for i in [0, 1, 2, 3, 4, 5, 6]
        ]


def test_a_concurrent_writer_is_detected_and_nothing_is_half_stored(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer stores t1 (with other content) between the batch's look-up and its
    write: the batch rolls back whole and is redone trace by trace."""
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1", answer="theirs")])
        real = ingest_module._stored_hashes
        calls: list[int] = []

        def blind_once(connection: Connection, trace_ids: Sequence[str]) -> dict[str, str]:
            calls.append(len(trace_ids))
            return {} if len(calls) == 1 else real(connection, trace_ids)

        monkeypatch.setattr(ingest_module, "_stored_hashes", blind_once)
        summary = store.ingest([lookup_trace("t0"), refund_trace("t1"), lookup_trace("t2")])
        assert calls == [3, 1, 1, 1]
        assert (summary.stored, summary.unchanged, summary.conflicted) == (2, 0, 1)
        assert store.get_trace("t1").final_output == "theirs"
        assert _count(store, schema.traces) == 3
        spans = sum(len(store.get_trace(i).spans) for i in ("t0", "t1", "t2"))
        assert _count(store, schema.spans) == spans


class _DeadlockError(Exception):
    sqlstate = "40P01"  # as psycopg reports PostgreSQL's deadlock_detected


def test_a_batch_chosen_as_a_deadlock_victim_is_redone_trace_by_trace(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL aborts one of two writers whose overlapping batches wait on each other: the
    aborted batch is rolled back whole and its traces stored one per transaction."""
    with Store.open(store_url) as store:
        real = ingest_module.ingest_rows
        calls: list[int] = []

        def deadlocked_once(connection: Connection, batch: Sequence[TraceRows]) -> IngestSummary:
            calls.append(len(batch))
            if len(calls) == 1:
                raise OperationalError("INSERT ...", {}, _DeadlockError("deadlock detected"))
            return real(connection, batch)

        monkeypatch.setattr(ingest_module, "ingest_rows", deadlocked_once)
        summary = store.ingest([lookup_trace("t0"), refund_trace("t1"), lookup_trace("t2")])
        assert calls == [3, 1, 1, 1]
        assert summary.stored == 3
        assert _count(store, schema.traces) == 3


def test_another_database_error_is_not_taken_for_a_race(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(connection: Connection, batch: Sequence[TraceRows]) -> IngestSummary:
        raise OperationalError("INSERT ...", {}, Exception("disk full"))

    with Store.open(store_url) as store:
        monkeypatch.setattr(ingest_module, "ingest_rows", broken)
        with pytest.raises(OperationalError, match="disk full"):
            store.ingest([lookup_trace("t0"), lookup_trace("t1")])


def test_nul_characters_are_kept_in_content_and_replaced_in_listings(store_url: str) -> None:
    trace = TraceBuilder("t-nul", input="a\x00b").output("c\x00d").build()
    with Store.open(store_url) as store:
        assert store.ingest([trace]).stored == 1
        assert store.get_trace("t-nul") == trace
        [row] = store.list_traces()
        assert (row.input_text, row.final_output) == ("a\ufffdb", "c\ufffdd")


def test_two_writers_at_once_store_every_trace_once(store_url: str) -> None:
    """Two stores on one database ingest overlapping traces at the same time: every trace is
    stored once, and each offer is counted as stored by exactly one writer or unchanged."""
    traces = [lookup_trace(f"t{i:03d}") for i in range(120)]
    with Store.open(store_url) as first, Store.open(store_url) as second:
        with ThreadPoolExecutor(max_workers=2) as pool:
            a = pool.submit(first.ingest, traces, batch_size=7)
            b = pool.submit(second.ingest, list(reversed(traces)), batch_size=5)
            summaries = [a.result(), b.result()]
        assert sum(s.stored for s in summaries) == len(traces)
        assert sum(s.unchanged for s in summaries) == len(traces)
        assert all(s.ok for s in summaries)
        assert _count(first, schema.traces) == len(traces)
        assert _count(first, schema.spans) == sum(len(t.spans) for t in traces)
