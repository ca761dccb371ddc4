"""One online evaluator on one trace: passed, failed, or does not apply, and why.

The deterministic kinds (``rule``, ``scorer``, ``policy``) are plain functions of the trace: the
same trace and version always give the same outcome, so an exception raised by one is a fault
of that evaluator on that trace, which the worker quarantines rather than retries. A ``judge``
is asked through a :data:`JudgeRunner`, which the worker is given (a model judge built from the
spec, or a fake in tests); a judging that yields no verdict (the model could not be reached, or
never answered in the schema) is :class:`Unjudged`, which the worker retries with backoff.

An evaluator that does not apply to a trace (a rule that reads content the instrumentation did
not record, a rule that needs every span on a trace imported incomplete, a scorer with nothing
to grade) is ``skipped`` with the reason: not a pass, never counted in a failure rate.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from trailcheck.cases import Case
from trailcheck.judge.verdict import Judging
from trailcheck.loop import Rule
from trailcheck.online.config import Evaluator, online_scorer
from trailcheck.policy.evaluate import violations
from trailcheck.scorers import PolicyScorer
from trailcheck.scorers.attribute import attribute
from trailcheck.scorers.attribution import Attribution, AttributionCategory
from trailcheck.scorers.grade import Grade
from trailcheck.scorers.score import Score, Scorer
from trailcheck.scorers.steps import trace_steps
from trailcheck.trace import Severity, Trace
from trailcheck.trace.content_gap import content_gap
from trailcheck.trace.incomplete import incompleteness, needs_complete_trace

__all__ = [
    "EvaluatorOutcome",
    "JudgeResult",
    "JudgeRunner",
    "Unjudged",
    "evaluate_deterministic",
    "evaluate_judge",
]

OutcomeKind = Literal["passed", "failed", "skipped"]

# The severity of a failure found by a scorer, policy or judge (a rule carries its own).
DEFAULT_SEVERITY: Severity = "medium"


@dataclass(frozen=True, slots=True)
class EvaluatorOutcome:
    """What one evaluator made of one trace. ``label`` names the failure (the rule's label, the
    judge's failure mode, else the evaluator's name) and ``evidence`` the spans that show it;
    ``model`` and the tokens say what a judge spent."""

    kind: OutcomeKind
    reason: str
    value: float | None = None
    label: str | None = None
    severity: Severity = DEFAULT_SEVERITY
    evidence: tuple[str, ...] = ()
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    attribution: Attribution | None = None

    @property
    def passed(self) -> bool:
        return self.kind == "passed"


@dataclass(frozen=True, slots=True)
class JudgeResult:
    """A judging, with the model that judged and what it spent (``None`` when not known)."""

    judging: Judging
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


JudgeRunner = Callable[[Evaluator, Trace], Awaitable[JudgeResult]]
"""Judges a trace for a ``judge`` evaluator."""


@dataclass(frozen=True, slots=True)
class Unjudged:
    """A judging without a verdict: retried, and counted as failed when retries run out."""

    reason: str
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


# The case a reference-free scorer is given: it asks for nothing, so the scorer grades the trace
# on its own.
_NO_CASE = Case(id="online", input="(online traffic: no case)")


def evaluate_deterministic(
    evaluator: Evaluator,
    trace: Trace,
    rules: Mapping[str, Rule],
    scorer: Scorer | None = None,
) -> EvaluatorOutcome:
    """The outcome of a ``rule``, ``scorer`` or ``policy`` evaluator on ``trace``; whatever it
    raises propagates (the worker quarantines the trace for this evaluator). ``scorer``: the
    evaluator's scorer, built once by a caller that scores many traces (else built here)."""
    if evaluator.rule is not None:
        return _rule_outcome(rules[evaluator.rule], trace)
    if evaluator.scorer is not None:
        scorer = scorer or online_scorer(evaluator.scorer)
        score = scorer.score(trace, _NO_CASE)
        if score is None:
            return EvaluatorOutcome("skipped", f"scorer {evaluator.scorer.name}: nothing to grade")
        return EvaluatorOutcome(
            "passed" if score.passed else "failed",
            score.reason,
            value=score.value,
            label=None if score.passed else evaluator.name,
            evidence=score.evidence,
            attribution=_attributed(trace, _NO_CASE, score, scorer),
        )
    if evaluator.policy is not None:
        case = Case(id="online", input=_NO_CASE.input, policies=evaluator.policy)
        policy = PolicyScorer()
        score = policy.score(trace, case)
        if score is None or score.passed:
            return EvaluatorOutcome("passed", f"{len(evaluator.policy)} policy rules kept")
        found = violations(evaluator.policy, trace)
        return EvaluatorOutcome(
            "failed",
            "; ".join(str(violation) for violation in found) or score.reason,
            label=evaluator.name,
            severity="high",
            evidence=tuple(dict.fromkeys(v.call.span_id for v in found if v.call.span_id)),
            attribution=_attributed(trace, case, score, policy),
        )
    raise ValueError(f"evaluator {evaluator.name!r} is a {evaluator.kind}, not deterministic")


def _rule_outcome(rule: Rule, trace: Trace) -> EvaluatorOutcome:
    # As detect does: a rule is not run where its failure would be the telemetry's.
    gap = content_gap(trace) if rule.needs_content else None
    if gap is not None:
        return EvaluatorOutcome("skipped", f"rule {rule.name} reads content not recorded")
    incomplete = incompleteness(trace) if needs_complete_trace(rule) else None
    if incomplete is not None:
        return EvaluatorOutcome("skipped", incomplete.verdict_reason)
    finding = rule.detect(trace)
    if finding is None:
        return EvaluatorOutcome("passed", f"rule {rule.name}: no {rule.label}")
    return EvaluatorOutcome(
        "failed",
        finding.reason,
        label=finding.label,
        severity=finding.severity,
        evidence=finding.evidence,
        attribution=_rule_attribution(rule, finding.evidence, finding.reason, trace),
    )


# What a detection rule's finding says went wrong, by the rule's kind (a kind not listed here
# is not attributed: its finding names no step that began the failure).
_RULE_CATEGORIES: dict[str, AttributionCategory] = {
    "policy": "policy_breach",
    "efficiency": "gave_up_or_looped",
    "rate_limit_retry": "gave_up_or_looped",
    "final_answer": "gave_up_or_looped",
    "date_argument": "wrong_argument",
    "unsupported_claim": "unsupported_claim",
    "grounding": "unsupported_claim",
    "error_ignored": "misread_tool_result",
}


def _rule_attribution(
    rule: Rule, evidence: Sequence[str], reason: str, trace: Trace
) -> Attribution | None:
    """The earliest step among the finding's evidence, with the category of the rule's kind."""
    category = _RULE_CATEGORIES.get(rule.kind)
    steps = trace_steps(trace)
    shown = set(evidence)
    first = next(
        ((index, span) for index, span in enumerate(steps, 1) if span.span_id in shown), None
    )
    if category is None or first is None:
        return None
    step, span = first
    return Attribution(
        span_id=span.span_id, step=step, name=span.name, category=category, evidence=reason
    )


def _attributed(trace: Trace, case: Case, score: Score, scorer: Scorer) -> Attribution | None:
    """Where a failed score began, by the deterministic attributor (``None`` for a pass)."""
    if score.passed:
        return None
    failed = Grade(
        trace_id=trace.trace_id, case_id=case.id, status="failed", scores=(score,), reason=""
    )
    return attribute(trace, case, failed, [scorer])


async def evaluate_judge(
    evaluator: Evaluator, trace: Trace, runner: JudgeRunner
) -> EvaluatorOutcome | Unjudged:
    """The judge's outcome on ``trace``, or :class:`Unjudged` when no verdict came."""
    result = await runner(evaluator, trace)
    verdict = result.judging.verdict
    if verdict is None:
        return Unjudged(
            result.judging.reason or "the judge gave no verdict",
            model=result.model,
            input_tokens=result.input_tokens,
            output_tokens=result.output_tokens,
        )
    reason = result.judging.reason or ("passed" if verdict.passed else "failed")
    return EvaluatorOutcome(
        "passed" if verdict.passed else "failed",
        reason,
        label=None if verdict.passed else (verdict.failure_mode or evaluator.name),
        model=result.model,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
    )
