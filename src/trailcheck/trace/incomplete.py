"""A trace imported although a span of it may be missing says so, and what needs every span is
not judged on it.

An import withholds a trace that may have lost a span (:mod:`trailcheck.importing.complete_traces`).
With ``--keep-incomplete`` (``keep_incomplete=True``) it imports the traces withheld only
because a part of the input could not be read and *might* have held one of their spans, and
marks each in ``metadata["trailcheck.incomplete"]``::

    {"reason": "line 7 of spans.jsonl could not be read (...); a span on it may have belonged
                to this trace",
     "unreadable": [{"source": "spans.jsonl", "line": 7}]}

A trace known to have lost a span (a span of it was rejected, or an unreadable line shows its
trace id) is never imported.

A lost span may have held any call, message or the answer, so every built-in scorer and
detection rule needs the whole trace: on a marked trace grading is unscorable and detection runs
no rule. A scorer or rule of your own that reads only what a lost span cannot change says so
with a class attribute ``needs_complete_trace = False``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from trailcheck.trace.trace import Trace

INCOMPLETE_KEY: Final = "trailcheck.incomplete"


@dataclass(frozen=True, slots=True)
class Incompleteness:
    """Why a trace may be missing a span."""

    reason: str

    @property
    def verdict_reason(self) -> str:
        """One line for a verdict not given: what is missing and how the trace got in."""
        return f"incomplete trace: {self.reason} (imported with --keep-incomplete)"


def mark_incomplete(
    trace: Trace, reason: str, unreadable: Sequence[tuple[str, int | None]]
) -> Trace:
    """``trace`` marked as possibly missing a span for ``reason``: ``unreadable`` names the
    parts of the input (source, line) that may have held it."""
    mark = {
        "reason": reason,
        "unreadable": [{"source": source, "line": line} for source, line in unreadable],
    }
    return trace.model_copy(update={"metadata": {**trace.metadata, INCOMPLETE_KEY: mark}})


def incompleteness(trace: Trace) -> Incompleteness | None:
    """Why ``trace`` may be missing a span, or ``None`` when it is not marked incomplete. A mark
    written by hand without a reason still marks the trace."""
    if INCOMPLETE_KEY not in trace.metadata:
        return None
    mark = trace.metadata[INCOMPLETE_KEY]
    reason = mark.get("reason") if isinstance(mark, dict) else None
    return Incompleteness(reason if isinstance(reason, str) and reason else "marked incomplete")


def needs_complete_trace(checker: object) -> bool:
    """Whether a scorer or detection rule gives no verdict on an incomplete trace: unless it
    says otherwise (``needs_complete_trace = False``), it does."""
    return getattr(checker, "needs_complete_trace", True) is not False
