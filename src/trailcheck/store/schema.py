"""The store's tables, as SQLAlchemy Core: one definition for SQLite and PostgreSQL.

Every time is an integer of nanoseconds since the epoch (``*_ns``), so both backends compare and
sort times alike and no time zone is ever guessed. JSON is kept as text (canonical JSON where it
is compared), never as a backend's JSON type, for the same reason. A trace's ``content`` is the
source of truth; the other columns of ``traces`` and the ``spans`` rows are derived from it for
listing and filtering.

The tables are created by the migrations (:mod:`trailcheck.store.migrations`), never by
``metadata.create_all``: a database records which of them it has.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Computed,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from trailcheck.store.limits import Int32, Int64

__all__ = [
    "TRACE_ID_INDEXES",
    "cases",
    "cluster_members",
    "clusters",
    "dataset_versions",
    "deletions",
    "findings",
    "judge_labels",
    "metadata",
    "migrations_table",
    "notes",
    "online_alerts",
    "online_cursors",
    "online_evaluators",
    "online_executions",
    "online_holes",
    "online_jobs",
    "online_scores",
    "pending_log_events",
    "pending_origins",
    "pending_spans",
    "quarantined_traces",
    "rejected_traces",
    "runs",
    "span_conflicts",
    "spans",
    "traces",
    "trials",
]

metadata = MetaData()

# An auto-incrementing surrogate key: SQLite only auto-increments INTEGER PRIMARY KEY.
Serial = BigInteger().with_variant(Integer(), "sqlite")

migrations_table = Table(
    "_migrations",
    metadata,
    Column("name", String(120), primary_key=True),
    Column("applied_ns", Int64, nullable=False),
)

traces = Table(
    "traces",
    metadata,
    # seq: ingestion order, and the key that streaming pages on.
    Column("seq", Serial, primary_key=True, autoincrement=True),
    Column("trace_id", String(), nullable=False, unique=True),
    Column("content_hash", String(), nullable=False),
    Column("content", Text, nullable=False),
    Column("input_text", Text),
    Column("final_output", Text),
    Column("started_ns", Int64),
    Column("ended_ns", Int64),
    # Space-separated, with a space at either end: " lookup_order issue_refund ".
    Column("tool_names", Text, nullable=False),
    Column("span_count", Int32, nullable=False),
    Column("ingested_ns", Int64, nullable=False),
    # The session the trace belongs to (trailcheck.trace.session); added by m003.
    Column("session_id", String()),
    # When the trace started, as reading.start_ns() defines it, computed by the database; the
    # web UI's list order (added by m007).
    Column("start_key", Int64, Computed("coalesce(started_ns, ingested_ns)")),
)
Index("ix_traces_started", traces.c.started_ns)
Index("ix_traces_session", traces.c.session_id, traces.c.started_ns)
Index("ix_traces_start_key", traces.c.start_key, traces.c.trace_id)

spans = Table(
    "spans",
    metadata,
    Column(
        "trace_id",
        String(),
        ForeignKey("traces.trace_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("span_id", String(), primary_key=True),
    Column("parent_id", String()),
    Column("name", Text, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("tool_name", String()),
    Column("start_ns", Int64, nullable=False),
    Column("end_ns", Int64),
    Column("status", String(8), nullable=False),
    # The span's score as a component call (trailcheck.components), added by m010: the tool's,
    # sub-agent's, retriever's or model's name; outcome ok, error or invalid; the score values as
    # JSON; how they were reached. NULL on a span that is no component call (the run's root, a
    # guard). Written at ingest, or by `trailcheck components --backfill`.
    Column("component", String()),
    Column("outcome", String(8)),
    Column("latency_ms", Float),
    Column("error_kind", String()),
    Column("scores", Text),
    Column("reason", Text),
)
Index("ix_spans_tool", spans.c.tool_name, spans.c.trace_id)
# The component calls by when they started: what periods and windows read (m010). Partial, so
# the spans that are no component call cost it nothing.
Index(
    "ix_spans_scored",
    spans.c.start_ns,
    sqlite_where=spans.c.outcome.is_not(None),
    postgresql_where=spans.c.outcome.is_not(None),
)

findings = Table(
    "findings",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    Column(
        "trace_id",
        String(),
        ForeignKey("traces.trace_id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("label", String(120), nullable=False),
    Column("severity", String(16), nullable=False),
    Column("reason", Text, nullable=False),
    Column("evidence", Text, nullable=False),
    Column("source", String(), nullable=False),
    Column("created_ns", Int64, nullable=False),
    UniqueConstraint("trace_id", "label", "source", name="uq_findings_trace_label_source"),
)
Index("ix_findings_label", findings.c.label, findings.c.trace_id)

notes = Table(
    "notes",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    Column(
        "trace_id",
        String(),
        ForeignKey("traces.trace_id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("text", Text, nullable=False),
    Column("author", String(), nullable=False),
    Column("created_ns", Int64, nullable=False),
)
Index("ix_notes_trace", notes.c.trace_id)

clusters = Table(
    "clusters",
    metadata,
    Column("cluster_id", String(), primary_key=True),
    Column("label", String(120), nullable=False),
    Column("signature", Text, nullable=False),
    Column("representative_trace_id", String(), nullable=False),
    Column("first_seen_ns", Int64, nullable=False),
    Column("last_seen_ns", Int64, nullable=False),
    Column("case_id", String()),
    Column("approved_ns", Int64),
)
Index("ix_clusters_label", clusters.c.label)

cluster_members = Table(
    "cluster_members",
    metadata,
    Column(
        "cluster_id",
        String(),
        ForeignKey("clusters.cluster_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("trace_id", String(), primary_key=True),
)

dataset_versions = Table(
    "dataset_versions",
    metadata,
    Column("dataset", String(), primary_key=True),
    Column("version", String(), primary_key=True),
    Column("created_ns", Int64, nullable=False),
)

cases = Table(
    "cases",
    metadata,
    Column("dataset", String(), primary_key=True),
    Column("version", String(), primary_key=True),
    Column("case_id", String(), primary_key=True),
    Column("content", Text, nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("run_id", String(), primary_key=True),
    Column("dataset", String()),
    Column("dataset_version", String()),
    Column("report", Text, nullable=False),
    Column("created_ns", Int64, nullable=False),
)

trials = Table(
    "trials",
    metadata,
    Column("run_id", String(), ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True),
    Column("case_id", String(), primary_key=True),
    Column("attempt", Int32, primary_key=True),
    Column("trace_id", String()),
    Column("status", String(16), nullable=False),
    Column("trial", Text, nullable=False),
)

judge_labels = Table(
    "judge_labels",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    Column("trace_id", String(), nullable=False),
    Column("case_id", String()),
    Column("passed", Boolean, nullable=False),
    Column("labeller", String(), nullable=False),
    Column("reason", Text),
    Column("created_ns", Int64, nullable=False),
)

# Spans received by the OTLP endpoint, held until their trace is complete. seq is arrival order
# (added by m004, which rebuilt the table m002 made), the order a trace's spans are assembled in,
# as a file's spans are imported in file order. origin_key (added by m008) names the span's
# resource and scope in pending_origins, held once for every span that shares them; NULL for a
# span held before m008, whose payload holds them itself.
pending_spans = Table(
    "pending_spans",
    metadata,
    Column("seq", Serial, primary_key=True, autoincrement=True),
    Column("trace_id", String(), nullable=False),
    Column("span_id", String(), nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Column("root_ended", Boolean, nullable=False),
    Column("received_ns", Int64, nullable=False),
    Column("origin_key", String()),
    UniqueConstraint("trace_id", "span_id", name="uq_pending_span"),
)
Index("ix_pending_span_origin", pending_spans.c.origin_key)

# The resource and instrumentation scope pending spans were recorded under (added by m008), once
# per distinct content: an OTLP request names its resource once for all of its spans, so holding
# it beside each span would cost the request's span count times its size. last_received_ns is
# when a span last named it; one no held span or conflicting version names, not named for an
# hour, is deleted by the sweep.
pending_origins = Table(
    "pending_origins",
    metadata,
    Column("origin_key", String(), primary_key=True),
    Column("payload", LargeBinary, nullable=False),
    Column("last_received_ns", Int64, nullable=False),
)

# Spans received with the trace and span id of a span already held or stored, and other content
# (added by m008): refused in the response's partial_success, and kept here for an operator to
# see beside the first (trailcheck pending show) until dropped. against is "pending" or
# "stored": what held the first version. digest tells a version from another (the same
# conflicting version sent again is kept once).
span_conflicts = Table(
    "span_conflicts",
    metadata,
    Column("seq", Serial, primary_key=True, autoincrement=True),
    Column("trace_id", String(), nullable=False),
    Column("span_id", String(), nullable=False),
    Column("digest", String(), nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Column("origin_key", String()),
    Column("against", String(16), nullable=False),
    Column("received_ns", Int64, nullable=False),
    UniqueConstraint("trace_id", "span_id", "digest", name="uq_span_conflict"),
)
Index("ix_span_conflict_origin", span_conflicts.c.origin_key)

# GenAI log records received by the OTLP endpoint, held until their trace is complete; added by
# m005. A record carries no id of its own: record_key (a digest of its content, and which copy of
# identical records in one request it is) makes a retried export a repeat, not a duplicate. seq
# is arrival order, the order the records are joined to their spans in.
pending_log_events = Table(
    "pending_log_events",
    metadata,
    Column("seq", Serial, primary_key=True, autoincrement=True),
    Column("trace_id", String(), nullable=False),
    Column("span_id", String(), nullable=False),
    Column("record_key", String(), nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Column("received_ns", Int64, nullable=False),
    UniqueConstraint("trace_id", "span_id", "record_key", name="uq_pending_log_record"),
)

# Before m006, a trace the endpoint could not assemble or store was recorded here and its pending
# rows deleted; since m006 it is quarantined instead (below), and this table is only read.
rejected_traces = Table(
    "rejected_traces",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    Column("trace_id", String(), nullable=False),
    Column("reason", Text, nullable=False),
    Column("span_count", Int32, nullable=False),
    Column("rejected_ns", Int64, nullable=False),
)
Index("ix_rejected_trace", rejected_traces.c.trace_id)

# Pending traces set aside because completing them failed (added by m006): the sweep skips them,
# and their spans and log records stay in pending_spans and pending_log_events, untouched, until
# an operator retries (deletes the row) or drops them (trailcheck pending).
quarantined_traces = Table(
    "quarantined_traces",
    metadata,
    Column("trace_id", String(), primary_key=True),
    Column("reason", Text, nullable=False),
    Column("quarantined_ns", Int64, nullable=False),
)


# --- online scoring (added by m009): docs/online.md, trailcheck.online.queue -------------------

# Each evaluator version the worker has met: name@version, what it runs and its definition (the
# canonical JSON its version hashes), kept after the file changes so old scores stay explained.
online_evaluators = Table(
    "online_evaluators",
    metadata,
    Column("name", String(120), primary_key=True),
    Column("version", String(32), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("definition", Text, nullable=False),
    Column("registered_ns", Int64, nullable=False),
)

# How far an evaluator version has planned: every trace with seq <= last_seq has been considered
# (a job made when sampled and admitted), except the seqs in online_holes.
online_cursors = Table(
    "online_cursors",
    metadata,
    Column("name", String(120), primary_key=True),
    Column("version", String(32), primary_key=True),
    Column("last_seq", Int64, nullable=False),
    Column("updated_ns", Int64, nullable=False),
)

# Seqs below a cursor that no trace held when the cursor passed them: on PostgreSQL a seq is
# taken before its transaction commits, so a trace may still appear there; a hole is looked at
# again on every pass until its trace is planned or the hole is older than an hour.
online_holes = Table(
    "online_holes",
    metadata,
    Column("name", String(120), primary_key=True),
    Column("version", String(32), primary_key=True),
    Column("seq", Int64, primary_key=True),
    Column("noticed_ns", Int64, nullable=False),
)

# One row per (evaluator version, sampled trace): the queue. state is due (waiting for due_ns
# and next_attempt_ns), leased (a worker holds it until lease_expires_ns), or final: scored,
# skipped (the evaluator does not apply), failed (kept failing: attempts ran out) or
# quarantined (the evaluator crashed on this trace). trace_ns is when the trace started, the
# time windows count it in.
online_jobs = Table(
    "online_jobs",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    Column("name", String(120), nullable=False),
    Column("version", String(32), nullable=False),
    Column("trace_id", String(), nullable=False),
    Column("trace_ns", Int64, nullable=False),
    Column("due_ns", Int64, nullable=False),
    Column("state", String(16), nullable=False),
    Column("attempts", Int32, nullable=False),
    Column("next_attempt_ns", Int64, nullable=False),
    Column("lease_owner", String()),
    Column("lease_expires_ns", Int64),
    Column("last_error", Text),
    Column("updated_ns", Int64, nullable=False),
    UniqueConstraint("name", "version", "trace_id", name="uq_online_job"),
)
Index("ix_online_jobs_claim", online_jobs.c.state, online_jobs.c.due_ns)
Index("ix_online_jobs_window", online_jobs.c.name, online_jobs.c.version, online_jobs.c.trace_ns)

# A trace's score by an evaluator version: at most one (the key), written in the transaction
# that finishes its job; a failure carries the step where it began (attribution), when known.
online_scores = Table(
    "online_scores",
    metadata,
    Column("name", String(120), primary_key=True),
    Column("version", String(32), primary_key=True),
    Column("trace_id", String(), primary_key=True),
    Column("passed", Boolean, nullable=False),
    Column("value", Float),
    Column("label", String(120)),
    Column("reason", Text, nullable=False),
    Column("trace_ns", Int64, nullable=False),
    Column("scored_ns", Int64, nullable=False),
    Column("execution_id", BigInteger),
    # A failure's attribution (trailcheck.scorers.attribution) as JSON, when one was made.
    Column("attribution", Text),
)
Index(
    "ix_online_scores_window",
    online_scores.c.name,
    online_scores.c.version,
    online_scores.c.trace_ns,
)

# Every execution of an evaluator on a trace, whatever came of it (outcome: passed, failed,
# skipped, retry, gave_up, crashed, lost_lease): what it read (input_digest), which model and
# what it cost, how long it took, the error; record is the execution as a trailcheck trace.
online_executions = Table(
    "online_executions",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    Column("name", String(120), nullable=False),
    Column("version", String(32), nullable=False),
    Column("trace_id", String(), nullable=False),
    Column("attempt", Int32, nullable=False),
    Column("worker", String(), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("outcome", String(16), nullable=False),
    Column("started_ns", Int64, nullable=False),
    Column("duration_ns", Int64, nullable=False),
    Column("input_digest", String(64), nullable=False),
    Column("model", String()),
    Column("input_tokens", Int64),
    Column("output_tokens", Int64),
    Column("cost", Float),
    Column("error", Text),
    Column("record", Text, nullable=False),
)
Index(
    "ix_online_executions_trace",
    online_executions.c.name,
    online_executions.c.version,
    online_executions.c.trace_id,
)
Index("ix_online_executions_started", online_executions.c.kind, online_executions.c.started_ns)

# Alerts that fired: one per alert, evaluator version and window (the key), with the notice as
# JSON and what became of each delivery.
online_alerts = Table(
    "online_alerts",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    Column("alert", String(120), nullable=False),
    Column("name", String(120), nullable=False),
    Column("version", String(32), nullable=False),
    Column("window_start_ns", Int64, nullable=False),
    Column("window_end_ns", Int64, nullable=False),
    Column("fired_ns", Int64, nullable=False),
    Column("notice", Text, nullable=False),
    Column("deliveries", Text, nullable=False),
    UniqueConstraint("alert", "version", "window_start_ns", name="uq_online_alert"),
)


# --- retention and deletion on request (added by m011): docs/store.md -------------------------

# One row per prune or deletion that deleted something: what chose the traces (never the id a
# deletion named, only its digest), when, and how many rows of each table went; a prune's rows
# also count the traces it kept past their age, per reason. Written in the transaction of each
# batch it counts, so the log always says what is gone, even of a deletion cut short.
deletions = Table(
    "deletions",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    # "prune" or "delete".
    Column("action", String(16), nullable=False),
    # What chose the traces: "older_than 30d" (with "labelled pruned" when asked), or the kind
    # of id a deletion named ("session", "user: user.id enduser.id", "trace").
    Column("selector", Text, nullable=False),
    # The SHA-256 of the session, user or trace id a deletion named (hex); NULL for a prune.
    Column("selector_digest", String(64)),
    Column("started_ns", Int64, nullable=False),
    Column("updated_ns", Int64, nullable=False),
    Column("traces", Int64, nullable=False),
    # JSON objects: rows deleted per table; traces kept per reason (a prune's).
    Column("rows", Text, nullable=False),
    Column("kept", Text, nullable=False),
    # JSON list of the stored cases citing a deleted trace: "version/case_id" (a version
    # names its dataset: "shop@1a2b3c4d5e6f/c1").
    Column("cited_by", Text, nullable=False),
)
Index("ix_deletions_started", deletions.c.started_ns)

# The trace id of every table a trace owns rows of, indexed (by m011) where no key starts with
# it, so a prune or a deletion finds a batch's rows by index, never by a scan of the table.
TRACE_ID_INDEXES = (
    Index("ix_judge_labels_trace_id", judge_labels.c.trace_id),
    Index("ix_cluster_members_trace_id", cluster_members.c.trace_id),
    Index("ix_trials_trace_id", trials.c.trace_id),
    Index("ix_online_jobs_trace_id", online_jobs.c.trace_id),
    Index("ix_online_scores_trace_id", online_scores.c.trace_id),
    Index("ix_online_executions_trace_id", online_executions.c.trace_id),
)
