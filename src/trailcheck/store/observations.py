"""What people and rules say about stored traces: findings (labels) and free-text notes.

Findings from rules (``source="rule:<name>"``) and hand labels (``"human:<name>"``) sit in one
table, told apart by their source; a finding is keyed by (trace, label, source), so adding it
again replaces its severity, reason and evidence (a re-run of detection) and adds nothing.
Notes are open coding: free text, no label yet, any number per trace.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice

import orjson
from pydantic import ValidationError
from sqlalchemy import Connection, insert, select, tuple_, update

from trailcheck.errors import UsageError
from trailcheck.store import schema
from trailcheck.trace import Finding, Severity

__all__ = [
    "Note",
    "UnknownTraceError",
    "hand_label",
    "insert_note",
    "read_findings",
    "read_notes",
    "require_traces",
    "write_findings",
]

_CHUNK = 500


class UnknownTraceError(UsageError):
    """A trace id that the store does not hold."""

    def __init__(self, trace_ids: Sequence[str]) -> None:
        self.trace_ids = tuple(trace_ids)
        shown = ", ".join(repr(trace_id) for trace_id in self.trace_ids[:5])
        more = f" and {len(self.trace_ids) - 5} more" if len(self.trace_ids) > 5 else ""
        noun = "trace" if len(self.trace_ids) == 1 else "traces"
        super().__init__(f"no {noun} {shown}{more} in the store")


@dataclass(frozen=True)
class Note:
    """A free-text note on a trace, by ``author``, at ``created_ns``."""

    note_id: int
    trace_id: str
    text: str
    author: str
    created_ns: int


def require_traces(connection: Connection, trace_ids: Iterable[str]) -> None:
    """Raise UnknownTraceError naming every id of ``trace_ids`` that is not stored."""
    wanted = sorted(set(trace_ids))
    traces = schema.traces
    found: set[str] = set()
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        found.update(
            connection.scalars(select(traces.c.trace_id).where(traces.c.trace_id.in_(chunk)))
        )
    missing = [trace_id for trace_id in wanted if trace_id not in found]
    if missing:
        raise UnknownTraceError(missing)


def _finding_row(finding: Finding, now: int) -> dict[str, object]:
    return {
        "trace_id": finding.trace_id,
        "label": finding.label,
        "severity": finding.severity,
        "reason": finding.reason,
        "evidence": orjson.dumps(list(finding.evidence)).decode(),
        "source": finding.source,
        "created_ns": now,
    }


def _write_chunk(connection: Connection, chunk: list[Finding], now: int) -> int:
    findings = schema.findings
    columns = (findings.c.trace_id, findings.c.label, findings.c.source)
    wanted = {(f.trace_id, f.label, f.source): f for f in chunk}
    query = select(*columns).where(tuple_(*columns).in_(list(wanted)))
    stored = {(trace_id, label, source) for trace_id, label, source in connection.execute(query)}
    new = [f for k, f in wanted.items() if k not in stored]
    if new:
        connection.execute(insert(findings), [_finding_row(f, now) for f in new])
    for trace_id, label, source in stored:
        finding = wanted[(trace_id, label, source)]
        connection.execute(
            update(findings)
            .where(
                findings.c.trace_id == trace_id,
                findings.c.label == label,
                findings.c.source == source,
            )
            .values(
                severity=finding.severity,
                reason=finding.reason,
                evidence=orjson.dumps(list(finding.evidence)).decode(),
            )
        )
    return len(new)


def write_findings(connection: Connection, findings: Iterable[Finding]) -> int:
    """Add or refresh ``findings`` in the caller's transaction; how many were new. Every trace
    they name must be stored (else UnknownTraceError, and nothing is written)."""
    now = time.time_ns()
    added = 0
    iterator = iter(findings)
    while chunk := list(islice(iterator, _CHUNK)):
        require_traces(connection, (finding.trace_id for finding in chunk))
        added += _write_chunk(connection, chunk, now)
    return added


def read_findings(
    connection: Connection, *, label: str | None = None, trace_id: str | None = None
) -> list[Finding]:
    """The stored findings, optionally of one label or one trace, oldest first."""
    table = schema.findings
    query = select(table).order_by(table.c.created_ns, table.c.id)
    if label is not None:
        query = query.where(table.c.label == label)
    if trace_id is not None:
        query = query.where(table.c.trace_id == trace_id)
    return [
        Finding(
            trace_id=row.trace_id,
            label=row.label,
            severity=row.severity,
            reason=row.reason,
            evidence=tuple(orjson.loads(row.evidence)),
            source=row.source,
        )
        for row in connection.execute(query)
    ]


def hand_label(
    connection: Connection, trace_id: str, label: str, who: str, severity: Severity
) -> Finding:
    """Label trace ``trace_id`` by hand as ``who`` (axial coding); the Finding stored."""
    if not who.strip():
        raise UsageError("a hand label needs the name of who assigns it")
    try:
        finding = Finding(
            trace_id=trace_id,
            label=label,
            severity=severity,
            reason=f"labelled {label} by hand by {who}",
            source=f"human:{who}",
        )
    except ValidationError as error:
        problem = error.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        raise UsageError(f"label {label!r}: field {field!r}: {problem['msg']}") from None
    write_findings(connection, [finding])
    return finding


def insert_note(connection: Connection, trace_id: str, text: str, author: str) -> Note:
    """Add a note to trace ``trace_id``; the Note stored."""
    if not text.strip():
        raise UsageError(f"note on trace {trace_id!r}: the text is empty")
    if not author.strip():
        raise UsageError(f"note on trace {trace_id!r}: the author is empty")
    require_traces(connection, [trace_id])
    now = time.time_ns()
    row = {"trace_id": trace_id, "text": text, "author": author, "created_ns": now}
    key = connection.execute(insert(schema.notes).values(row)).inserted_primary_key
    assert key is not None  # an insert of one row always has its key
    return Note(int(key[0]), trace_id, text, author, now)


def read_notes(connection: Connection, trace_id: str | None = None) -> list[Note]:
    """The notes, of one trace or of all, oldest first."""
    table = schema.notes
    query = select(table).order_by(table.c.created_ns, table.c.id)
    if trace_id is not None:
        query = query.where(table.c.trace_id == trace_id)
    return [
        Note(row.id, row.trace_id, row.text, row.author, row.created_ns)
        for row in connection.execute(query)
    ]
