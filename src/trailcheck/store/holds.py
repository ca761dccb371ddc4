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
jobs); then the batch's traces, so that a note, label or finding added to one of them after the
look waits for the prune and then fails on the trace it names, gone, instead of being deleted
with it by the cascade unseen. (Jobs before traces: the worker takes them in that order too.)
On SQLite the batch's transaction holds the one write lock from its start (``BEGIN IMMEDIATE``):
nothing is written between the look and the delete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Connection,
    Select,
    String,
    literal,
    select,
    union_all,
)

from trailcheck.store import schema
from trailcheck.store.datasets import iter_case_sources
from trailcheck.store.id_lists import among_ids, bound_ids

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
    """The traces of ``trace_ids`` something holds, each with the first reason that applies,
    asked in one query; ``lock``: lock their online jobs and the traces until the transaction
    ends (see the module; a dry run locks nothing)."""
    ids = bound_ids(connection, trace_ids)
    jobs = schema.online_jobs
    # On PostgreSQL the batch's jobs are locked, leased or not, so that none is leased between
    # this look and the delete (a worker skips locked jobs).
    if lock and connection.dialect.name == "postgresql":
        locking = select(jobs.c.id).where(among_ids(connection, jobs.c.trace_id))
        connection.execute(locking.with_for_update(), ids)
        traces = schema.traces
        locking = select(traces.c.trace_id).where(among_ids(connection, traces.c.trace_id))
        connection.execute(locking.with_for_update(), ids)
    found: dict[str, set[str]] = {}
    for trace_id, reason in connection.execute(_holding(connection, holds.keep_labelled), ids):
        found.setdefault(trace_id, set()).add(reason)
    for trace_id in trace_ids:
        if trace_id in holds.cited:
            found.setdefault(trace_id, set()).add("cited_by_case")
        if trace_id in holds.referenced:
            found.setdefault(trace_id, set()).add("referenced_by_run")
    return {
        trace_id: next(reason for reason in HOLD_REASONS if reason in reasons)
        for trace_id, reasons in found.items()
    }


def _holding(connection: Connection, keep_labelled: bool) -> CompoundSelect[str, str]:
    """The rows that hold one of the bound traces, each as (trace id, reason)."""
    clusters, members, trials = schema.clusters, schema.cluster_members, schema.trials
    notes, labels, findings, jobs = (
        schema.notes,
        schema.judge_labels,
        schema.findings,
        schema.online_jobs,
    )

    def naming(trace_id: ColumnElement[str], reason: HoldReason) -> Select[str, str]:
        return select(trace_id, literal(reason, String())).where(among_ids(connection, trace_id))

    parts = [
        naming(members.c.trace_id, "cited_by_case")
        .join(clusters, clusters.c.cluster_id == members.c.cluster_id)
        .where(clusters.c.case_id.is_not(None)),
        naming(trials.c.trace_id, "referenced_by_run"),
        naming(jobs.c.trace_id, "being_scored").where(jobs.c.state == "leased"),
    ]
    if keep_labelled:
        parts += [
            naming(notes.c.trace_id, "noted"),
            naming(labels.c.trace_id, "labelled"),
            naming(findings.c.trace_id, "labelled").where(
                findings.c.source.startswith(HUMAN_SOURCE_PREFIX)
            ),
        ]
    return union_all(*parts)
