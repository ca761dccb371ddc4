"""Leads from how the run ended: what the answer said, how the run stopped, and where it went
round in circles; and, when nothing else explains a failure, a tool that failed on its own.

- **unsupported claim**: a sentence of the answer with a figure no tool result or the input
  holds (the grounding scorer's reading), or claiming a change the state does not show (the
  termination scorer's claim rules). The lead is the span that gave the answer, and the
  sentence quoted; the first such sentence wins.
- **gave up or looped**: no answer; an answer given before a required write was made; a call
  repeated past the efficiency scorer's limits (the lead is the call that went past).
- **infrastructure**: a tool call that failed with an error the case did not inject (its
  ``faults``), taken only when no other lead was found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from trailcheck.cases import Case
from trailcheck.scorers.attribute.lead import Lead, Steps
from trailcheck.scorers.efficiency import EfficiencyScorer
from trailcheck.scorers.grounding import GroundingScorer, answer_support
from trailcheck.scorers.termination import (
    TerminationScorer,
    answer_claims,
    attempts,
    has_answer,
    required_writes,
)
from trailcheck.trace import Trace

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_QUOTED_LIMIT = 200


def sentence_at(text: str, offset: int) -> str:
    """The sentence of ``text`` around ``offset``, cut short past a limit."""
    start = 0
    for end in _SENTENCE_END.finditer(text):
        if end.start() >= offset:
            sentence = text[start : end.start()]
            break
        start = end.end()
    else:
        sentence = text[start:]
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= _QUOTED_LIMIT else sentence[: _QUOTED_LIMIT - 1] + "…"


def _no_answer(steps: Steps) -> Lead:
    return Lead(steps.last_id or "", "gave_up_or_looped", "the run ended without a final answer")


def grounding_leads(trace: Trace, scorer: GroundingScorer, steps: Steps) -> list[Lead]:
    """Each sentence of the answer holding a figure nothing supports."""
    answer = trace.final_text
    if not answer.strip():
        return [_no_answer(steps)]
    leads: list[Lead] = []
    for figure, holders in answer_support(trace, day_first=scorer.day_first):
        if holders:
            continue
        offset = max(answer.find(figure.text), 0)
        evidence = (
            f'the answer says "{sentence_at(answer, offset)}": {figure.shown} is in no tool'
            " result nor the input"
        )
        leads.append(Lead(steps.answer_id or "", "unsupported_claim", evidence, offset=offset))
    return leads


def termination_leads(
    trace: Trace, case: Case, scorer: TerminationScorer, steps: Steps
) -> list[Lead]:
    """No answer; each claim the state does not back; a required write never made."""
    if not has_answer(trace):
        return [_no_answer(steps)]
    answer = trace.final_text
    leads: list[Lead] = []
    for claim in answer_claims(trace, answer, scorer.claim_rules):
        if claim.problem is None:
            continue
        offset = claim.found.start()
        evidence = (
            f'the answer says "{sentence_at(answer, offset)}" (claim {claim.rule.claim})'
            f" but {claim.problem}"
        )
        leads.append(Lead(steps.answer_id or "", "unsupported_claim", evidence, offset=offset))
    writes = required_writes(trace, case, scorer.write_tools)
    if writes is not None and writes.missing:
        tried = attempts(writes.calls, writes.missing)
        evidence = f"the run answered before {', '.join(writes.missing)}{tried}"
        leads.append(Lead(steps.answer_id or "", "gave_up_or_looped", evidence))
    return leads


def efficiency_leads(trace: Trace, scorer: EfficiencyScorer) -> list[Lead]:
    """Each failed call check, at the call that went past its limit."""
    return [
        Lead(check.crossed, "gave_up_or_looped", f"{check.label}: {check.details[0]}")
        for check in scorer.checks(trace)
        if not check.passed and check.crossed is not None
    ]


def infrastructure_leads(trace: Trace, case: Case) -> Sequence[Lead]:
    """The first tool call that failed with an error the case did not inject."""
    injected = [(fault.tool, fault.error) for fault in case.faults if fault.error]
    for call in trace.tool_calls:
        error = call.error
        if error is None or any(t == call.name and e in error for t, e in injected):
            continue
        return [Lead(call.span_id, "infrastructure", f"{call.name} failed: {error}")]
    return []
