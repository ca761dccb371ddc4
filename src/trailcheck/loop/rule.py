"""What every detection rule is: a name, the label it gives, a severity, and a detector.

A rule is data (``{name, label, severity, kind, ...settings}``, see :mod:`.rule_file`); its
``kind`` chooses the detector, which is built on a scorer or policy object rather than beside
it (:mod:`.call_rules`, :mod:`.answer_rules`). A detector returns :class:`Hit` values; the rule
turns them into at most one :class:`~trailcheck.trace.Finding` per trace, whose reason joins
the hits' reasons and whose evidence is their spans, so a trace is labelled once per rule
however often the failure recurs in it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.trace import Finding, Severity, Span, Trace

# A label as trailcheck.trace.Finding checks it: snake_case and specific.
LABEL_PATTERN = r"^[a-z][a-z0-9_]*$"
# The reasons of one finding: enough to read the first hits, never a wall of text.
MAX_REASONS = 5


@dataclass(frozen=True, slots=True)
class Hit:
    """One occurrence of a failure in a trace: why, and the spans that show it."""

    reason: str
    evidence: tuple[str, ...] = ()


class DetectionRule(BaseModel):
    """Base of the detection rules: frozen, strict, unknown settings refused."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    # A rule that reads message content (arguments, results, the answer) is not run on a trace
    # whose instrumentation did not record it (trailcheck.trace.content_gap).
    needs_content: ClassVar[bool] = False

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    label: str = Field(pattern=LABEL_PATTERN, max_length=120)
    severity: Severity
    description: str | None = None

    @abstractmethod
    def hits(self, trace: Trace) -> list[Hit]:
        """Every occurrence of the rule's failure in ``trace``, in trace order."""

    def detect(self, trace: Trace) -> Finding | None:
        """The rule's finding on ``trace``, or ``None`` when the failure is absent."""
        found = self.hits(trace)
        if not found:
            return None
        reasons = [hit.reason for hit in found[:MAX_REASONS]]
        if len(found) > MAX_REASONS:
            reasons.append(f"and {len(found) - MAX_REASONS} more")
        evidence = tuple(dict.fromkeys(span for hit in found for span in hit.evidence))
        return Finding(
            trace_id=trace.trace_id,
            label=self.label,
            severity=self.severity,
            reason="; ".join(" ".join(reason.split()) for reason in reasons),
            evidence=evidence,
            source=f"rule:{self.name}",
        )


def root_spans(trace: Trace) -> list[Span]:
    """The spans without a parent: the agent run itself, for traces that capture records."""
    return [span for span in trace.spans if span.parent_id is None]


def last_llm_span(trace: Trace) -> tuple[str, ...]:
    """The id of the last model call (the one that gave the answer), or nothing."""
    spans: Sequence[Span] = sorted(
        (span for span in trace.spans if span.kind == "llm"),
        key=lambda span: (span.start_ns, span.span_id),
    )
    return (spans[-1].span_id,) if spans else ()
