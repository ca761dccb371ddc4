"""Rejections for a part of an input that could not be read, naming the traces whose spans it
lost, so that assembly withholds them (the rule: :mod:`trailcheck.importing.complete_traces`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from trailcheck.errors import RecordError
from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.cut_json import ShownString


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


def shown_spans(broken: Rejection, shown: Iterable[ShownString]) -> Iterator[Rejection]:
    """For a part of the input that could not be read (``broken``), one Rejection per trace
    whose span its readable prefix shows (``shown``: the trace ids of those spans, each with its
    field path): each certainly lost a span there, so it stays withheld even when the traces the
    part only *may* have taken a span from are kept (``keep_incomplete``)."""
    paths: dict[str, str] = {}
    for found in shown:
        paths.setdefault(found.value, found.path)
    for trace_id, path in paths.items():
        yield Rejection(
            broken.source,
            f"trace {trace_id!r} lost a span here: the span's trace id is readable, the rest of"
            " it is not (see above)",
            line=broken.line,
            field=path,
            trace_id=trace_id,
        )
