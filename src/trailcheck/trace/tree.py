"""Queries over the span tree of one trace: children, ancestors, roots, find."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from trailcheck.trace.kinds import SpanKind
from trailcheck.trace.span import Span


def _start_order(span: Span) -> tuple[int, str]:
    return (span.start_ns, span.span_id)


class SpanTree:
    """An index over a trace's spans. Siblings and roots are in start order (then span id).

    Built from the spans of a :class:`~trailcheck.trace.Trace`, which have unique ids and whose
    parents are all present.
    """

    def __init__(self, spans: Sequence[Span]) -> None:
        self._by_id: dict[str, Span] = {span.span_id: span for span in spans}
        self._children: dict[str, list[Span]] = {}
        roots: list[Span] = []
        for span in sorted(spans, key=_start_order):
            if span.parent_id is None:
                roots.append(span)
            else:
                self._children.setdefault(span.parent_id, []).append(span)
        self._roots = roots

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Span]:
        """Depth-first, pre-order, siblings in start order."""
        stack = list(reversed(self._roots))
        while stack:
            span = stack.pop()
            yield span
            stack.extend(reversed(self._children.get(span.span_id, [])))

    def get(self, span_id: str) -> Span:
        """The span with this id; ``KeyError`` naming it when there is none."""
        try:
            return self._by_id[span_id]
        except KeyError:
            raise KeyError(f"no span {span_id!r} in this trace") from None

    @property
    def roots(self) -> list[Span]:
        """Spans without a parent, in start order."""
        return list(self._roots)

    @property
    def root(self) -> Span | None:
        """The first root span (a well-formed trace has exactly one); ``None`` for no spans."""
        return self._roots[0] if self._roots else None

    def children(self, span_id: str) -> list[Span]:
        """Direct children of a span, in start order."""
        self.get(span_id)
        return list(self._children.get(span_id, []))

    def descendants(self, span_id: str) -> list[Span]:
        """Every span below this one, depth-first."""
        found: list[Span] = []
        stack = list(reversed(self.children(span_id)))
        while stack:
            span = stack.pop()
            found.append(span)
            stack.extend(reversed(self._children.get(span.span_id, [])))
        return found

    def parent(self, span_id: str) -> Span | None:
        """The parent span, or ``None`` for a root."""
        parent_id = self.get(span_id).parent_id
        return None if parent_id is None else self._by_id[parent_id]

    def ancestors(self, span_id: str) -> list[Span]:
        """Parent first, then its parent, up to the root."""
        found: list[Span] = []
        parent = self.parent(span_id)
        while parent is not None:
            found.append(parent)
            parent = self.parent(parent.span_id)
        return found

    def depth(self, span_id: str) -> int:
        """0 for a root, 1 for its children, and so on."""
        return len(self.ancestors(span_id))

    def find(
        self,
        *,
        name: str | None = None,
        kind: SpanKind | None = None,
        attribute: tuple[str, Any] | None = None,
        where: Callable[[Span], bool] | None = None,
    ) -> list[Span]:
        """Spans matching every condition given, in tree order.

        ``attribute=(key, value)`` matches spans whose attribute ``key`` equals ``value``;
        ``where`` is any predicate over the span.
        """
        return [
            span
            for span in self
            if (name is None or span.name == name)
            and (kind is None or span.kind == kind)
            and (
                attribute is None
                or (
                    attribute[0] in span.attributes
                    and span.attributes[attribute[0]] == attribute[1]
                )
            )
            and (where is None or where(span))
        ]
