"""What ``trailcheck pending`` does (its options: :mod:`trailcheck.commands.pending`): the
traces ``trailcheck serve`` holds, pending or quarantined, listed, shown, retried or dropped.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rich.console import Console

from trailcheck.commands.output import print_json, stderr
from trailcheck.commands.pending import HeldTraceRequest, PendingListRequest
from trailcheck.commands.store_commands_impl import _iso, open_store
from trailcheck.extras import needs_extra
from trailcheck.store import PendingTrace

if TYPE_CHECKING:
    from trailcheck.importing.records import RawSpan
    from trailcheck.serve import HeldTrace

# Lines a reader greps or copies (ids, reasons): never wrapped mid-line.
lines = Console(soft_wrap=True, highlight=False)


def _iso_or_none(ns: int | None) -> str | None:
    return None if ns is None else _iso(ns)


def _trace_json(trace: PendingTrace) -> dict[str, object]:
    return {
        "trace_id": trace.trace_id,
        "state": trace.state,
        "spans": trace.span_count,
        "log_records": trace.log_count,
        "conflicting_spans": trace.conflict_count,
        "root_ended": trace.root_ended,
        "first_received": _iso_or_none(trace.first_received_ns),
        "last_received": _iso_or_none(trace.last_received_ns),
        "quarantined": _iso_or_none(trace.quarantined_ns),
        "reason": trace.reason,
    }


def pending_list(request: PendingListRequest) -> None:
    """The body of :func:`trailcheck.commands.pending.pending_list`."""
    with open_store(request.db, must_exist=True) as store:
        traces = store.pending_traces()
    if request.as_json:
        print_json([_trace_json(trace) for trace in traces])
        return
    for trace in traces:
        lines.print(
            f"{trace.trace_id}  {trace.state:<11}  {_counts(trace)}"
            + (f", last received {_iso(trace.last_received_ns)}" if trace.last_received_ns else ""),
            style="red" if trace.quarantined else None,
            markup=False,
        )
        if trace.reason is not None:
            lines.print(f"    {trace.reason}", markup=False)
    states = Counter(trace.state for trace in traces)
    versions = sum(trace.conflict_count for trace in traces)
    stderr.print(
        f"{states['pending']} pending, {states['quarantined']} quarantined;"
        f" {versions} conflicting span version(s) kept",
        markup=False,
    )


def _counts(trace: PendingTrace) -> str:
    """What a held trace holds, in words."""
    held = f"{trace.span_count} span(s), {trace.log_count} GenAI log record(s)"
    if trace.conflict_count:
        held += f", {trace.conflict_count} conflicting span version(s)"
    return held


def _show(held: HeldTrace) -> None:
    trace = held.trace
    received = (
        f", received {_iso(trace.first_received_ns)} to {_iso(trace.last_received_ns)}"
        if trace.first_received_ns is not None and trace.last_received_ns is not None
        else ""
    )
    lines.print(f"trace {trace.trace_id}: {trace.state}, {_counts(trace)}{received}", markup=False)
    if trace.quarantined:
        lines.print(f"quarantined {_iso(trace.quarantined_ns)}: {trace.reason}", markup=False)
    for span in held.spans:
        lines.print(f"span {_span_line(span)}", markup=False)
    for version in held.conflicts:
        lines.print(
            f"conflicting version of span {_span_line(version.span)}; received"
            f" {_iso(version.received_ns)}, refused: the {version.against} version is kept",
            style="yellow",
            markup=False,
        )
    for log in held.logs:
        lines.print(f"log record {log.event.name} on span {log.span_id}", markup=False)
    for problem in held.unreadable:
        lines.print(f"unreadable {problem}", style="red", markup=False)


def _span_line(span: RawSpan) -> str:
    parent = f" under {span.parent_id}" if span.parent_id else " (root)"
    end = "running" if span.end_ns is None else f"end {span.end_ns}"
    return f"{span.span_id}{parent}: {span.name!r}, start {span.start_ns}, {end}"


def pending_show(request: HeldTraceRequest) -> None:
    """The body of :func:`trailcheck.commands.pending.pending_show`."""
    # trailcheck.serve brings the endpoints' packages (FastAPI, gRPC) with it.
    with needs_extra("serve", "trailcheck pending show"):
        from trailcheck.serve import held_trace

    with open_store(request.db, must_exist=True) as store:
        held = held_trace(store, request.trace_id)
    _show(held)


def pending_retry(request: HeldTraceRequest) -> None:
    """The body of :func:`trailcheck.commands.pending.pending_retry`."""
    with open_store(request.db, must_exist=True) as store:
        trace = store.retry_quarantined(request.trace_id)
    stderr.print(
        f"trace {trace.trace_id} is pending again ({trace.span_count} span(s),"
        f" {trace.log_count} GenAI log record(s)); the next sweep of trailcheck serve tries it",
        markup=False,
    )


def pending_drop(request: HeldTraceRequest) -> None:
    """The body of :func:`trailcheck.commands.pending.pending_drop`."""
    with open_store(request.db, must_exist=True) as store:
        dropped = store.drop_pending(request.trace_id)
    was = "quarantined" if dropped.reason is not None else "pending"
    if dropped.reason is None and not dropped.span_count and not dropped.log_count:
        was = "held"  # only conflicting versions: its trace is stored
    why = f" (quarantined: {dropped.reason})" if dropped.reason is not None else ""
    versions = (
        f", {dropped.conflict_count} conflicting span version(s)" if dropped.conflict_count else ""
    )
    stderr.print(
        f"dropped {was} trace {dropped.trace_id}: {dropped.span_count} span(s),"
        f" {dropped.log_count} GenAI log record(s){versions}{why}",
        markup=False,
    )
