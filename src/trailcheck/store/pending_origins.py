"""The resource and instrumentation scope of pending spans (their *origin*), held once however
many spans name it.

An OTLP request names its resource and scope once for all the spans under them; held beside each
span, they would cost the request's span count times their size (a resource of a few kilobytes
and 100,000 tiny spans: hundreds of megabytes). So the endpoint encodes a span's origin apart
(:class:`PendingOrigin`: its payload, and a digest of it as its key), and the store holds one
``pending_origins`` row per distinct origin, which each span (and each conflicting version kept,
:mod:`trailcheck.store.span_conflicts`) names by key.

An origin no span names any more is deleted by the sweep (:func:`drop_unused_origins`) once no
span has named it for an hour (``ORIGIN_GRACE_NS``), a grace far longer than any request:
naming an origin again marks it in the same transaction that writes the span, so an origin in
use is never that old, on either backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, and_, delete, exists, func
from sqlalchemy.dialects import postgresql, sqlite

from trailcheck.store import schema

__all__ = ["ORIGIN_GRACE_NS", "PendingOrigin", "drop_unused_origins", "hold_origins"]

# How long an origin no held span names is kept after a span last named it.
ORIGIN_GRACE_NS: Final = 3600 * 1_000_000_000


@dataclass(frozen=True, slots=True)
class PendingOrigin:
    """The resource and scope some received spans were recorded under, as the endpoint encodes
    them (``payload``), and ``key``, a digest of that payload: spans that share an origin
    share its row."""

    key: str
    payload: bytes


def hold_origins(connection: Connection, origins: Sequence[tuple[PendingOrigin, int]]) -> None:
    """Hold each ``(origin, received_ns)``: a new origin is added, one already held is marked
    as named again at ``received_ns`` (the later of the two), so the sweep keeps it."""
    latest: dict[str, tuple[PendingOrigin, int]] = {}
    for origin, received_ns in origins:
        held = latest.get(origin.key)
        if held is None or held[1] < received_ns:
            latest[origin.key] = (origin, received_ns)
    if not latest:
        return
    table = schema.pending_origins
    rows = [
        {"origin_key": key, "payload": origin.payload, "last_received_ns": received_ns}
        for key, (origin, received_ns) in sorted(latest.items())  # one lock order for all
    ]
    upsert = (postgresql if connection.dialect.name == "postgresql" else sqlite).insert(table)
    later = func.max if connection.dialect.name == "sqlite" else func.greatest
    connection.execute(
        upsert.on_conflict_do_update(
            index_elements=[table.c.origin_key],
            set_={
                "last_received_ns": later(
                    table.c.last_received_ns, upsert.excluded.last_received_ns
                )
            },
        ),
        rows,
    )


def drop_unused_origins(connection: Connection, before_ns: int) -> int:
    """Delete the origins that no held span or conflicting version names and that no span named
    at or after ``before_ns``; how many. (A span naming one is written in the transaction that
    marks it named, so an origin in use is never this old.)"""
    origins, spans, conflicts = (
        schema.pending_origins,
        schema.pending_spans,
        schema.span_conflicts,
    )
    unused = and_(
        origins.c.last_received_ns < before_ns,
        ~exists().where(spans.c.origin_key == origins.c.origin_key),
        ~exists().where(conflicts.c.origin_key == origins.c.origin_key),
    )
    return connection.execute(delete(origins).where(unused)).rowcount
