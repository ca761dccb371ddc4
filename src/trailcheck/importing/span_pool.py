"""The spans of several files as one input, so a trace split across files (a collector rotating
its output file, an exporter writing one file per batch) is assembled from all of its parts.

A trace's spans are grouped by the file that holds them, in file order:

- a file holding none of the span ids the earlier files hold of that trace adds its spans to it;
- a file holding only span ids the earlier files hold of that trace (the same file imported
  twice, overlapping exports) is a copy: its spans are not added, and the importer rejects it as
  a second import of the trace;
- a file holding some of those span ids and others besides disagrees with the earlier files
  about what the trace is: no part of the trace is imported, and one Rejection says why.

Within one file a repeated span id stays what it was: a duplicate span, which rejects its trace.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

from trailcheck.importing.log_join import join_log_events
from trailcheck.importing.records import LogEvent, RawSpan, Rejection
from trailcheck.importing.span_store import SpanStore

# Span ids named in a Rejection for files that disagree about a trace.
_NAMED_SPANS: Final = 3


@dataclass(slots=True)
class PoolFindings:
    """What pooling found across the traces: ``refusals`` of traces the files disagree about,
    and per trace, the files that only repeat its spans (``copies``)."""

    refusals: list[Rejection] = field(default_factory=list)
    copies: dict[str, list[str]] = field(default_factory=dict)


class PooledSpans:
    """The spans of several files, kept in a :class:`~trailcheck.importing.span_store.SpanStore`,
    pooled by the rules of the module docstring, trace by trace: a
    :class:`~trailcheck.importing.complete_traces.SpanGroups` whose traces hold the spans of the
    files that make them up, each with the GenAI log events that name it joined
    (:mod:`~trailcheck.importing.log_join`). A trace the files disagree about holds none."""

    def __init__(self, store: SpanStore) -> None:
        self._store = store

    def findings(self) -> PoolFindings:
        """The refusals and copies of every trace, in order of its first span."""
        found = PoolFindings()
        for trace_id, parts in self._store.trace_parts():
            _, copies, refusal = _split(trace_id, _file_parts(parts))
            if refusal is not None:
                found.refusals.append(refusal)
            elif copies:
                found.copies[trace_id] = copies
        return found

    def sources_of(self, trace_id: str) -> str:
        """The files whose spans make up the trace."""
        return ", ".join(_split(trace_id, _file_parts(self._store.parts_of(trace_id)))[0])

    def spans_of(self, trace_id: str) -> list[RawSpan]:
        return self._pooled(trace_id, *self._store.trace(trace_id))

    def sizes(self) -> Iterator[tuple[str, int]]:
        for trace_id, parts in self._store.trace_parts():
            joined, _, refusal = _split(trace_id, _file_parts(parts))
            if refusal is None:
                yield trace_id, sum(source in joined for source, _ in parts)

    def groups(self) -> Iterator[list[RawSpan]]:
        for trace_id, spans, logs in self._store.traces():
            pooled = self._pooled(trace_id, spans, logs)
            if pooled:
                yield pooled

    def _pooled(self, trace_id: str, spans: list[RawSpan], logs: list[LogEvent]) -> list[RawSpan]:
        if not spans:
            return []
        if logs:
            # Joined to copies (a trace may be read twice), counted for the whole input apart.
            spans = [dataclasses.replace(span, events=list(span.events)) for span in spans]
            join_log_events([*spans, *logs])
        parts = [(_source(span), span.span_id) for span in spans]
        joined, _, refusal = _split(trace_id, _file_parts(parts))
        if refusal is not None:
            return []
        return [span for span in spans if _source(span) in joined]


def _source(span: RawSpan) -> str:
    assert span.source is not None  # the spill holds only spans that name their file
    return span.source


def _file_parts(parts: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    """The span ids of a trace per file, the files in order of their first span of it."""
    file_parts: dict[str, set[str]] = {}
    for source, span_id in parts:
        file_parts.setdefault(source, set()).add(span_id)
    return file_parts


def _split(
    trace_id: str, file_parts: dict[str, set[str]]
) -> tuple[list[str], list[str], Rejection | None]:
    """The files whose spans make up the trace, the files that are copies, or the refusal."""
    joined: list[str] = []
    copies: list[str] = []
    seen: set[str] = set()
    for source, span_ids in file_parts.items():
        repeated = span_ids & seen
        if not repeated:
            joined.append(source)
            seen |= span_ids
        elif repeated == span_ids:
            copies.append(source)
        else:
            return joined, copies, _disagreement(trace_id, source, joined, repeated, span_ids)
    return joined, copies, None


def _disagreement(
    trace_id: str, source: str, earlier: list[str], repeated: set[str], span_ids: set[str]
) -> Rejection:
    named = ", ".join(repr(span_id) for span_id in sorted(repeated)[:_NAMED_SPANS])
    if len(repeated) > _NAMED_SPANS:
        named += f" and {len(repeated) - _NAMED_SPANS} more"
    return Rejection(
        source,
        f"trace {trace_id!r} not imported: this file holds {len(repeated)} of its spans that"
        f" {', '.join(earlier)} hold(s) too ({named}) and {len(span_ids - repeated)} that"
        " they do not, so it is neither more of the trace nor a copy of it",
        field="span_id",
        trace_id=trace_id,
        # Its spans are left out here, with this Rejection saying why; no other trace lost any.
        spans_lost=False,
    )
