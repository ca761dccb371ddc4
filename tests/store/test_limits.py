"""The store's integer limits (trailcheck.store.limits): every integer it writes is checked
against what both backends hold, a trace naming its span and field; ingest refuses such a
trace whole and stores the rest; ``trailcheck ingest`` of a poisoned value answers with the
file, line and field, exit 1, and no traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import insert

from tests.store.builders import lookup_trace, refund_trace
from trailcheck.cli import run_cli
from trailcheck.store import PendingSpan, Store, StoreLimitError, schema
from trailcheck.store.limits import INT32_MAX, INT64_MAX, INT64_MIN, check_trace
from trailcheck.store.rows import trace_rows
from trailcheck.trace import Span, SpanEvent, Trace, Usage
from trailcheck.trace.jsonl import dump_trace

POISON = 2**63  # a legal OTLP uint64 time, one past what the store holds


def _with_span(trace: Trace, index: int, **update: Any) -> Trace:
    """``trace`` with span ``index`` changed, bypassing nothing: the model accepts it."""
    spans = list(trace.spans)
    spans[index] = spans[index].model_copy(update=update)
    return trace.model_copy(update={"spans": spans})


@pytest.mark.parametrize(
    ("poisoned", "field"),
    [
        (lambda t: _with_span(t, 0, end_ns=POISON), "spans[0].end_ns"),
        (lambda t: _with_span(t, 1, start_ns=POISON, end_ns=POISON), "spans[1].start_ns"),
        (
            lambda t: _with_span(t, 0, events=[SpanEvent(name="retry", time_ns=INT64_MIN - 1)]),
            "spans[0].events[0].time_ns",
        ),
        (
            lambda t: _with_span(
                t, 1, tool=t.spans[1].tool.model_copy(update={"sequence": POISON})
            ),
            "spans[1].tool.sequence",
        ),
        (
            lambda t: _with_span(
                t, 2, llm=t.spans[2].llm.model_copy(update={"usage": Usage(output_tokens=POISON)})
            ),
            "spans[2].llm.usage.output_tokens",
        ),
        (
            lambda t: t.model_copy(update={"usage": Usage(input_tokens=POISON)}),
            "usage.input_tokens",
        ),
    ],
)
def test_a_trace_names_the_span_and_field_the_store_cannot_hold(poisoned: Any, field: str) -> None:
    trace = poisoned(refund_trace("t1"))
    with pytest.raises(StoreLimitError) as caught:
        check_trace(trace)
    assert caught.value.field == field
    assert f"field {field!r}" in str(caught.value)
    assert "trace 't1' cannot be stored" in str(caught.value)
    assert "is beyond what trailcheck can store: a signed 64-bit integer, from" in str(caught.value)


def test_ingest_refuses_the_poisoned_trace_whole_and_stores_the_rest(store_url: str) -> None:
    poisoned = _with_span(refund_trace("bad"), 0, end_ns=POISON)
    big_attribute = _with_span(lookup_trace("huge"), 0, attributes={"n": 2**64})
    edge = _with_span(lookup_trace("edge"), 0, end_ns=INT64_MAX)
    with Store.open(store_url) as store:
        summary = store.ingest([lookup_trace("t1"), poisoned, big_attribute, edge])
        assert (summary.stored, summary.ok, summary.offered) == (2, False, 4)
        [first, second] = summary.refused
        assert (first.span_id, first.field) == (poisoned.spans[0].span_id, "spans[0].end_ns")
        assert "trace 'huge'" in str(second)
        assert "cannot be stored as JSON" in str(second)
        assert [row.trace_id for row in store.list_traces()] == ["t1", "edge"]
        # The largest value both backends hold comes back exactly.
        assert store.get_trace("edge").spans[0].end_ns == INT64_MAX
        assert store.list_traces()[1].ended_ns == INT64_MAX


def test_every_integer_column_is_checked_before_the_database_sees_it(store_url: str) -> None:
    """Whatever writes it: not a driver's OverflowError, nor PostgreSQL's out-of-range error,
    and nothing of the write is kept."""
    with Store.open(store_url) as store:
        good = PendingSpan("t1", "s1", b"one", False, 1)
        with pytest.raises(StoreLimitError, match="9223372036854775808 is beyond what the store"):
            store.add_pending([good, PendingSpan("t1", "s2", b"two", False, POISON)])
        assert store.pending_payloads("t1") == []
        # A span count beyond PostgreSQL's integer, which SQLite alone would take.
        row = {**trace_rows(lookup_trace("many"), 1).trace, "span_count": INT32_MAX + 1}
        with (
            pytest.raises(StoreLimitError, match="a signed 32-bit integer"),
            store.engine.begin() as connection,
        ):
            connection.execute(insert(schema.traces), row)
        assert store.list_traces() == []


def _otlp_json_line(trace_id: str, end: int) -> bytes:
    span = {
        "traceId": trace_id,
        "spanId": "b7ad6b7169203331",
        "name": "invoke_agent support",
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": str(end),
    }
    return orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + b"\n"


GOOD_ID = "0af7651916cd43dd8448eb211c80319c"
POISON_ID = "5b8efff798038103d269b633813fc60c"


def test_ingest_of_a_poisoned_otlp_file_names_file_line_and_field(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "spans.otlp.jsonl"
    source.write_bytes(_otlp_json_line(GOOD_ID, 9000) + _otlp_json_line(POISON_ID, POISON))
    assert run_cli(["ingest", str(source), "--db", store_url]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{source}:2" in err
    assert "field 'resourceSpans[0].scopeSpans[0].spans[0].endTimeUnixNano'" in err
    assert "9223372036854775808 is later than trailcheck can store" in err
    assert "1 trace imported" in err
    with Store.open(store_url) as store:
        assert [row.trace_id for row in store.list_traces()] == [GOOD_ID]


def test_ingest_of_a_poisoned_span_jsonl_line_names_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = {"trace_id": "t9", "span_id": "s1", "name": "run", "start_ns": 1, "end_ns": POISON}
    source = tmp_path / "spans.jsonl"
    source.write_bytes(orjson.dumps(line) + b"\n")
    db = f"sqlite:///{tmp_path / 's.db'}"
    assert run_cli(["ingest", str(source), "--db", db, "--format", "spans"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{source}:1: span 's1': field 'spans[0].end_ns'" in err
    assert "9223372036854775808 is beyond what trailcheck can store" in err


def test_ingest_of_a_poisoned_trailcheck_jsonl_trace_names_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    poisoned = _with_span(refund_trace("bad"), 2, end_ns=POISON)
    source = tmp_path / "traces.jsonl"
    source.write_bytes(dump_trace(lookup_trace("t1")) + b"\n" + dump_trace(poisoned) + b"\n")
    db = f"sqlite:///{tmp_path / 's.db'}"
    assert run_cli(["ingest", str(source), "--db", db]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    span = poisoned.spans[2].span_id
    assert f"rejected: {source}:2: span {span!r}: field 'spans[2].end_ns'" in err
    assert "→ 1 trace imported, 0 unchanged, 0 conflicts, 1 rejected" in err
    with Store.open(db) as store:
        assert [row.trace_id for row in store.list_traces()] == ["t1"]


def test_a_span_at_the_limit_is_a_valid_trace() -> None:
    span = Span(trace_id="t", span_id="s", name="x", start_ns=INT64_MAX, end_ns=INT64_MAX)
    check_trace(Trace(trace_id="t", spans=[span]))
