"""Detectors over how a run ended: its answer, its claims, and whether it ended at all.

- ``unsupported_claim``: the answer claims a change (a :class:`~trailcheck.scorers.ClaimRule`
  pattern matches) that ``state_after`` does not show, as
  :func:`~trailcheck.scorers.termination.unsupported_claim` decides; the termination scorer's
  default claims (refund, reschedule, cancel, booked) unless ``claims`` are given. Traces
  without ``state_after`` are not checked.
- ``error_ignored``: a tool call failed, no later call of the same tool succeeded, and the
  answer still claims success (``success_pattern``, or any claim pattern).
- ``grounding``: the answer's figures are not all in the evidence, by
  :class:`~trailcheck.scorers.GroundingScorer` (its reason, with the arithmetic). A run without
  an answer is ``final_answer``'s to report.
- ``final_answer``: the run ended normally (no crash, no timeout) without a final answer.
- ``agent_outcome``: the run itself failed. A root span in error is a ``timeout`` when its
  exception (event ``exception.type``, else the status message) is a ``TimeoutError`` or a
  ``CancelledError`` (what an ``asyncio.timeout`` leaves in the agent), and ``crashed``
  otherwise. An exception event marked with a ``trailcheck.capture.phase`` (the environment's
  snapshot failing) is the harness's, not the agent's, and is not counted.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from trailcheck.cases import Case
from trailcheck.loop.rule import DetectionRule, Hit, last_llm_span, root_spans
from trailcheck.scorers import ClaimRule, GroundingScorer
from trailcheck.scorers.termination import DEFAULT_CLAIM_RULES, has_answer, unsupported_claim
from trailcheck.specs.patterns import valid_regex
from trailcheck.trace import Trace

DEFAULT_SUCCESS = (
    r"(?i)\bsuccessfully\b|\ball (?:set|done)\b"
    r"|\b(?:has|have) been (?:updated|sent|submitted|processed|completed|issued|changed|saved)\b"
)
"""Generic phrases of success, beside the claim patterns."""
TIMEOUT_EXCEPTIONS = ("TimeoutError", "CancelledError")
"""Exception type names (the last dotted part) that mean the run was stopped for time."""
CAPTURE_PHASE = "trailcheck.capture.phase"
# Grounding reads only the trace; the scorer's signature asks for a case, which it ignores.
_NO_CASE = Case(id="detection", input="(detection reads the trace only)")


class ClaimSpec(BaseModel):
    """A claim as a rule file writes it; see :class:`~trailcheck.scorers.ClaimRule`."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    claim: str = Field(min_length=1)
    pattern: str
    state_path: str = Field(min_length=1)

    _compiles = field_validator("pattern")(valid_regex)

    def rule(self) -> ClaimRule:
        return ClaimRule(self.claim, self.pattern, self.state_path)


def _claim_rules(claims: list[ClaimSpec] | None) -> tuple[ClaimRule, ...]:
    return DEFAULT_CLAIM_RULES if claims is None else tuple(c.rule() for c in claims)


def _compiled_claims(
    claims: list[ClaimSpec] | None,
) -> tuple[tuple[ClaimRule, re.Pattern[str]], ...]:
    """Each claim rule with its pattern compiled as the termination scorer reads it."""
    return tuple((rule, re.compile(rule.pattern, re.IGNORECASE)) for rule in _claim_rules(claims))


class UnsupportedClaimRule(DetectionRule):
    """An answer claiming a change the state does not show."""

    needs_content: ClassVar[bool] = True

    kind: Literal["unsupported_claim"] = "unsupported_claim"
    claims: list[ClaimSpec] | None = None

    @cached_property
    def _claims(self) -> tuple[tuple[ClaimRule, re.Pattern[str]], ...]:
        return _compiled_claims(self.claims)

    def hits(self, trace: Trace) -> list[Hit]:
        if trace.state_after is None or not has_answer(trace):
            return []
        answer = trace.final_text
        found: list[Hit] = []
        for rule, pattern in self._claims:
            said = pattern.search(answer)
            if said is None:
                continue
            problem = unsupported_claim(rule, trace)
            if problem is not None:
                reason = f'answer claims {rule.claim} ("{said.group(0)}") but {problem}'
                found.append(Hit(reason, last_llm_span(trace)))
        return found


class ErrorIgnoredRule(DetectionRule):
    """A tool error left unrecovered, and an answer that claims success anyway."""

    needs_content: ClassVar[bool] = True

    kind: Literal["error_ignored"] = "error_ignored"
    success_pattern: str = DEFAULT_SUCCESS
    claims: list[ClaimSpec] | None = None

    _compiles = field_validator("success_pattern")(valid_regex)

    @cached_property
    def _patterns(self) -> tuple[re.Pattern[str], ...]:
        success = re.compile(self.success_pattern, re.IGNORECASE)
        return (success, *(pattern for _, pattern in _compiled_claims(self.claims)))

    def _success(self, answer: str) -> str | None:
        for pattern in self._patterns:
            said = pattern.search(answer)
            if said is not None:
                return said.group(0)
        return None

    def hits(self, trace: Trace) -> list[Hit]:
        calls = trace.tool_calls
        # The calls first: most runs have no unrecovered error, and then the answer is not read.
        ignored = [
            call
            for index, call in enumerate(calls)
            if not call.succeeded
            and not any(c.name == call.name and c.succeeded for c in calls[index + 1 :])
        ]
        said = self._success(trace.final_text) if ignored and has_answer(trace) else None
        if said is None:
            return []
        answer_span = last_llm_span(trace)
        return [
            Hit(
                f"{call.name} at {call.span_id} failed ({call.error}) and was not retried"
                f' successfully, yet the answer says "{said}"',
                (call.span_id, *answer_span),
            )
            for call in ignored
        ]


class GroundingRule(DetectionRule):
    """Figures in the answer that the evidence does not hold."""

    needs_content: ClassVar[bool] = True

    kind: Literal["grounding"] = "grounding"
    threshold: float = Field(1.0, ge=0.0, le=1.0)
    day_first: bool = False

    @cached_property
    def _scorer(self) -> GroundingScorer:
        return GroundingScorer(threshold=self.threshold, day_first=self.day_first)

    def hits(self, trace: Trace) -> list[Hit]:
        if not has_answer(trace) or self._passes(_input_only(trace)):
            return []
        # The verdict and its reason.
        score = self._scorer.score(trace, _NO_CASE)
        if score is None or score.passed:
            return []
        return [Hit(score.reason, last_llm_span(trace))]

    def _passes(self, trace: Trace) -> bool:
        score = self._scorer.score(trace, _NO_CASE)
        return score is None or score.passed


def _input_only(trace: Trace) -> Trace:
    """``trace`` without its spans: the user input is its only evidence. Evidence only adds
    support, so an answer grounded on this copy is grounded on the trace, and the tool calls'
    arguments and results (most of a trace, and most of grounding's cost) need not be read."""
    return trace.model_copy(update={"spans": []})


def _agent_error(trace: Trace) -> tuple[str, str] | None:
    """``(exception type, span id)`` of the run's own failure, or ``None`` when it ended."""
    for span in root_spans(trace):
        events = [event for event in span.events if event.name == "exception"]
        if any(CAPTURE_PHASE in event.attributes for event in events):
            continue
        for event in events:
            kind = event.attributes.get("exception.type")
            if isinstance(kind, str) and kind:
                return kind, span.span_id
        if span.status.code == "error":
            message = span.status.message or "error"
            return message.split(":", 1)[0].strip(), span.span_id
    return None


def _is_timeout(exception_type: str) -> bool:
    return exception_type.rsplit(".", 1)[-1] in TIMEOUT_EXCEPTIONS


class FinalAnswerRule(DetectionRule):
    """A run that ended normally without an answer."""

    needs_content: ClassVar[bool] = True

    kind: Literal["final_answer"] = "final_answer"

    def hits(self, trace: Trace) -> list[Hit]:
        if has_answer(trace) or _agent_error(trace) is not None:
            return []
        calls = len(trace.tool_calls)
        models = sum(span.kind == "llm" for span in trace.spans)
        reason = f"no final answer after {calls} tool calls and {models} model calls"
        return [Hit(reason, last_llm_span(trace))]


class AgentOutcomeRule(DetectionRule):
    """The run crashed, or was stopped for time."""

    kind: Literal["agent_outcome"] = "agent_outcome"
    outcome: Literal["crashed", "timeout"]

    def hits(self, trace: Trace) -> list[Hit]:
        error = _agent_error(trace)
        if error is None:
            return []
        exception_type, span_id = error
        outcome = "timeout" if _is_timeout(exception_type) else "crashed"
        if outcome != self.outcome:
            return []
        unfinished = [span.span_id for span in trace.spans if span.end_ns is None]
        left = f"; {len(unfinished)} spans left unfinished" if unfinished else ""
        verb = "was stopped by" if outcome == "timeout" else "raised"
        return [Hit(f"the agent run at {span_id} {verb} {exception_type}{left}", (span_id,))]
