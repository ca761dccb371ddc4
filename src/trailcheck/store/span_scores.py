"""The component calls' scores kept on their spans' rows: read back by period, and computed for
the spans of traces stored before the store kept them (the backfill).

Ingest writes each span's score with its row (:mod:`trailcheck.store.rows`), in the
transaction that stores the trace, so a stored trace has all of its scores or, stored before
``m010_span_scores``, none. Reading pages on (span start, trace id, span id) over the scored
spans (the partial index ``ix_spans_scored``), one short query per page, as the trace stream
pages on ``seq`` (:mod:`trailcheck.store.reading`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

import orjson
from sqlalchemy import Engine, and_, bindparam, exists, select, tuple_, update

from trailcheck.components import SpanScore, score_spans
from trailcheck.store import schema
from trailcheck.store.backends import read_only
from trailcheck.store.rows import score_columns
from trailcheck.trace import Trace

__all__ = ["Backfill", "backfill_span_scores", "iter_span_scores"]

_spans = schema.spans
_PAGE: Final = 5_000
# The kinds of span that are component calls whenever they appear (a sub-agent is one only
# under another agent): a trace with one of them unscored was stored before m010.
_SCORED_KINDS: Final = ("tool", "llm", "retriever")


def _score(row: Any) -> SpanScore:
    return SpanScore(
        trace_id=row.trace_id,
        span_id=row.span_id,
        kind=row.kind,
        component=row.component,
        start_ns=row.start_ns,
        latency_ms=row.latency_ms,
        outcome=row.outcome,
        error_kind=row.error_kind,
        # A value JSON could not hold (an infinite cost) was written as null: not a measurement.
        values={k: v for k, v in orjson.loads(row.scores).items() if v is not None},
        reason=row.reason,
    )


def iter_span_scores(
    engine: Engine,
    *,
    since_ns: int | None = None,
    until_ns: int | None = None,
    batch_size: int = _PAGE,
) -> Iterator[SpanScore]:
    """The stored span scores whose span started in ``[since_ns, until_ns)`` (either end open
    when ``None``), in start order, ``batch_size`` rows per query."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    key = tuple_(_spans.c.start_ns, _spans.c.trace_id, _spans.c.span_id)
    columns = [
        _spans.c[name]
        for name in (
            "trace_id",
            "span_id",
            "kind",
            "component",
            "start_ns",
            "latency_ms",
            "outcome",
            "error_kind",
            "scores",
            "reason",
        )
    ]
    position: tuple[int, str, str] | None = None
    while True:
        query = select(*columns).where(_spans.c.outcome.is_not(None))
        if since_ns is not None:
            query = query.where(_spans.c.start_ns >= since_ns)
        if until_ns is not None:
            query = query.where(_spans.c.start_ns < until_ns)
        if position is not None:
            query = query.where(key > tuple_(*position))
        query = query.order_by(_spans.c.start_ns, _spans.c.trace_id, _spans.c.span_id)
        with read_only(engine) as connection:
            page = connection.execute(query.limit(batch_size)).all()
        for row in page:
            yield _score(row)
        if len(page) < batch_size:
            return
        last = page[-1]
        position = (last.start_ns, last.trace_id, last.span_id)


@dataclass
class Backfill:
    """What a backfill did: traces scored, and spans given a score."""

    traces: int = 0
    spans: int = 0


def _unscored_page(engine: Engine, after: int, limit: int) -> list[Any]:
    traces = schema.traces
    unscored = exists().where(
        and_(
            _spans.c.trace_id == traces.c.trace_id,
            _spans.c.kind.in_(_SCORED_KINDS),
            _spans.c.outcome.is_(None),
        )
    )
    query = (
        select(traces.c.seq, traces.c.content)
        .where(traces.c.seq > after, unscored)
        .order_by(traces.c.seq)
        .limit(limit)
    )
    with read_only(engine) as connection:
        return list(connection.execute(query).all())


def backfill_span_scores(engine: Engine, *, batch_size: int = 200) -> Backfill:
    """Score the spans of every stored trace with a tool, model or retriever span that has no
    score (see the module), ``batch_size`` traces per transaction. Scores are computed from the
    trace alone, so a backfill running beside another writes what it writes: the same values."""
    done = Backfill()
    position = 0
    statement = (
        update(_spans)
        .where(
            _spans.c.trace_id == bindparam("key_trace"),
            _spans.c.span_id == bindparam("key_span"),
        )
        .values({name: bindparam(name) for name in score_columns(None)})
    )
    while page := _unscored_page(engine, position, batch_size):
        position = page[-1].seq
        rows = [
            {"key_trace": score.trace_id, "key_span": score.span_id, **score_columns(score)}
            for _, content in page
            for score in score_spans(Trace.model_validate_json(content))
        ]
        if rows:
            with engine.begin() as connection:
                connection.execute(statement, rows)
        done.traces += len(page)
        done.spans += len(rows)
    return done
