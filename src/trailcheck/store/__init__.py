"""The trace store: traces, findings, notes, clusters, dataset versions and the OTLP endpoint's
pending (and quarantined) spans and log records, in SQLite (the default) or PostgreSQL, with the
same schema and behaviour; their retention (a prune past an age, keeping what is held) and
deletion on request, logged.

Open it with :meth:`Store.open` (a URL, else ``$TRAILCHECK_DB``, else
``.trailcheck/trailcheck.db``); see ``docs/store.md``.
"""

from trailcheck.store.backends import DB_ENV, DEFAULT_DB_PATH, resolve_db_url
from trailcheck.store.clusters import ClusterRecord
from trailcheck.store.datasets import CaseSources
from trailcheck.store.deletion_log import DeletionEntry
from trailcheck.store.erasure import DEFAULT_USER_KEYS, Erasure, ErasureSummary
from trailcheck.store.holds import HOLD_REASONS, Holds
from trailcheck.store.ingest import IngestConflict, IngestSummary
from trailcheck.store.limits import StoreLimitError
from trailcheck.store.migrations import MIGRATIONS, Migration
from trailcheck.store.observations import Note, UnknownTraceError
from trailcheck.store.pending import PendingLogEvent, PendingPayload, PendingSpan, RejectedTrace
from trailcheck.store.pending_origins import PendingOrigin
from trailcheck.store.quarantine import DroppedTrace, PendingTrace
from trailcheck.store.reading import TraceSummary
from trailcheck.store.retention import PruneSummary, Retention, parse_age
from trailcheck.store.rows import canonical_content
from trailcheck.store.sessions import SessionSummary
from trailcheck.store.span_conflicts import HeldConflict, SpanConflict
from trailcheck.store.store import Store
from trailcheck.store.trace_filter import TraceFilter

__all__ = [
    "DB_ENV",
    "DEFAULT_DB_PATH",
    "DEFAULT_USER_KEYS",
    "HOLD_REASONS",
    "MIGRATIONS",
    "CaseSources",
    "ClusterRecord",
    "DeletionEntry",
    "DroppedTrace",
    "Erasure",
    "ErasureSummary",
    "HeldConflict",
    "Holds",
    "IngestConflict",
    "IngestSummary",
    "Migration",
    "Note",
    "PendingLogEvent",
    "PendingOrigin",
    "PendingPayload",
    "PendingSpan",
    "PendingTrace",
    "PruneSummary",
    "RejectedTrace",
    "Retention",
    "SessionSummary",
    "SpanConflict",
    "Store",
    "StoreLimitError",
    "TraceFilter",
    "TraceSummary",
    "UnknownTraceError",
    "canonical_content",
    "parse_age",
    "resolve_db_url",
]
