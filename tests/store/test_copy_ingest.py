"""Bulk ingest with PostgreSQL's COPY stores the rows INSERT stores, with the same outcomes;
``trailcheck ingest`` writes with it on PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select, text

from tests.store.builders import lookup_trace, refund_trace
from trailcheck.cli import run_cli
from trailcheck.store import Store, schema
from trailcheck.store import ingest as ingest_module
from trailcheck.store.ingest import ingest_traces
from trailcheck.store.limits import StoreLimitError
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace

CLOCK = 1_780_000_000_000_000_000


def _traces() -> list[Trace]:
    odd = TraceBuilder("odd\ttab", input="a\\back\nslash and a tab\t, a quote ' \" and é")
    odd.tool("lookup_order", {"order_id": "A-\n1"}, result={"note": "NULL \\N"})
    return [
        *(refund_trace(f"r{n}") for n in range(7)),
        *(lookup_trace(f"l{n}") for n in range(5)),
        odd.output(None).metadata(session_id="s-1").build(),
        TraceBuilder("empty", input="nothing happened").build(),
    ]


def _rows(engine: Engine) -> tuple[list[Any], list[Any]]:
    with engine.connect() as connection:
        traces = connection.execute(select(schema.traces).order_by(schema.traces.c.seq)).all()
        spans = connection.execute(
            select(schema.spans).order_by(schema.spans.c.trace_id, schema.spans.c.span_id)
        ).all()
    # Every column, seq (the ingest order) and the generated ones included.
    return [tuple(row) for row in traces], [tuple(row) for row in spans]


def _empty(engine: Engine) -> None:
    with engine.begin() as connection:
        connection.execute(text("TRUNCATE traces, spans RESTART IDENTITY CASCADE"))


def test_copy_stores_the_rows_insert_stores(store_url: str) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("COPY is PostgreSQL's (SQLite refuses it: the next test)")
    with Store.open(store_url) as store:
        inserted = ingest_traces(store.engine, _traces(), batch_size=5, clock=lambda: CLOCK)
        expected = _rows(store.engine)
        _empty(store.engine)
        copied = ingest_traces(
            store.engine, _traces(), batch_size=5, clock=lambda: CLOCK, copy=True
        )
        assert _rows(store.engine) == expected
        assert (copied.stored, copied.unchanged) == (inserted.stored, inserted.unchanged) == (14, 0)
        assert store.get_trace("odd\ttab") == _traces()[12]
        # Not vacuous: the rows are there, the span rows too, in the order ingested.
        trace_rows, span_rows = expected
        assert [row[:2] for row in trace_rows][:3] == [(1, "r0"), (2, "r1"), (3, "r2")]
        assert len(span_rows) == sum(len(trace.spans) for trace in _traces())


def test_copy_keeps_the_ingest_outcomes_no_ops_and_conflicts(store_url: str) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("COPY is PostgreSQL's")
    with Store.open(store_url) as store:
        ingest_traces(store.engine, [refund_trace("t1")], copy=True)
        changed = TraceBuilder("t2", input="x").output("y").build()
        again = ingest_traces(
            store.engine,
            [refund_trace("t1"), changed, changed.model_copy(update={"final_output": "z"})],
            copy=True,
        )
        assert (again.stored, again.unchanged, again.conflicted) == (1, 1, 1)
        assert "'t2': refused" in again.conflicts[0].message


def test_copy_of_a_taken_key_is_sqlalchemys_integrity_error_and_rolls_back(
    store_url: str,
) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("COPY is PostgreSQL's")
    from sqlalchemy.exc import IntegrityError

    from trailcheck.store.copy_rows import copy_rows
    from trailcheck.store.rows import trace_rows

    rows = trace_rows(refund_trace("t1"), CLOCK)
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1")])
        with pytest.raises(IntegrityError), store.engine.begin() as connection:
            copy_rows(connection, schema.traces, [rows.trace])
        assert len(_rows(store.engine)[0]) == 1


def test_copy_checks_integers_as_insert_does(store_url: str) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("COPY is PostgreSQL's")
    from trailcheck.store.copy_rows import copy_rows
    from trailcheck.store.rows import trace_rows

    row = dict(trace_rows(refund_trace("t1"), CLOCK).trace, span_count=2**31)
    with (
        Store.open(store_url) as store,
        pytest.raises(StoreLimitError),
        store.engine.begin() as connection,
    ):
        copy_rows(connection, schema.traces, [row])


def test_copy_is_refused_off_postgresql(store_url: str) -> None:
    if not store_url.startswith("sqlite"):
        pytest.skip("PostgreSQL has COPY")
    with Store.open(store_url) as store, pytest.raises(ValueError, match="COPY is PostgreSQL's"):
        ingest_traces(store.engine, [refund_trace("t1")], copy=True)


def test_the_ingest_command_copies_into_postgresql_and_inserts_into_sqlite(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writers: list[str] = []
    copy = ingest_module.copy_rows

    def counted(*args: Any) -> Any:
        writers.append("copy_rows")
        return copy(*args)

    monkeypatch.setattr(ingest_module, "copy_rows", counted)
    path = tmp_path / "traces.jsonl"
    path.write_bytes(b"".join(dump_trace(trace) + b"\n" for trace in _traces()))
    assert run_cli(["ingest", str(path), "--db", store_url]) == 0
    if store_url.startswith("postgresql"):
        assert writers == ["copy_rows", "copy_rows"]  # the batch's traces, then its spans
    else:
        assert writers == []  # SQLite's INSERT is ingest_rows's own default
    with Store.open(store_url) as store:
        assert [row.trace_id for row in store.list_traces()] == [t.trace_id for t in _traces()]
