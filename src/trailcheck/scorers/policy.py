"""The policy scorer: the case's ``policies`` over the trace's tool calls.

The rules and their evaluation are :mod:`trailcheck.policy`'s, shared with failure detection
and the inline guard, so a rule means the same offline as inline. Value = rules kept / rules;
passed iff no rule is broken (threshold 1.0: one unverified refund is not 90% compliant). The
reason lists every violation with the span of the call; evidence is those spans, or every call
checked when none broke a rule. No policies, no Score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from trailcheck.cases import Case, ScorerSpec
from trailcheck.policy import violations
from trailcheck.scorers.registry import scorer_to_spec
from trailcheck.scorers.score import Score, ratio
from trailcheck.trace import Trace


@dataclass(frozen=True)
class PolicyScorer:
    """Every rule in ``case.policies`` holds for every call."""

    name: ClassVar[str] = "policy"
    # Reads the calls: unscorable on a trace that recorded none (no tool span, no message).
    reads_calls: ClassVar[bool] = True
    version: ClassVar[str] = "1"

    def to_spec(self) -> ScorerSpec:
        return scorer_to_spec(self)

    def score(self, trace: Trace, case: Case) -> Score | None:
        rules = case.policies
        if not rules:
            return None
        found = violations(rules, trace)
        kept = sum(1 for rule in rules if not any(v.rule is rule for v in found))
        parts = [f"policy {ratio(kept, len(rules))} rules kept"]
        parts += [f"broken {violation}" for violation in found]
        if not found:
            parts.append(f"{len(trace.tool_calls)} calls checked")
        spans = [violation.call.span_id for violation in found] or [
            call.span_id for call in trace.tool_calls
        ]
        evidence = tuple(dict.fromkeys(spans))
        return Score(self.name, kept / len(rules), not found, 1.0, "; ".join(parts), evidence)
