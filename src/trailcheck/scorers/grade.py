"""Grading one trace against one case: every scorer the case asks for, every Score kept.

A case names its scorers in ``scorers``; without that list the built-ins run in the fixed order
of :data:`DEFAULT_SCORER_ORDER`, and each produces a Score only when the case asks for its
check. Nothing stops at the first failure, so one failure never hides another.

The verdict:

- ``unscorable`` when a scorer raised (its :class:`ScorerFailure` says why); when the trace
  was imported incomplete (``--keep-incomplete``: a span of it may be missing,
  :mod:`trailcheck.trace.incomplete`) and a scorer that needs every span (every built-in does)
  applies to the case: its Score would judge the spans that were kept, not the run; when the
  trace's instrumentation did not record the conversation's content
  (:func:`~trailcheck.trace.content_gap.content_gap`) and a scorer that reads content
  (``needs_content``: arguments, results, the answer), or reads the calls (``reads_calls``) of a
  trace that recorded none, applies to the case: its Score would judge telemetry, not the agent,
  so it is replaced by a failure saying what to turn on; or when nothing
  case-specific was checked: no scorer produced a Score, or the case names no scorers and only
  the generic ones did (efficiency, termination and grounding apply to any trace, so a case
  with no expectation of its own would otherwise pass every fluent answer);
- else ``passed`` iff every Score passed, ``failed`` otherwise.

:func:`grade` returns a :class:`Grade`, a record (:mod:`trailcheck.trace.record`): the same
function and the same record for one trace in a test and for millions in bulk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from trailcheck.cases import BUILTIN_SCORER_ORDER, Case
from trailcheck.scorers.attribute import attribute
from trailcheck.scorers.attribution import Attribution
from trailcheck.scorers.registry import case_scorers
from trailcheck.scorers.score import Score, Scorer, ScorerFailure, run_scorer
from trailcheck.trace import Trace
from trailcheck.trace.content_gap import ContentGap, content_gap
from trailcheck.trace.incomplete import Incompleteness, incompleteness, needs_complete_trace
from trailcheck.trace.record import Record

GradeStatus = Literal["passed", "failed", "unscorable"]
# The error type of a scorer that gave no verdict because the trace's content was not recorded.
CONTENT_NOT_CAPTURED = "ContentNotCaptured"
# The error type of a scorer that gave no verdict because a span of the trace may be missing.
INCOMPLETE_TRACE = "IncompleteTrace"

DEFAULT_SCORER_ORDER = BUILTIN_SCORER_ORDER
# The built-ins that apply to any trace, whatever the case states.
GENERIC_SCORERS = frozenset({"efficiency", "termination", "grounding"})


class Grade(Record, frozen=True, kw_only=True):
    """One trace graded against one case. ``reason``: why the grade is what it is (the failed
    scorers, the failures, or what was missing); ``attribution``: for a failed grade, the span
    where the failure began, when it can be told (:mod:`trailcheck.scorers.attribution`)."""

    trace_id: str
    case_id: str
    status: GradeStatus
    scores: tuple[Score, ...] = ()
    failures: tuple[ScorerFailure, ...] = ()
    reason: str
    attribution: Attribution | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def grade(
    trace: Trace,
    case: Case,
    scorers: Sequence[Scorer] | None = None,
    *,
    attribution: bool = True,
) -> Grade:
    """Grade ``trace`` against ``case`` with ``scorers`` (default: :func:`case_scorers`). A
    failed grade carries its attribution (:func:`~trailcheck.scorers.attribute.attribute`)
    unless ``attribution`` is false."""
    chosen = case_scorers(case) if scorers is None else scorers
    scores: list[Score] = []
    failures: list[ScorerFailure] = []
    gap, incomplete = content_gap(trace), incompleteness(trace)
    for scorer in chosen:
        _keep(scorer, run_scorer(scorer, trace, case), scores, failures, gap, incomplete)
    status, reason = grade_verdict(scores, failures, explicit=case.scorers is not None)
    graded = Grade(
        trace_id=trace.trace_id,
        case_id=case.id,
        status=status,
        scores=tuple(scores),
        failures=tuple(failures),
        reason=reason,
    )
    if status != "failed" or not attribution:
        return graded  # the common case: nothing to attribute
    found = attribute(trace, case, graded, chosen)
    return graded if found is None else graded.model_copy(update={"attribution": found})


def _keep(
    scorer: Scorer,
    outcome: Score | ScorerFailure | None,
    scores: list[Score],
    failures: list[ScorerFailure],
    gap: ContentGap | None,
    incomplete: Incompleteness | None,
) -> None:
    """Sort a scorer's outcome into ``scores`` or ``failures``; a score that would judge a
    trace with a span missing, or telemetry without content, is replaced by a failure."""
    if outcome is None:
        return
    if incomplete is not None and needs_complete_trace(scorer):
        failures.append(incomplete_trace(scorer.name, incomplete))
    elif gap is not None and _unjudgeable(scorer, gap):
        failures.append(content_not_captured(scorer.name, gap))
    elif isinstance(outcome, ScorerFailure):
        failures.append(outcome)
    else:
        scores.append(outcome)


def grade_verdict(
    scores: Sequence[Score], failures: Sequence[ScorerFailure], *, explicit: bool
) -> tuple[GradeStatus, str]:
    """The status and reason of a grade made of ``scores`` and ``failures`` (see the module
    docstring); ``explicit``: the case itself says what to check (its scorers, or rubrics)."""
    if failures:
        return "unscorable", _failures_reason(failures)
    if not scores:
        return "unscorable", "no scorer applied: the case checks nothing"
    if not explicit and all(score.scorer in GENERIC_SCORERS for score in scores):
        return "unscorable", (
            "the case states no expectation (tools, arguments, state, policies or a reference"
            " response); only generic checks ran"
        )
    failed = [score.scorer for score in scores if not score.passed]
    if failed:
        return "failed", f"failed: {', '.join(failed)} ({len(scores) - len(failed)} passed)"
    return "passed", f"all {len(scores)} scores passed"


def content_not_captured(scorer: str, gap: ContentGap) -> ScorerFailure:
    """Why ``scorer`` gave no verdict on a trace whose content was not recorded."""
    return ScorerFailure(
        scorer=scorer, error_type=CONTENT_NOT_CAPTURED, message=gap.reason, traceback=""
    )


def incomplete_trace(scorer: str, incomplete: Incompleteness) -> ScorerFailure:
    """Why ``scorer`` gave no verdict on a trace imported with a span possibly missing."""
    return ScorerFailure(
        scorer=scorer,
        error_type=INCOMPLETE_TRACE,
        message=incomplete.verdict_reason,
        traceback="",
    )


def _unjudgeable(scorer: Scorer, gap: ContentGap) -> bool:
    """Whether ``scorer`` would judge the telemetry rather than the agent on a trace with
    ``gap``: it reads content, or it reads the calls and the calls were not recorded."""
    if getattr(scorer, "needs_content", False):
        return True
    return gap.calls_unrecorded and getattr(scorer, "reads_calls", False)


def _failures_reason(failures: Sequence[ScorerFailure]) -> str:
    """The failures, one each; those of an incomplete trace together, its reason said once."""
    incomplete = [failure for failure in failures if failure.error_type == INCOMPLETE_TRACE]
    reasons = [_failure_reason(f) for f in failures if f.error_type != INCOMPLETE_TRACE]
    if incomplete:
        names = ", ".join(failure.scorer for failure in incomplete)
        reasons.insert(0, f"{incomplete[0].message}; no verdict from {names}")
    return ", ".join(reasons)


def _failure_reason(failure: ScorerFailure) -> str:
    if failure.error_type == CONTENT_NOT_CAPTURED:
        return f"{failure.scorer} unscorable: {failure.message}"
    return f"{failure.scorer} raised {failure.error_type}: {failure.message}"
