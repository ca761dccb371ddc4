"""Failure attribution: the span where a failed run first went wrong, and how.

A failed grade says *that* a run failed; an :class:`Attribution` says *where the failure
began*: the first span whose output was already wrong, which is often upstream of the visible
error (a search that returned an old order id, three steps before the refund that raised). It
names the span (its id, its step and its name), a :data:`AttributionCategory`, the evidence,
and the span where the failure became visible when that is another one.

``step`` is the span's 1-based position among the trace's steps: its spans other than the
root, in the order they started (the order the report and the web UI list the trajectory).
``source`` says who attributed it: the deterministic attributor (from what the scorers know
against the case's reference) or a judge (where no reference decides it).
"""

from __future__ import annotations

from typing import Literal, get_args

from trailcheck.trace.kinds import NonEmpty
from trailcheck.trace.record import Record

__all__ = [
    "ATTRIBUTION_CATEGORIES",
    "Attribution",
    "AttributionCategory",
    "AttributionSource",
]

AttributionCategory = Literal[
    "wrong_tool",
    "wrong_argument",
    "tool_returned_wrong_data",
    "misread_tool_result",
    "unsupported_claim",
    "policy_breach",
    "gave_up_or_looped",
    "simulated_user_error",
    "infrastructure",
]
ATTRIBUTION_CATEGORIES: tuple[AttributionCategory, ...] = get_args(AttributionCategory)

AttributionSource = Literal["deterministic", "judge"]


class Attribution(Record, frozen=True, kw_only=True):
    """Where a failed run first went wrong: the span (its id, its step: its 1-based position
    among the trace's spans other than the root, in start order; its name), how (the
    category), the evidence, the span where the failure became visible when that is another
    one, and who attributed it."""

    span_id: NonEmpty
    step: int
    name: str
    category: AttributionCategory
    evidence: str
    symptom_span_id: str | None = None
    source: AttributionSource = "deterministic"

    def __post_init__(self) -> None:
        if self.step < 1:
            raise ValueError(f"an attributed span's step counts from 1, not {self.step}")
