"""A lead: one piece of evidence of where a failed run went wrong, before one is chosen.

Each failed scorer gives its leads (:mod:`.departures`, :mod:`.values`, :mod:`.ending`); the
attributor keeps the lead on the earliest step. :class:`Steps` is the trace as the leads place
themselves on it: the step of each span, the span that gave the answer, and where the run
ended.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from trailcheck.cases import AwkwardKind
from trailcheck.scorers.attribution import Attribution, AttributionCategory
from trailcheck.scorers.steps import trace_steps
from trailcheck.scorers.termination import answer_span
from trailcheck.trace import Span, Trace

# Among leads on the same span, the more specific evidence first: a named rule, then the
# expected sequence, then values, then what the answer said, then how the run ended.
_RANK: dict[AttributionCategory, int] = {
    "policy_breach": 0,
    "wrong_tool": 1,
    "tool_returned_wrong_data": 2,
    "misread_tool_result": 2,
    "wrong_argument": 2,
    "unsupported_claim": 3,
    "gave_up_or_looped": 4,
    "simulated_user_error": 5,
    "infrastructure": 6,
}


@dataclass(frozen=True, slots=True)
class Lead:
    """Evidence that the run went wrong at ``span_id``. ``symptom_span_id``: where it became
    visible, when that is another span; ``missing_tool``: a lead that only says a tool was not
    called where it was due; ``requires``: the tool a broken rule needed before this call (it
    says better where that tool was due, so it replaces the leads missing it); ``offset``: the
    position in the answer of what an answer lead quotes (the first sentence wins)."""

    span_id: str
    category: AttributionCategory
    evidence: str
    symptom_span_id: str | None = None
    missing_tool: str | None = None
    requires: str | None = None
    offset: int = 0


class Steps:
    """The steps of one trace (:func:`~trailcheck.scorers.steps.trace_steps`), the spans that
    leads about the end of the run name, and the calls whose result the case declares correct
    but awkward (``awkward``: span id to kind; :mod:`.awkward`)."""

    def __init__(self, trace: Trace, awkward: Mapping[str, AwkwardKind] | None = None) -> None:
        self.awkward: Mapping[str, AwkwardKind] = awkward or {}
        self.spans = trace_steps(trace)
        self.number = {span.span_id: step for step, span in enumerate(self.spans, start=1)}
        answering = answer_span(trace)
        self.last_id: str | None = self.spans[-1].span_id if self.spans else None
        """The last step: where a run that gave no answer stopped."""
        self.answer_id: str | None = answering.span_id if answering is not None else self.last_id
        """The span that gave the answer (the last llm span, else the last step): where a run
        answered instead of doing what it never did."""

    def span(self, span_id: str) -> Span:
        return self.spans[self.number[span_id] - 1]

    def name(self, span_id: str) -> str:
        """A tool span by its tool's name (``search_orders``), any other by its span name."""
        span = self.span(span_id)
        return span.tool.name if span.tool is not None else span.name

    def describe(self, span_id: str) -> str:
        """``search_orders (step 2)``."""
        return f"{self.name(span_id)} (step {self.number[span_id]})"


def choose(leads: Sequence[Lead], steps: Steps) -> Attribution | None:
    """The lead on the earliest step (ties: the more specific evidence, then the earlier part
    of the answer) as an Attribution; ``None`` when no lead names a step."""
    required = {lead.requires for lead in leads if lead.requires is not None}
    placed = [
        lead for lead in leads if lead.span_id in steps.number and lead.missing_tool not in required
    ]
    if not placed:
        return None
    first = min(
        placed,
        key=lambda lead: (steps.number[lead.span_id], _RANK[lead.category], lead.offset),
    )
    symptom = first.symptom_span_id
    return Attribution(
        span_id=first.span_id,
        step=steps.number[first.span_id],
        name=steps.name(first.span_id),
        category=first.category,
        evidence=first.evidence,
        symptom_span_id=symptom if symptom != first.span_id else None,
    )
