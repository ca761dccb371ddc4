"""Why a trace past its retention age is kept: the holds on it.

A prune deletes a trace past its age unless something still needs it. The holds, in the order a
kept trace is counted under (the first that applies):

- ``cited_by_case``: a candidate or approved case cites it in ``source_trace_ids``: a case of
  its dataset's latest version recorded in the store (``trailcheck promote`` and approvals
  record it), a cluster a case was promoted from (``clusters.case_id``: its members), or a
  dataset file the prune was given;
- ``referenced_by_run``: a run's trial names it (the store's ``trials`` rows, or a run report
  file the prune was given);
- ``noted`` and ``labelled``: a person wrote a note on it, or labelled it (a ``human:``
  finding, or a judge calibration label); unless the prune is asked to take these too;
- ``being_scored``: the online worker holds a lease on one of its jobs; the next prune takes
  it, once scored.

The cases of the store and the files are read once per prune (:class:`Holds`); the rest is
asked of each batch, in the transaction that deletes it. On PostgreSQL the batch's online jobs
are locked first, so a worker cannot lease one between the look and the delete (it skips locked
jobs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from sqlalchemy import ColumnElement, Connection, select

from trailcheck.store import schema
from trailcheck.store.datasets import iter_case_sources

__all__ = ["HOLD_REASONS", "HoldReason", "Holds", "held_traces", "stored_holds"]

HoldReason = Literal["cited_by_case", "referenced_by_run", "noted", "labelled", "being_scored"]
HOLD_REASONS: Final[tuple[HoldReason, ...]] = (
    "cited_by_case",
    "referenced_by_run",
    "noted",
    "labelled",
    "being_scored",
)
# The review statuses whose cases keep their sources: a rejected case needs them no more.
_KEEPING_STATUSES: Final = frozenset({"candidate", "approved"})
HUMAN_SOURCE_PREFIX: Final = "human:"


@dataclass(frozen=True)
class Holds:
    """What holds traces beyond the store's own rows: the trace ids cases cite and runs
    reference (from the store's cases and the files given), and whether a person's note or
    label keeps a trace."""

    cited: frozenset[str] = frozenset()
    referenced: frozenset[str] = frozenset()
    keep_labelled: bool = True


def stored_holds(connection: Connection, holds: Holds) -> Holds:
    """``holds`` with the sources of the candidate and approved cases of each stored dataset's
    latest version added to the cited ids."""
    cited = {
        trace_id
        for case in iter_case_sources(connection)
        if case.latest and case.review_status in _KEEPING_STATUSES
        for trace_id in case.source_trace_ids
    }
    return replace(holds, cited=holds.cited | cited)


def held_traces(
    connection: Connection, trace_ids: Sequence[str], holds: Holds, *, lock: bool = True
) -> dict[str, HoldReason]:
    """The traces of ``trace_ids`` something holds, each with the first reason that applies;
    ``lock``: lock their online jobs until the transaction ends (a dry run locks nothing)."""
    cited = {t for t in trace_ids if t in holds.cited} | _case_clusters(connection, trace_ids)
    run = {t for t in trace_ids if t in holds.referenced}
    found: dict[HoldReason, set[str]] = {
        "cited_by_case": cited,
        "referenced_by_run": run | _ids(connection, schema.trials.c.trace_id, trace_ids),
    }
    if holds.keep_labelled:
        findings = schema.findings
        found["noted"] = _ids(connection, schema.notes.c.trace_id, trace_ids)
        found["labelled"] = _ids(connection, schema.judge_labels.c.trace_id, trace_ids) | set(
            connection.scalars(
                select(findings.c.trace_id)
                .where(findings.c.trace_id.in_(trace_ids))
                .where(findings.c.source.startswith(HUMAN_SOURCE_PREFIX))
            )
        )
    found["being_scored"] = _leased(connection, trace_ids, lock=lock)
    held: dict[str, HoldReason] = {}
    for reason in HOLD_REASONS:
        for trace_id in found.get(reason, ()):
            held.setdefault(trace_id, reason)
    return held


def _ids(connection: Connection, column: ColumnElement[Any], trace_ids: Sequence[str]) -> set[str]:
    return set(connection.scalars(select(column).where(column.in_(trace_ids))))


def _case_clusters(connection: Connection, trace_ids: Sequence[str]) -> set[str]:
    """The traces among ``trace_ids`` that are members of a cluster a case was promoted from."""
    clusters, members = schema.clusters, schema.cluster_members
    query = (
        select(members.c.trace_id)
        .join(clusters, clusters.c.cluster_id == members.c.cluster_id)
        .where(members.c.trace_id.in_(trace_ids))
        .where(clusters.c.case_id.is_not(None))
    )
    return set(connection.scalars(query))


def _leased(connection: Connection, trace_ids: Sequence[str], *, lock: bool) -> set[str]:
    """The traces among ``trace_ids`` with a leased online job; with ``lock``, their jobs
    locked until the caller's transaction ends (PostgreSQL; SQLite's writer holds the whole
    database anyway)."""
    jobs = schema.online_jobs
    query = select(jobs.c.trace_id, jobs.c.state).where(jobs.c.trace_id.in_(trace_ids))
    rows = connection.execute(query.with_for_update() if lock else query)
    return {trace_id for trace_id, state in rows if state == "leased"}
