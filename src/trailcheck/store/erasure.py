"""Deletion on request: every stored trace of one session, one user or one trace id deleted,
with every row it owns (:mod:`trailcheck.store.owned_rows`), whatever holds it: a person's
right to be forgotten comes before a prune's holds. The stored cases that cite a deleted trace
are reported; they keep their copy (redacted when they were promoted), and the log of deletions
names them.

Which traces:

- ``session``: the traces whose ``traces.session_id`` is the id (the session of
  :mod:`trailcheck.trace.session`: ``gen_ai.conversation.id``, else ``session.id``);
- ``user``: the traces where one of the user keys (by default ``user.id``, ``enduser.id``,
  ``user_id`` and ``user``) holds the id: in the trace's metadata, its OpenTelemetry resource
  (``metadata["otel.resource"]``) or the attributes of any of its spans. No column holds a
  user, so the stored content is read: the rows whose content holds the id's JSON text, a page
  at a time, each decoded and checked;
- ``trace``: that trace id, and what the OTLP endpoint still holds under it (pending spans and
  log records, conflicting versions), stored or not.

A value counts when it is the id as text, or an integer whose decimal text is the id. Spans of a
session or user the endpoint still holds, not yet assembled into a stored trace, are not found
by their session or user (their trace has none yet): delete by trace id, or after the trace is
stored. The traces go in batches, each in its own transaction, the log row brought up to date
in each.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import orjson
from sqlalchemy import Connection, Engine, or_, select

from trailcheck.importing.assemble import RESOURCE_METADATA_KEY
from trailcheck.store import schema
from trailcheck.store.backends import read_only, writer_pause_s
from trailcheck.store.datasets import CaseSources, iter_case_sources
from trailcheck.store.deletion_log import LoggedDeletion, log_deletion, selector_digest
from trailcheck.store.owned_rows import (
    count_emptied_clusters,
    count_owned_rows,
    delete_owned_rows,
    tidy_clusters,
)
from trailcheck.store.pending import chunks

__all__ = ["DEFAULT_USER_KEYS", "Erasure", "ErasureSummary", "erase_traces", "matching_traces"]

DEFAULT_USER_KEYS: Final = ("user.id", "enduser.id", "user_id", "user")
ErasureKind = Literal["session", "user", "trace"]
_BATCH: Final = 500
_SCAN_PAGE: Final = 500


@dataclass(frozen=True)
class Erasure:
    """What a deletion on request deletes: the traces of session, user or trace ``value``
    (``kind``); ``user_keys``: where a user id is looked for."""

    kind: ErasureKind
    value: str
    user_keys: tuple[str, ...] = DEFAULT_USER_KEYS
    also_stored_as: tuple[str, ...] = ()
    """Other forms the id may be stored in: its keyed hash, when the store was redacted at
    intake with rules that hash it (:meth:`trailcheck.redaction.Redactor.stored_forms`)."""

    @property
    def forms(self) -> tuple[str, ...]:
        """The id and every form it may be stored in."""
        return tuple(dict.fromkeys((self.value, *self.also_stored_as)))

    @property
    def selector(self) -> str:
        """How the log of deletions names this deletion (the kind, never the id)."""
        return f"user: {' '.join(self.user_keys)}" if self.kind == "user" else self.kind


@dataclass
class ErasureSummary:
    """What a deletion on request deleted (or, dry, would delete): the traces, rows per table,
    and the stored cases that cite one of them."""

    erasure: Erasure
    dry_run: bool
    trace_ids: list[str] = field(default_factory=list)
    """The traces matched (for a trace id: that id, when anything was stored under it)."""
    rows: dict[str, int] = field(default_factory=dict)
    cited_by: list[CaseSources] = field(default_factory=list)
    deletion_id: int | None = None

    @property
    def traces(self) -> int:
        """How many stored traces went (or, dry, would go)."""
        return self.rows.get(schema.traces.name, 0)


def matching_traces(engine: Engine, erasure: Erasure) -> list[str]:
    """The ids of the stored traces ``erasure`` names, in ingestion order for each form of the
    id (for a trace id: that id, whether or not it is stored, for what the endpoint holds
    under it)."""
    if erasure.kind == "trace":
        return [erasure.value]
    traces = schema.traces
    if erasure.kind == "session":
        query = select(traces.c.trace_id).where(traces.c.session_id.in_(erasure.forms))
        with read_only(engine) as connection:
            return list(connection.scalars(query.order_by(traces.c.seq)))
    found = [_user_traces(engine, form, erasure.user_keys) for form in erasure.forms]
    return list(dict.fromkeys(trace_id for traces_of in found for trace_id in traces_of))


def erase_traces(engine: Engine, erasure: Erasure, *, dry_run: bool = False) -> ErasureSummary:
    """Delete the traces ``erasure`` names and every row they own, a batch per transaction, and
    log it; with ``dry_run`` only count them. The stored cases citing them are reported."""
    started_ns = time.time_ns()
    summary = ErasureSummary(erasure=erasure, dry_run=dry_run)
    trace_ids = matching_traces(engine, erasure)
    with read_only(engine) as connection:
        wanted = set(trace_ids)
        summary.cited_by = [
            case for case in iter_case_sources(connection) if wanted & set(case.source_trace_ids)
        ]
    pause = 0.0 if dry_run else writer_pause_s(engine)
    for number, batch in enumerate(chunks(trace_ids, _BATCH)):
        if number and pause:
            time.sleep(pause)  # other writers take the lock (store.backends.writer_pause_s)
        with read_only(engine) if dry_run else engine.begin() as connection:
            owned = count_owned_rows if dry_run else delete_owned_rows
            for table, count in owned(connection, batch).items():
                summary.rows[table] = summary.rows.get(table, 0) + count
            summary.trace_ids += batch
            if not dry_run and summary.rows:
                summary.deletion_id = _log(connection, summary, started_ns)
    with read_only(engine) if dry_run else engine.begin() as connection:
        emptied = (
            count_emptied_clusters(connection, wanted) if dry_run else tidy_clusters(connection)
        )
        if emptied:
            summary.rows["clusters"] = emptied
            if not dry_run:
                summary.deletion_id = _log(connection, summary, started_ns)
    if erasure.kind == "trace" and not summary.rows:
        summary.trace_ids = []  # nothing under that id: no trace was matched
    return summary


def _log(connection: Connection, summary: ErasureSummary, started_ns: int) -> int:
    done = LoggedDeletion(
        action="delete",
        selector=summary.erasure.selector,
        selector_digest=selector_digest(summary.erasure.value),
        started_ns=started_ns,
        traces=summary.traces,
        rows=summary.rows,
        kept={},
        cited_by=[case.named for case in summary.cited_by],
    )
    return log_deletion(connection, summary.deletion_id, done)


def _user_traces(engine: Engine, user: str, keys: Sequence[str]) -> Iterator[str]:
    """The traces a user key names ``user`` in (see the module), by a scan of the rows whose
    content holds the id's JSON text, a page per query."""
    traces = schema.traces
    quoted = orjson.dumps(user).decode()
    # A string value is stored as its JSON text; an integer as its digits.
    held = traces.c.content.contains(quoted, autoescape=True)
    if user.isascii() and user.isdigit():
        held = or_(held, traces.c.content.contains(user, autoescape=True))
    query = select(traces.c.seq, traces.c.trace_id, traces.c.content).where(held)
    position = 0
    while True:
        with read_only(engine) as connection:
            page = connection.execute(
                query.where(traces.c.seq > position).order_by(traces.c.seq).limit(_SCAN_PAGE)
            ).all()
        for seq, trace_id, content in page:
            position = seq
            if _names_user(orjson.loads(content), user, keys):
                yield trace_id
        if len(page) < _SCAN_PAGE:
            return


def _names_user(trace: Mapping[str, Any], user: str, keys: Sequence[str]) -> bool:
    metadata = trace.get("metadata") or {}
    resource = metadata.get(RESOURCE_METADATA_KEY)
    places = [metadata, resource if isinstance(resource, dict) else {}]
    places += [span.get("attributes") or {} for span in trace.get("spans") or ()]
    return any(_identifier(place.get(key)) == user for place in places for key in keys)


def _identifier(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    return value if isinstance(value, str) else None
