"""The trace store: traces, findings, notes, clusters, dataset versions and the OTLP endpoint's
pending (and quarantined) spans and log records, in SQLite (the default) or PostgreSQL, with the
same schema and behaviour.

Open it with :meth:`Store.open` (a URL, else ``$TRAILCHECK_DB``, else
``.trailcheck/trailcheck.db``); see ``docs/store.md``.
"""

from trailcheck.store.backends import DB_ENV, DEFAULT_DB_PATH, resolve_db_url
from trailcheck.store.clusters import ClusterRecord
from trailcheck.store.ingest import IngestConflict, IngestSummary
from trailcheck.store.limits import StoreLimitError
from trailcheck.store.migrations import MIGRATIONS, Migration
from trailcheck.store.observations import Note, UnknownTraceError
from trailcheck.store.pending import PendingLogEvent, PendingPayload, PendingSpan, RejectedTrace
from trailcheck.store.pending_origins import PendingOrigin
from trailcheck.store.quarantine import DroppedTrace, PendingTrace
from trailcheck.store.reading import TraceSummary
from trailcheck.store.rows import canonical_content
from trailcheck.store.sessions import SessionSummary
from trailcheck.store.span_conflicts import HeldConflict, SpanConflict
from trailcheck.store.store import Store
from trailcheck.store.trace_filter import TraceFilter

__all__ = [
    "DB_ENV",
    "DEFAULT_DB_PATH",
    "MIGRATIONS",
    "ClusterRecord",
    "DroppedTrace",
    "HeldConflict",
    "IngestConflict",
    "IngestSummary",
    "Migration",
    "Note",
    "PendingLogEvent",
    "PendingOrigin",
    "PendingPayload",
    "PendingSpan",
    "PendingTrace",
    "RejectedTrace",
    "SessionSummary",
    "SpanConflict",
    "Store",
    "StoreLimitError",
    "TraceFilter",
    "TraceSummary",
    "UnknownTraceError",
    "canonical_content",
    "resolve_db_url",
]
