"""Clusters as the store keeps them: plain fields, replaced label by label.

Clustering is a pure function over findings (:mod:`trailcheck.loop.cluster`); the store keeps
its latest result per label. Saving a label's clusters replaces that label's previous clustering
in one transaction; a cluster whose id persists keeps its link to the case promoted from it
(``case_id``, ``approved_ns``), which is how a cluster that gains members after its case was
approved is noticed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import Connection, delete, insert, select, update

from trailcheck.errors import UsageError
from trailcheck.store import schema

__all__ = ["ClusterRecord", "link_case", "read_clusters", "replace_clusters"]


@dataclass(frozen=True)
class ClusterRecord:
    """One cluster: its label and signature, a representative, its members, when its members
    were first and last seen, and the case promoted from it (when one was approved)."""

    cluster_id: str
    label: str
    signature: str
    representative_trace_id: str
    member_trace_ids: tuple[str, ...]
    first_seen_ns: int
    last_seen_ns: int
    case_id: str | None = None
    approved_ns: int | None = None

    @property
    def size(self) -> int:
        return len(self.member_trace_ids)


def _check(label: str, records: Sequence[ClusterRecord]) -> None:
    seen: set[str] = set()
    for record in records:
        if record.label != label:
            raise UsageError(
                f"cluster {record.cluster_id!r} has label {record.label!r}: saving the clusters"
                f" of {label!r} takes only clusters of that label"
            )
        if record.cluster_id in seen:
            raise UsageError(f"cluster {record.cluster_id!r} is given twice")
        if record.representative_trace_id not in record.member_trace_ids:
            raise UsageError(
                f"cluster {record.cluster_id!r}: its representative"
                f" {record.representative_trace_id!r} is not one of its members"
            )
        seen.add(record.cluster_id)


def replace_clusters(connection: Connection, label: str, records: Sequence[ClusterRecord]) -> None:
    """Replace the clusters of ``label`` with ``records``, in the caller's transaction."""
    _check(label, records)
    table, members = schema.clusters, schema.cluster_members
    links = {
        row.cluster_id: (row.case_id, row.approved_ns)
        for row in connection.execute(
            select(table.c.cluster_id, table.c.case_id, table.c.approved_ns).where(
                table.c.label == label, table.c.case_id.is_not(None)
            )
        )
    }
    old_ids = select(table.c.cluster_id).where(table.c.label == label).scalar_subquery()
    connection.execute(delete(members).where(members.c.cluster_id.in_(old_ids)))
    connection.execute(delete(table).where(table.c.label == label))
    if not records:
        return
    kept = [
        replace(
            record, case_id=links[record.cluster_id][0], approved_ns=links[record.cluster_id][1]
        )
        if record.case_id is None and record.cluster_id in links
        else record
        for record in records
    ]
    connection.execute(
        insert(table),
        [
            {
                "cluster_id": record.cluster_id,
                "label": record.label,
                "signature": record.signature,
                "representative_trace_id": record.representative_trace_id,
                "first_seen_ns": record.first_seen_ns,
                "last_seen_ns": record.last_seen_ns,
                "case_id": record.case_id,
                "approved_ns": record.approved_ns,
            }
            for record in kept
        ],
    )
    connection.execute(
        insert(members),
        [
            {"cluster_id": record.cluster_id, "trace_id": trace_id}
            for record in kept
            for trace_id in dict.fromkeys(record.member_trace_ids)
        ],
    )


def read_clusters(connection: Connection, label: str | None = None) -> list[ClusterRecord]:
    """The stored clusters (of one label, or all), by label then id; members in trace order."""
    table, members = schema.clusters, schema.cluster_members
    query = select(table).order_by(table.c.label, table.c.cluster_id)
    if label is not None:
        query = query.where(table.c.label == label)
    rows = connection.execute(query).all()
    member_query = select(members.c.cluster_id, members.c.trace_id).order_by(
        members.c.cluster_id, members.c.trace_id
    )
    if label is not None:
        member_query = member_query.where(
            members.c.cluster_id.in_(select(table.c.cluster_id).where(table.c.label == label))
        )
    by_cluster: dict[str, list[str]] = {}
    for cluster_id, trace_id in connection.execute(member_query):
        by_cluster.setdefault(cluster_id, []).append(trace_id)
    return [
        ClusterRecord(
            cluster_id=row.cluster_id,
            label=row.label,
            signature=row.signature,
            representative_trace_id=row.representative_trace_id,
            member_trace_ids=tuple(by_cluster.get(row.cluster_id, ())),
            first_seen_ns=row.first_seen_ns,
            last_seen_ns=row.last_seen_ns,
            case_id=row.case_id,
            approved_ns=row.approved_ns,
        )
        for row in rows
    ]


def link_case(connection: Connection, cluster_id: str, case_id: str, approved_ns: int) -> None:
    """Record that case ``case_id`` was promoted from cluster ``cluster_id`` and approved."""
    table = schema.clusters
    result = connection.execute(
        update(table)
        .where(table.c.cluster_id == cluster_id)
        .values(case_id=case_id, approved_ns=approved_ns)
    )
    if result.rowcount == 0:
        raise UsageError(f"no cluster {cluster_id!r} in the store")
