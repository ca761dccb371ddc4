"""Never import a trace with a span missing: when a decoder could not read a span, the trace it
belonged to is withheld whole, with a Rejection saying why. Shared by every span-based reader."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from trailcheck.errors import RecordError
from trailcheck.ingest.assemble import assemble_traces
from trailcheck.ingest.records import RawSpan, Rejection
from trailcheck.trace import Trace


def assemble_complete_traces(
    items: Iterable[RawSpan | Rejection], source: str
) -> Iterator[Trace | Rejection]:
    """Pass Rejections through and assemble the spans, except those of a trace that lost a span.

    A Rejection with a ``trace_id`` marks that trace as incomplete; one without marks every
    trace of the input, since the spans it lost could belong to any of them. The spans of an
    incomplete trace are withheld with one Rejection per trace saying why.
    """
    spans: list[RawSpan] = []
    incomplete: dict[str, Rejection] = {}
    unknown: Rejection | None = None
    for item in items:
        if isinstance(item, RawSpan):
            spans.append(item)
            continue
        yield item
        if item.trace_id is not None:
            incomplete.setdefault(item.trace_id, item)
        elif unknown is None:
            unknown = item
    complete: list[RawSpan] = []
    withheld: dict[str, list[RawSpan]] = {}
    for span in spans:
        if unknown is not None or span.trace_id in incomplete:
            withheld.setdefault(span.trace_id, []).append(span)
        else:
            complete.append(span)
    for trace_id, kept_back in withheld.items():
        yield _withheld(trace_id, kept_back, source, incomplete.get(trace_id), unknown)
    yield from assemble_traces(complete, source)


def _withheld(
    trace_id: str,
    spans: list[RawSpan],
    source: str,
    own: Rejection | None,
    unknown: Rejection | None,
) -> Rejection:
    """Why a trace is withheld: its own lost span when it has one, else the unreadable part."""
    if own is not None:
        where = "" if own.line is None else f" on line {own.line}"
        reason = f"its span{where} is malformed (rejected above)"
    else:
        assert unknown is not None  # a trace is withheld only for one reason or the other
        where = f"line {unknown.line}" if unknown.line is not None else "part of the input"
        if unknown.field is not None:
            where += f" ({unknown.field})"
        reason = f"{where} could not be read, and the spans it held may belong to this trace"
    return Rejection(
        source,
        f"trace {trace_id!r} not imported: {reason}; its {len(spans)} readable span(s) are"
        " withheld rather than imported with a span missing",
        line=spans[0].line,
        trace_id=trace_id,
    )


def lost_spans(
    error: RecordError, trace_ids: Sequence[str | None] | None, source: str, line: int | None
) -> Iterator[Rejection]:
    """Rejections for a part of the input (a resource, a scope) whose spans are all lost: one per
    trace they belong to, and one without a trace id when some trace ids are unknown (``None``
    among them, or no list at all). Finding no spans yields one without a trace id too, so an
    error is never swallowed, even where the spans sit under a name we do not read."""
    known: dict[str, None] = {}
    some_unknown = not trace_ids
    for trace_id in trace_ids or ():
        if trace_id is None:
            some_unknown = True
        else:
            known[trace_id] = None
    for trace_id in known:
        yield Rejection(source, error.message, line=line, field=error.field, trace_id=trace_id)
    if some_unknown:
        yield Rejection(source, error.message, line=line, field=error.field)
