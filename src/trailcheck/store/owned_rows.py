"""Every row a stored trace owns, table by table: what a prune or a deletion on request removes
with the trace, counted or deleted for a set of trace ids in the caller's transaction.

A trace owns its ``traces`` row and every row that names it by ``trace_id`` and exists because
of it: its spans (with their component scores), findings (rule and human labels), notes, judge
labels, cluster memberships, online jobs, scores and executions, and what the OTLP endpoint
still holds under its id (pending spans and log records, conflicting versions, the quarantine
and rejection rows). Its session is a column of its ``traces`` row, not a table of its own.

Not owned, and so never deleted here: ``trials`` (a run's record of its trials; a trace a run
references is kept by a prune, and a run's report is the run's, not the trace's), the dataset
tables (a case keeps its redacted copy of what it cites), ``pending_origins`` (resources shared
by many spans; the sweep drops the unused ones), the online worker's evaluators, cursors, holes
and alerts (none names a trace), and the log of deletions itself.

A cluster loses the members deleted; once a prune or deletion is done, one left with no member
and no case promoted from it is deleted (counted under ``clusters``), and one whose
representative went is represented by its first remaining member, so ``trailcheck promote``
never names a deleted trace (:func:`tidy_clusters`). A cluster a case was promoted from keeps
its row, members or not: its link to the case is the case's history.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

from sqlalchemy import Connection, Table, delete, exists, func, select, update

from trailcheck.store import schema
from trailcheck.store.id_lists import among_ids, bound_ids

__all__ = [
    "NOT_OWNED_TABLES",
    "OWNED_TABLES",
    "count_emptied_clusters",
    "count_owned_rows",
    "delete_owned_rows",
    "tidy_clusters",
]

# Children before the traces row, so a backend without ON DELETE CASCADE deletes the same.
OWNED_TABLES: Final[tuple[Table, ...]] = (
    schema.spans,
    schema.findings,
    schema.notes,
    schema.judge_labels,
    schema.cluster_members,
    schema.online_jobs,
    schema.online_scores,
    schema.online_executions,
    schema.span_conflicts,
    schema.pending_spans,
    schema.pending_log_events,
    schema.quarantined_traces,
    schema.rejected_traces,
    schema.traces,
)

# The tables that hold no row a trace owns (see the module docstring); a test checks that
# every table of the schema is in one list or the other.
NOT_OWNED_TABLES: Final[tuple[Table, ...]] = (
    schema.migrations_table,
    schema.clusters,
    schema.dataset_versions,
    schema.cases,
    schema.runs,
    schema.trials,
    schema.pending_origins,
    schema.online_evaluators,
    schema.online_cursors,
    schema.online_holes,
    schema.online_alerts,
    schema.deletions,
)


def count_owned_rows(connection: Connection, trace_ids: Sequence[str]) -> dict[str, int]:
    """How many rows of each owned table the traces ``trace_ids`` own (a dry run's answer),
    tables with none left out."""
    counts: dict[str, int] = {}
    if not trace_ids:
        return counts
    ids = bound_ids(connection, trace_ids)
    for table in OWNED_TABLES:
        query = select(func.count()).select_from(table)
        if found := connection.scalar(query.where(among_ids(connection, table.c.trace_id)), ids):
            counts[str(table.name)] = found
    return counts


def delete_owned_rows(connection: Connection, trace_ids: Sequence[str]) -> dict[str, int]:
    """Delete every row the traces ``trace_ids`` own, each table by its index on the trace id;
    how many rows went per table, tables with none left out. Their clusters are tidied
    afterwards, once (:func:`tidy_clusters`)."""
    counts: dict[str, int] = {}
    if not trace_ids:
        return counts
    ids = bound_ids(connection, trace_ids)
    for table in OWNED_TABLES:
        statement = delete(table).where(among_ids(connection, table.c.trace_id))
        if deleted := connection.execute(statement, ids).rowcount:
            counts[str(table.name)] = deleted
    return counts


def tidy_clusters(connection: Connection) -> int:
    """After members were deleted: delete the clusters left with no member and no case, and
    give a cluster whose representative went its first remaining member; how many clusters were
    deleted."""
    clusters, members = schema.clusters, schema.cluster_members
    any_member = exists(
        select(members.c.trace_id).where(members.c.cluster_id == clusters.c.cluster_id)
    )
    deleted = connection.execute(
        delete(clusters).where(clusters.c.case_id.is_(None)).where(~any_member)
    ).rowcount
    represented = exists(
        select(members.c.trace_id)
        .where(members.c.cluster_id == clusters.c.cluster_id)
        .where(members.c.trace_id == clusters.c.representative_trace_id)
    )
    first = (
        select(func.min(members.c.trace_id))
        .where(members.c.cluster_id == clusters.c.cluster_id)
        .scalar_subquery()
    )
    connection.execute(
        update(clusters).where(any_member).where(~represented).values(representative_trace_id=first)
    )
    return deleted


def count_emptied_clusters(connection: Connection, deleted: Collection[str]) -> int:
    """How many clusters :func:`tidy_clusters` would delete once the traces ``deleted`` are gone
    (a dry run's answer): those without a case all of whose members are among them."""
    clusters, members = schema.clusters, schema.cluster_members
    query = (
        select(members.c.cluster_id, members.c.trace_id)
        .join(clusters, clusters.c.cluster_id == members.c.cluster_id)
        .where(clusters.c.case_id.is_(None))
    )
    remaining: dict[str, bool] = {}
    for cluster_id, trace_id in connection.execute(query):
        remaining[cluster_id] = remaining.get(cluster_id, False) or trace_id not in deleted
    return sum(not kept for kept in remaining.values())
