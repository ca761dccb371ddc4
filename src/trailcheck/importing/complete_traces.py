"""Never import a trace with a span missing. Shared by every span-based reader, and by an import
that pools the spans of several files.

The rule. When a decoder could not read a span, the trace it belonged to is withheld whole: a
trace with a span missing is not the trace that ran.

- A span that was read far enough to know its trace id (a bad attribute, a bad time) withholds
  that trace only, with one Rejection saying so.
- A part of the input that could not be read at all (a line that is not JSON, a truncated last
  line of a collector killed mid-write, a span whose trace id is unreadable) may have held spans
  of *any* trace: OTLP writes no span count and gives no order, and any trace, even one whose
  spans form a whole tree with one root, could have lost a leaf there. No narrower rule is
  sound, so every trace of the input is withheld. They are reported together, in one Rejection
  ("3 traces withheld because line 7 could not be read"), not one per trace.
- Where the readable prefix of such a part shows the trace id of a span on it
  (:mod:`trailcheck.importing.transport.cut_json`), that trace certainly lost a span: the reader
  rejects the part naming that trace
  (:func:`~trailcheck.importing.transport.lost_spans.shown_spans`). It withholds
  every other trace too, unless the part is known to hold no other span: the one case is a span
  JSONL line cut at the end of the
  input (:mod:`trailcheck.importing.span_jsonl`), which then withholds only its trace.
- A part known to hold no spans (a metrics or logs document in a collector file, ``{}``) is
  rejected (``Rejection.spans_lost`` is False) but withholds nothing.

With ``keep_incomplete``, the traces withheld only because an unreadable part *may* have held a
span of theirs are imported, each marked incomplete with the reason and the parts
(:mod:`trailcheck.trace.incomplete`); a trace known to have lost a span is still withheld.

"The input" is everything assembled together: one file for the ``read_*`` functions, every
span-based file of one ``trailcheck import`` (they are pooled, so a trace may span files).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final, Protocol

from trailcheck.importing.assemble import assemble_or_reject
from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.trace import Trace
from trailcheck.trace.incomplete import mark_incomplete

# Trace ids named in the one Rejection for traces withheld by an unreadable part.
_NAMED_TRACES: Final = 3


class SpanGroups(Protocol):
    """The spans of an input grouped by trace, each trace's in input order, the traces in the
    order of their first span: in memory (:func:`assemble_complete_traces`), or read back from
    disk one trace at a time (:mod:`trailcheck.importing.span_pool`)."""

    def spans_of(self, trace_id: str) -> list[RawSpan]:
        """The spans of one trace; none when the input holds none of it."""
        ...

    def sizes(self) -> Iterable[tuple[str, int]]:
        """Each trace and how many spans it has."""
        ...

    def groups(self) -> Iterable[list[RawSpan]]:
        """The spans of each trace."""
        ...


def assemble_complete_traces(
    items: Iterable[RawSpan | Rejection], source: str, *, keep_incomplete: bool = False
) -> Iterator[Trace | Rejection]:
    """Pass Rejections through and assemble the spans, except those of a trace that lost a span
    (see the module docstring for the rule).

    A Rejection with a ``trace_id`` marks that trace as incomplete; one without marks every
    trace, unless its ``spans_lost`` is False. A trace that lost a span of its own is withheld
    with one Rejection saying so; the traces withheld by an unreadable part, with one Rejection
    for all of them, or, with ``keep_incomplete``, they are imported marked incomplete. A
    Rejection names the file of a span (``RawSpan.source``), else ``source``.
    """
    groups = _GroupsInMemory()
    rejections: list[Rejection] = []
    for item in items:
        if isinstance(item, RawSpan):
            groups.add(item)
        else:
            rejections.append(item)
    yield from complete_traces(rejections, groups, source, keep_incomplete=keep_incomplete)


def complete_traces(
    rejections: Sequence[Rejection],
    groups: SpanGroups,
    source: str,
    *,
    keep_incomplete: bool = False,
) -> Iterator[Trace | Rejection]:
    """:func:`assemble_complete_traces` of an input read already: its Rejections, in input
    order, and its spans, grouped by trace. The Rejections come first, then those of the traces
    withheld, then the traces (or the Rejection of each that does not assemble), one at a time."""
    yield from rejections
    incomplete: dict[str, Rejection] = {}
    unreadable: list[Rejection] = []
    for rejection in rejections:
        if not rejection.spans_lost:
            continue
        if rejection.trace_id is not None:
            incomplete.setdefault(rejection.trace_id, rejection)
        else:
            unreadable.append(rejection)
    for trace_id, own in incomplete.items():
        lost = groups.spans_of(trace_id)
        if lost:
            yield _withheld_for_its_span(trace_id, lost, source, own)
    if unreadable and not keep_incomplete:
        withheld = _withheld_for_unreadable(
            ((trace_id, size) for trace_id, size in groups.sizes() if trace_id not in incomplete),
            unreadable,
        )
        if withheld is not None:
            yield withheld
        return
    assembled = (
        assemble_or_reject(spans, source)
        for spans in groups.groups()
        if spans[0].trace_id not in incomplete
    )
    yield from _marked_incomplete(assembled, unreadable) if unreadable else assembled


class _GroupsInMemory:
    """:class:`SpanGroups` of spans held in memory."""

    def __init__(self) -> None:
        self._by_trace: dict[str, list[RawSpan]] = {}

    def add(self, span: RawSpan) -> None:
        self._by_trace.setdefault(span.trace_id, []).append(span)

    def spans_of(self, trace_id: str) -> list[RawSpan]:
        return self._by_trace.get(trace_id, [])

    def sizes(self) -> Iterable[tuple[str, int]]:
        return ((trace_id, len(spans)) for trace_id, spans in self._by_trace.items())

    def groups(self) -> Iterable[list[RawSpan]]:
        return self._by_trace.values()


def _marked_incomplete(
    assembled: Iterable[Trace | Rejection], unreadable: list[Rejection]
) -> Iterator[Trace | Rejection]:
    """The traces kept although ``unreadable`` parts may have held a span of theirs, marked."""
    parts = [(rejection.source, rejection.line) for rejection in unreadable]
    reason = (
        f"{_where(unreadable, with_source=True)} could not be read ({unreadable[0].message});"
        f" a span on {'them' if len(unreadable) > 1 else 'it'} may have belonged to this trace"
    )
    for item in assembled:
        yield mark_incomplete(item, reason, parts) if isinstance(item, Trace) else item


def _where(unreadable: list[Rejection], *, with_source: bool = False) -> str:
    """Where the first unreadable part is (``line 7 (field)``), and how many others there are."""
    first = unreadable[0]
    if first.line is None:
        where = f"a part of {first.source}" if with_source else "part of the input"
    else:
        where = f"line {first.line} of {first.source}" if with_source else f"line {first.line}"
    if first.field is not None:
        where += f" ({first.field})"
    others = len(unreadable) - 1
    if others:
        where += f" and {others} other part{'s' if others > 1 else ''}"
    return where


def _withheld_for_its_span(
    trace_id: str, spans: list[RawSpan], source: str, own: Rejection
) -> Rejection:
    where = "" if own.line is None else f" on line {own.line}"
    if own.source != (spans[0].source or source):
        where += f" of {own.source}"
    return Rejection(
        spans[0].source or source,
        f"trace {trace_id!r} not imported: its span{where} is malformed (rejected above); its"
        f" {len(spans)} readable span(s) are withheld rather than imported with a span missing",
        line=spans[0].line,
        trace_id=trace_id,
    )


def _withheld_for_unreadable(
    withheld: Iterable[tuple[str, int]], unreadable: list[Rejection]
) -> Rejection | None:
    """One Rejection for every trace an unreadable part may have taken a span from (each with
    its count of spans); ``None`` when there is none."""
    traces = spans = 0
    first: list[str] = []
    for trace_id, size in withheld:
        traces += 1
        spans += size
        if len(first) < _NAMED_TRACES:
            first.append(trace_id)
    if not traces:
        return None
    named = ", ".join(repr(trace_id) for trace_id in first)
    if traces > _NAMED_TRACES:
        named += f" and {traces - _NAMED_TRACES} more"
    return Rejection(
        unreadable[0].source,
        f"{traces} trace{'s' if traces > 1 else ''} withheld because {_where(unreadable)} could"
        f" not be read (rejected above): a span on {'them' if len(unreadable) > 1 else 'it'}"
        f" may belong to any trace, so the {spans} readable span(s) of {named} are withheld"
        " rather than imported with a span missing (--keep-incomplete imports them, marked"
        " incomplete)",
        line=unreadable[0].line,
    )
