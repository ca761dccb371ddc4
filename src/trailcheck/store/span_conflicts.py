"""Conflicting versions of spans: a span received with the trace and span id of one already held
(pending) or stored, and other content, kept beside the first for an operator to see.

The endpoint keeps the first version it received (the one it acknowledged), refuses the other in
the response's ``partial_success``, and records it here (:func:`add_span_conflicts`), so what a
sender believed it sent is never dropped unseen. A version sent again is kept once (its
``digest``, the endpoint's, tells it from another). ``trailcheck pending`` lists and shows them
with the held traces (:mod:`trailcheck.store.quarantine`) and drops them with their trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import Connection, select

from trailcheck.store import schema
from trailcheck.store.backends import insert_or_ignore
from trailcheck.store.pending import PendingPayload
from trailcheck.store.pending_origins import PendingOrigin, hold_origins

__all__ = ["HeldConflict", "SpanConflict", "add_span_conflicts", "held_conflicts"]

# What held the first version: a pending span, or the stored trace.
Against = Literal["pending", "stored"]


@dataclass(frozen=True, slots=True)
class SpanConflict:
    """A received span that conflicts with the first version of it (``against``: held pending,
    or stored), as the endpoint encodes it; ``digest`` names its content."""

    trace_id: str
    span_id: str
    digest: str
    payload: bytes
    against: Against
    received_ns: int
    origin: PendingOrigin | None = None


@dataclass(frozen=True)
class HeldConflict:
    """A conflicting version as the store keeps it."""

    trace_id: str
    span_id: str
    payload: PendingPayload
    against: str
    received_ns: int


def add_span_conflicts(connection: Connection, conflicts: Sequence[SpanConflict]) -> None:
    """Keep ``conflicts`` and their origins; a version already kept is ignored."""
    hold_origins(connection, [(c.origin, c.received_ns) for c in conflicts if c.origin is not None])
    rows = [
        {
            "trace_id": conflict.trace_id,
            "span_id": conflict.span_id,
            "digest": conflict.digest,
            "payload": conflict.payload,
            "origin_key": None if conflict.origin is None else conflict.origin.key,
            "against": conflict.against,
            "received_ns": conflict.received_ns,
        }
        for conflict in conflicts
    ]
    insert_or_ignore(connection, schema.span_conflicts, rows)


def held_conflicts(connection: Connection, trace_id: str) -> list[HeldConflict]:
    """The conflicting versions kept for ``trace_id``, in the order they were received."""
    table, origins = schema.span_conflicts, schema.pending_origins
    query = (
        select(
            table.c.span_id,
            table.c.payload,
            origins.c.payload,
            table.c.against,
            table.c.received_ns,
        )
        .select_from(table.outerjoin(origins, table.c.origin_key == origins.c.origin_key))
        .where(table.c.trace_id == trace_id)
        .order_by(table.c.seq)
    )
    return [
        HeldConflict(
            trace_id,
            span_id,
            PendingPayload(bytes(payload), None if origin is None else bytes(origin)),
            against,
            received_ns,
        )
        for span_id, payload, origin, against, received_ns in connection.execute(query)
    ]
