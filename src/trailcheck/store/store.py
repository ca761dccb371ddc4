"""The Store: one object over one database, for the CLI and the server to open and close.

>>> with Store.open("sqlite://") as store:
...     summary = store.ingest([Trace(trace_id="t1", input="hello")])
...     (summary.stored, store.get_trace("t1").input)
(1, 'hello')

Opening applies the missing migrations. Every method is its own transaction (or, for
:meth:`Store.ingest`, one per batch of traces; see :mod:`trailcheck.store.ingest`), so a method
that raises has changed nothing. What the methods do lives in the modules named in their
docstrings; the Store only holds the engine and opens the transactions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

from sqlalchemy import Engine
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError, OperationalError

from trailcheck.cases import Case, Dataset
from trailcheck.components import SpanScore
from trailcheck.errors import InputError
from trailcheck.store import (
    clusters,
    datasets,
    deletion_log,
    observations,
    pending,
    pending_origins,
    quarantine,
    reading,
    sessions,
    span_conflicts,
    span_scores,
)
from trailcheck.store.backends import (
    DB_ENV,
    create_store_engine,
    describe_url,
    read_only,
    resolve_db_url,
)
from trailcheck.store.clusters import ClusterRecord
from trailcheck.store.deletion_log import DeletionEntry
from trailcheck.store.erasure import Erasure, ErasureSummary, erase_traces
from trailcheck.store.ingest import DEFAULT_BATCH_SIZE, IngestSummary, ingest_traces
from trailcheck.store.migrations import migrate
from trailcheck.store.observations import Note, UnknownTraceError
from trailcheck.store.pending import PendingLogEvent, PendingPayload, PendingSpan
from trailcheck.store.pending_origins import ORIGIN_GRACE_NS
from trailcheck.store.quarantine import DroppedTrace, PendingTrace
from trailcheck.store.reading import DEFAULT_PAGE_SIZE, TraceSummary
from trailcheck.store.retention import DEFAULT_PRUNE_BATCH, PruneSummary, Retention, prune_traces
from trailcheck.store.sessions import SessionSummary
from trailcheck.store.span_conflicts import HeldConflict, SpanConflict
from trailcheck.store.span_scores import Backfill
from trailcheck.store.trace_filter import TraceFilter
from trailcheck.trace import Finding, Severity, Trace

__all__ = ["Store"]


class Store:
    """Traces, findings, notes, clusters, dataset versions, and the pending (and quarantined)
    spans and log records of the OTLP endpoint in one database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.migrations_applied = migrate(engine)

    @classmethod
    def open(cls, url: str | URL | None = None, *, must_exist: bool = False) -> Self:
        """Open the store at ``url`` (else ``$TRAILCHECK_DB``, else the default SQLite file).

        With ``must_exist`` a SQLite file that is not there is an error rather than a new,
        empty store (for commands that only read)."""
        resolved = url if isinstance(url, URL) else resolve_db_url(url)
        database = resolved.database or ":memory:"
        sqlite_file = resolved.get_backend_name() == "sqlite" and database != ":memory:"
        if must_exist and sqlite_file and not Path(database).is_file():
            raise InputError(
                f"no store at {database}: ingest traces first (trailcheck ingest), or name"
                f" the store with --db or ${DB_ENV}"
            )
        engine = create_store_engine(resolved)
        try:
            return cls(engine)
        except OperationalError as error:
            engine.dispose()
            reason = str(error.orig).strip().splitlines()[0] if error.orig else str(error)
            raise InputError(f"store {describe_url(resolved)}: cannot open: {reason}") from None

    @property
    def url(self) -> str:
        """The database URL, without its password."""
        return describe_url(self.engine.url)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # Traces (trailcheck.store.ingest, trailcheck.store.reading, trailcheck.store.trace_filter)

    def ingest(
        self, traces: Iterable[Trace], *, batch_size: int = DEFAULT_BATCH_SIZE, bulk: bool = False
    ) -> IngestSummary:
        """Store new traces whole; identical ones are no-ops, conflicting ones refused. ``bulk``:
        many traces at once, written with ``COPY`` where the store is PostgreSQL (the same rows,
        docs/scale.md)."""
        copy = bulk and self.engine.dialect.name == "postgresql"
        return ingest_traces(self.engine, traces, batch_size=batch_size, copy=copy)

    # Span scores (trailcheck.store.span_scores)

    def span_scores(
        self, *, since_ns: int | None = None, until_ns: int | None = None
    ) -> Iterator[SpanScore]:
        """The component calls' scores whose span started in ``[since_ns, until_ns)``, in start
        order, streamed a page per query."""
        return span_scores.iter_span_scores(self.engine, since_ns=since_ns, until_ns=until_ns)

    def backfill_span_scores(self) -> Backfill:
        """Score the stored traces that have no span scores (stored before the store kept
        them)."""
        return span_scores.backfill_span_scores(self.engine)

    def iter_traces(
        self, where: TraceFilter | None = None, *, batch_size: int = DEFAULT_PAGE_SIZE
    ) -> Iterator[Trace]:
        """Stream the traces matching ``where`` (default: all) in ingestion order, one page of
        rows at a time."""
        return reading.iter_stored_traces(
            self.engine, where or TraceFilter(), batch_size=batch_size
        )

    def content_pages(
        self, where: TraceFilter | None = None, *, batch_size: int = DEFAULT_PAGE_SIZE
    ) -> Iterator[list[str]]:
        """:meth:`iter_traces` undecoded: each page's stored trailcheck JSON, one string per
        trace, for bulk readers that decode it where they work on it."""
        return reading.iter_content_pages(
            self.engine, where or TraceFilter(), batch_size=batch_size
        )

    def get_trace(self, trace_id: str) -> Trace:
        """The stored trace ``trace_id``; UnknownTraceError when there is none."""
        with read_only(self.engine) as connection:
            trace = reading.read_trace(connection, trace_id)
        if trace is None:
            raise UnknownTraceError([trace_id])
        return trace

    def stored_traces(self, trace_ids: Sequence[str]) -> dict[str, Trace]:
        """The stored traces among ``trace_ids``, by id (one query per 500 ids)."""
        with read_only(self.engine) as connection:
            return reading.read_traces(connection, trace_ids)

    def trace_ids_starting_with(self, prefix: str, *, limit: int = 10) -> list[str]:
        """At most ``limit`` stored trace ids that start with ``prefix``, in order: a unique
        prefix names one trace (tables at 80 columns cut ids short)."""
        with read_only(self.engine) as connection:
            return reading.trace_ids_starting_with(connection, prefix, limit)

    def list_traces(
        self, where: TraceFilter | None = None, *, limit: int | None = None
    ) -> list[TraceSummary]:
        """Summary rows of the traces matching ``where`` (default: all), in ingestion order."""
        with read_only(self.engine) as connection:
            return reading.list_trace_summaries(connection, where or TraceFilter(), limit=limit)

    # Sessions (trailcheck.store.sessions)

    def list_sessions(self, *, limit: int | None = None) -> list[SessionSummary]:
        """Each session with its trace count and first and last start, by first start."""
        with read_only(self.engine) as connection:
            return sessions.list_session_summaries(connection, limit=limit)

    def session_traces(
        self, session_id: str, *, batch_size: int = DEFAULT_PAGE_SIZE
    ) -> Iterator[Trace]:
        """Stream the traces of one session in start order, one page of rows at a time."""
        return sessions.iter_session_traces(self.engine, session_id, batch_size=batch_size)

    # Findings and notes (trailcheck.store.observations)

    def add_findings(self, findings: Iterable[Finding]) -> int:
        """Add or refresh findings (keyed by trace, label and source); how many were new."""
        with self.engine.begin() as connection:
            return observations.write_findings(connection, findings)

    def findings(self, label: str | None = None, trace_id: str | None = None) -> list[Finding]:
        with read_only(self.engine) as connection:
            return observations.read_findings(connection, label=label, trace_id=trace_id)

    def label(
        self, trace_id: str, label: str, who: str, *, severity: Severity = "medium"
    ) -> Finding:
        """Assign failure mode ``label`` to a trace by hand; the stored ``human:<who>`` Finding."""
        with self.engine.begin() as connection:
            return observations.hand_label(connection, trace_id, label, who, severity)

    def add_note(self, trace_id: str, text: str, author: str) -> Note:
        with self.engine.begin() as connection:
            return observations.insert_note(connection, trace_id, text, author)

    def notes(self, trace_id: str | None = None) -> list[Note]:
        with read_only(self.engine) as connection:
            return observations.read_notes(connection, trace_id)

    # Clusters (trailcheck.store.clusters)

    def save_clusters(self, label: str, records: Sequence[ClusterRecord]) -> None:
        """Replace the clustering of ``label``, keeping the case links of persisting ids."""
        with self.engine.begin() as connection:
            clusters.replace_clusters(connection, label, records)

    def clusters(self, label: str | None = None) -> list[ClusterRecord]:
        with read_only(self.engine) as connection:
            return clusters.read_clusters(connection, label)

    def link_cluster_case(self, cluster_id: str, case_id: str, approved_ns: int) -> None:
        with self.engine.begin() as connection:
            clusters.link_case(connection, cluster_id, case_id, approved_ns)

    # Dataset versions (trailcheck.store.datasets)

    def save_dataset(self, dataset: Dataset) -> str:
        """Record the dataset's current version and cases; the version."""
        with self.engine.begin() as connection:
            return datasets.write_dataset_version(connection, dataset)

    def dataset_versions(self, name: str) -> list[str]:
        with read_only(self.engine) as connection:
            return datasets.read_dataset_versions(connection, name)

    def dataset_cases(self, name: str, version: str) -> list[Case]:
        with read_only(self.engine) as connection:
            return datasets.read_dataset_cases(connection, name, version)

    # Pending spans and log records of the OTLP endpoint (trailcheck.store.pending), and the
    # conflicting versions of spans (trailcheck.store.span_conflicts)

    def add_pending(
        self, spans: Sequence[PendingSpan], conflicts: Sequence[SpanConflict] = ()
    ) -> None:
        """Hold spans, and keep conflicting versions, in one transaction, durably once this
        returns; a repeated (trace id, span id) is ignored, and so is a version already kept."""
        with self.engine.begin() as connection:
            pending.add_pending_spans(connection, spans)
            if conflicts:
                span_conflicts.add_span_conflicts(connection, conflicts)

    def add_pending_logs(self, events: Sequence[PendingLogEvent]) -> None:
        """Hold GenAI log records, durably once this returns; a repeated (trace id, span id,
        record key) is ignored."""
        with self.engine.begin() as connection:
            pending.add_pending_logs(connection, events)

    def ready_pending(
        self, now_ns: int, idle_timeout_ns: int, settle_ns: int = 0, limit: int | None = None
    ) -> list[str]:
        """The ids of the traces ready to complete, at most ``limit``, in turns per arrival
        (:func:`trailcheck.store.pending.ready_pending`)."""
        with read_only(self.engine) as connection:
            return pending.ready_pending(connection, now_ns, idle_timeout_ns, settle_ns, limit)

    def held_spans(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], PendingPayload]:
        """The held spans among ``keys`` (trace id, span id), by key."""
        with read_only(self.engine) as connection:
            return pending.held_span_payloads(connection, keys)

    def pending_payloads(self, trace_id: str) -> list[PendingPayload]:
        with read_only(self.engine) as connection:
            return pending.pending_payloads(connection, trace_id)

    def pending_payloads_of(self, trace_ids: Sequence[str]) -> dict[str, list[PendingPayload]]:
        with read_only(self.engine) as connection:
            return pending.pending_payloads_of(connection, trace_ids)

    def pending_log_payloads(self, trace_id: str) -> list[bytes]:
        with read_only(self.engine) as connection:
            return pending.pending_log_payloads(connection, trace_id)

    def pending_log_payloads_of(self, trace_ids: Sequence[str]) -> dict[str, list[bytes]]:
        with read_only(self.engine) as connection:
            return pending.pending_log_payloads_of(connection, trace_ids)

    def drop_pending_logs(self, trace_id: str) -> int:
        """Delete the held log records of a trace none of whose spans is held; how many."""
        with self.engine.begin() as connection:
            return pending.drop_pending_logs(connection, trace_id)

    def complete_pending(self, trace_id: str, trace: Trace) -> None:
        """Ingest the assembled trace and drop its held spans and log records, in one
        transaction; on a conflict with a stored trace (InputError) or a value the store cannot
        hold (StoreLimitError), nothing changes."""
        for attempt in range(2):
            try:
                with self.engine.begin() as connection:
                    pending.finish_pending(connection, trace_id, trace)
                return
            except IntegrityError:
                # Another writer stored this trace id meanwhile: look it up again, once.
                if attempt:
                    raise

    def complete_pending_traces(self, traces: Sequence[Trace]) -> None:
        """:meth:`complete_pending` for many traces in one transaction: all of them, or (any of
        them failing, or another writer storing one meanwhile) none."""
        with self.engine.begin() as connection:
            pending.finish_pending_traces(connection, traces)

    def drop_unused_origins(self, now_ns: int) -> int:
        """Delete the origins no held span names, unnamed for an hour before ``now_ns``."""
        with self.engine.begin() as connection:
            return pending_origins.drop_unused_origins(connection, now_ns - ORIGIN_GRACE_NS)

    def span_conflicts(self, trace_id: str) -> list[HeldConflict]:
        """The conflicting versions of spans of ``trace_id`` kept, in arrival order."""
        with read_only(self.engine) as connection:
            return span_conflicts.held_conflicts(connection, trace_id)

    # The quarantine (trailcheck.store.quarantine)

    def quarantine_pending(self, trace_id: str, reason: str) -> None:
        """Set a pending trace aside with ``reason``: the sweep no longer tries it, and its
        spans and log records stay held."""
        with self.engine.begin() as connection:
            quarantine.quarantine_trace(connection, trace_id, reason, time.time_ns())

    def pending_traces(self) -> list[PendingTrace]:
        """Every held trace, pending or quarantined, by first arrival."""
        with read_only(self.engine) as connection:
            return quarantine.list_pending_traces(connection)

    def pending_trace(self, trace_id: str) -> PendingTrace:
        """The held trace ``trace_id``; UsageError when there is none."""
        with read_only(self.engine) as connection:
            return quarantine.held_trace(connection, trace_id)

    def retry_quarantined(self, trace_id: str) -> PendingTrace:
        """Send a quarantined trace back to pending, for the next sweep; UsageError when it is
        not quarantined."""
        with self.engine.begin() as connection:
            return quarantine.release_quarantined(connection, trace_id)

    def drop_pending(self, trace_id: str) -> DroppedTrace:
        """Delete a held trace (pending or quarantined), its spans and log records; what went."""
        with self.engine.begin() as connection:
            return quarantine.drop_pending_trace(connection, trace_id)

    def rejected_traces(self) -> list[pending.RejectedTrace]:
        """Traces rejected on completion before m006 (now they are quarantined)."""
        with read_only(self.engine) as connection:
            return pending.read_rejected(connection)

    # Retention and deletion on request (trailcheck.store.retention, trailcheck.store.erasure,
    # trailcheck.store.deletion_log)

    def prune(
        self,
        retention: Retention,
        *,
        now_ns: int | None = None,
        batch_size: int = DEFAULT_PRUNE_BATCH,
        dry_run: bool = False,
        stop: Callable[[], bool] | None = None,
        pause_s: float | None = None,
    ) -> PruneSummary:
        """Delete the traces past ``retention``'s age that nothing holds, a batch per
        transaction, and log it; ``dry_run``: count them only
        (:func:`trailcheck.store.retention.prune_traces`)."""
        return prune_traces(
            self.engine,
            retention,
            now_ns=now_ns,
            batch_size=batch_size,
            dry_run=dry_run,
            stop=stop,
            pause_s=pause_s,
        )

    def erase(self, erasure: Erasure, *, dry_run: bool = False) -> ErasureSummary:
        """Delete every trace of a session, user or trace id with all it owns, and log it;
        ``dry_run``: count them only. The stored cases citing them are reported."""
        return erase_traces(self.engine, erasure, dry_run=dry_run)

    def deletions(self, *, limit: int | None = None) -> list[DeletionEntry]:
        """The log of prunes and deletions, newest first."""
        with read_only(self.engine) as connection:
            return deletion_log.read_deletions(connection, limit=limit)
