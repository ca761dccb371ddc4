"""The parts of a source trace that trailcheck kept without interpreting: its reading report.

Conventions drift: a framework writes a message role, a content block, an attribute shape or an
event that no reader knows yet. That is never a reason to refuse the trace. The span keeps its
attributes and events verbatim (as every span does); what trailcheck would have derived from
the part (the span's messages, its tool call, its token counts) is left out; and the trace says
so in its reading report (:mod:`trailcheck.trace.unread`), one entry per part.
The import summary counts such traces and ``trailcheck traces show`` lists the parts.

Only broken structure rejects a trace: ids, times, parentage, an encoding that cannot be read
(:mod:`trailcheck.importing.assemble`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from trailcheck.errors import RecordError
from trailcheck.trace.unread import UNREAD_METADATA_KEY

__all__ = ["UNREAD_METADATA_KEY", "UnreadParts"]

T = TypeVar("T")


@dataclass(slots=True)
class UnreadParts:
    """Collects what could not be interpreted while the spans of one trace are read."""

    parts: list[dict[str, Any]] = field(default_factory=list)

    def attempt(self, read: Callable[[], T], fallback: T, span_id: str) -> T:
        """``read()``; when the part it reads is not understood (a RecordError), the part is
        noted against ``span_id`` and ``fallback`` stands in for it."""
        try:
            return read()
        except RecordError as error:
            self.note(span_id, error.field or "attributes", error.message)
            return fallback

    def note(self, span_id: str | None, where: str, reason: str) -> None:
        self.parts.append({"span_id": span_id, "field": where, "reason": reason})
