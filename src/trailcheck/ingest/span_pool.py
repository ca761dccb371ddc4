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

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from trailcheck.ingest.records import RawSpan, Rejection

# Span ids named in a Rejection for files that disagree about a trace.
_NAMED_SPANS: Final = 3


@dataclass(slots=True)
class SpanPool:
    """What :func:`pool_spans` found. ``items`` are to be assembled together (the Rejections of
    reading, and the spans of every trace that is not refused); ``sources`` names, per trace, the
    files its spans come from; ``copies`` the files that only repeat a trace's spans."""

    items: list[RawSpan | Rejection] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    copies: dict[str, list[str]] = field(default_factory=dict)


def pool_spans(items: Iterable[RawSpan | Rejection], default_source: str) -> SpanPool:
    """The spans and Rejections of several files, pooled by the rules of the module docstring.
    A span without a ``source`` counts as from ``default_source``."""
    read = list(items)
    parts: dict[str, dict[str, set[str]]] = {}
    for item in read:
        if isinstance(item, RawSpan):
            file_parts = parts.setdefault(item.trace_id, {})
            file_parts.setdefault(item.source or default_source, set()).add(item.span_id)
    pool = SpanPool()
    refusals: list[Rejection] = []
    joined_parts: set[tuple[str, str]] = set()
    for trace_id, file_parts in parts.items():
        joined, copies, refusal = _split(trace_id, file_parts)
        if refusal is not None:
            refusals.append(refusal)
            continue
        joined_parts.update((trace_id, source) for source in joined)
        pool.sources[trace_id] = ", ".join(joined)
        if copies:
            pool.copies[trace_id] = copies
    for item in read:
        if (
            isinstance(item, Rejection)
            or (item.trace_id, item.source or default_source) in joined_parts
        ):
            pool.items.append(item)
    pool.items.extend(refusals)
    return pool


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
