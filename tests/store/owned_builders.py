"""Rows a stored trace owns, written by hand into every table that can hold one, and the counts
the retention and deletion tests compare before and after."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from sqlalchemy import Engine, Table, func, insert, select

from tests.store.builders import shifted
from trailcheck.cases import Case, Dataset
from trailcheck.store import PendingLogEvent, PendingSpan, SpanConflict, Store, schema
from trailcheck.store.owned_rows import OWNED_TABLES
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Finding, Trace

# TraceBuilder's root span starts at 1_700_000_000 s.
ORIGIN_NS = 1_700_000_000 * 10**9
DAY_S = 86_400
DAY_NS = DAY_S * 10**9


def aged_trace(trace_id: str, day: int, **metadata: object) -> Trace:
    """A two-span trace that started ``day`` days after the origin, with ``metadata``."""
    trace = (
        TraceBuilder(trace_id, input=f"hello from {trace_id}")
        .tool("lookup_order", {"order_id": "A-1"}, result={"status": "delivered"})
        .output("Delivered.")
        .metadata(**metadata)
        .build()
    )
    return shifted(trace, day * DAY_S)


def add_dependents(store: Store, trace_id: str) -> None:
    """One row of every kind a stored trace may own beside its spans: a rule's finding, an
    online job, score and execution, a cluster membership (of a cluster of its own, without a
    case), a conflicting span version, a late pending span and log record, a quarantine and a
    rejection row."""
    store.add_findings(
        [
            Finding(
                trace_id=trace_id, label="slow", severity="low", reason="slow", source="rule:slow"
            )
        ]
    )
    now = ORIGIN_NS
    with store.engine.begin() as connection:
        job = {"name": "rule", "version": "v1", "trace_id": trace_id, "trace_ns": now}
        connection.execute(
            insert(schema.online_jobs),
            {**job, "due_ns": now, "state": "scored", "attempts": 1, "next_attempt_ns": now}
            | {"updated_ns": now},
        )
        connection.execute(
            insert(schema.online_scores),
            {**job, "passed": True, "reason": "ok", "scored_ns": now},
        )
        del job["trace_ns"]
        connection.execute(
            insert(schema.online_executions),
            {**job, "attempt": 1, "worker": "w", "kind": "rule", "outcome": "passed"}
            | {"started_ns": now, "duration_ns": 1, "input_digest": "d", "record": "{}"},
        )
        connection.execute(
            insert(schema.clusters),
            {
                "cluster_id": f"c-{trace_id}",
                "label": "slow",
                "signature": "s",
                "representative_trace_id": trace_id,
                "first_seen_ns": now,
                "last_seen_ns": now,
            },
        )
        connection.execute(
            insert(schema.cluster_members), {"cluster_id": f"c-{trace_id}", "trace_id": trace_id}
        )
        connection.execute(
            insert(schema.quarantined_traces),
            {"trace_id": trace_id, "reason": "late span", "quarantined_ns": now},
        )
        connection.execute(
            insert(schema.rejected_traces),
            {"trace_id": trace_id, "reason": "old", "span_count": 1, "rejected_ns": now},
        )
    store.add_pending(
        [PendingSpan(trace_id, "late", b"late", False, now)],
        [SpanConflict(trace_id, "s1", "digest", b"other", "stored", now)],
    )
    store.add_pending_logs([PendingLogEvent(trace_id, "late", "k", b"log", now)])


def lease_job(store: Store, trace_id: str) -> None:
    """An online job of ``trace_id`` a worker holds a lease on."""
    with store.engine.begin() as connection:
        connection.execute(
            insert(schema.online_jobs),
            {
                "name": "judge",
                "version": "v1",
                "trace_id": trace_id,
                "trace_ns": ORIGIN_NS,
                "due_ns": ORIGIN_NS,
                "state": "leased",
                "attempts": 1,
                "next_attempt_ns": ORIGIN_NS,
                "lease_owner": "w",
                "lease_expires_ns": ORIGIN_NS,
                "updated_ns": ORIGIN_NS,
            },
        )


def add_judge_label(store: Store, trace_id: str) -> None:
    """A person's calibration label on ``trace_id``."""
    with store.engine.begin() as connection:
        connection.execute(
            insert(schema.judge_labels),
            {"trace_id": trace_id, "passed": True, "labeller": "ana", "created_ns": ORIGIN_NS},
        )


def add_trial(store: Store, trace_id: str) -> None:
    """A stored run whose trial names ``trace_id``."""
    with store.engine.begin() as connection:
        connection.execute(
            insert(schema.runs), {"run_id": "run-1", "report": "{}", "created_ns": ORIGIN_NS}
        )
        connection.execute(
            insert(schema.trials),
            {
                "run_id": "run-1",
                "case_id": "c",
                "attempt": 1,
                "trace_id": trace_id,
                "status": "passed",
                "trial": "{}",
            },
        )


def link_case_cluster(store: Store, trace_ids: Sequence[str]) -> None:
    """A cluster of ``trace_ids`` a case was promoted from and approved."""
    with store.engine.begin() as connection:
        connection.execute(
            insert(schema.clusters),
            {
                "cluster_id": "approved",
                "label": "loop",
                "signature": "s",
                "representative_trace_id": trace_ids[0],
                "first_seen_ns": ORIGIN_NS,
                "last_seen_ns": ORIGIN_NS,
                "case_id": "loop-1",
                "approved_ns": ORIGIN_NS,
            },
        )
        connection.execute(
            insert(schema.cluster_members),
            [{"cluster_id": "approved", "trace_id": trace_id} for trace_id in trace_ids],
        )


def case(case_id: str, sources: Iterable[str], status: str = "candidate") -> Case:
    """A case citing ``sources``, under review ``status``."""
    reviewed = {"reviewed_by": "ana"} if status != "candidate" else {}
    return Case.model_validate(
        {
            "id": case_id,
            "input": "hello",
            "source_trace_ids": list(sources),
            "review_status": status,
            "expected_tools": ["lookup_order"] if status == "approved" else None,
            **reviewed,
        }
    )


def dataset(name: str, cases: Sequence[Case]) -> Dataset:
    return Dataset(name=name, cases=list(cases))


def rows_per_table(engine: Engine) -> dict[str, int]:
    """How many rows every table of the schema holds."""
    with engine.connect() as connection:
        return {
            table.name: connection.scalar(select(func.count()).select_from(table)) or 0
            for table in schema.metadata.sorted_tables
        }


def owned_rows_of(engine: Engine, trace_ids: Iterable[str]) -> Counter[str]:
    """How many rows of each owned table name one of ``trace_ids``."""
    wanted = list(trace_ids)
    counts: Counter[str] = Counter()
    with engine.connect() as connection:
        for table in OWNED_TABLES:
            counts[table.name] = _count(connection, table, wanted)
    return +counts


def _count(connection: object, table: Table, trace_ids: list[str]) -> int:
    query = select(func.count()).select_from(table).where(table.c.trace_id.in_(trace_ids))
    return int(connection.scalar(query) or 0)  # type: ignore[attr-defined]
