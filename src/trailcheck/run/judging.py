"""A case's rubrics judged after its deterministic grade, each verdict one more Score.

Code checks what code can check first; a judge answers only the case's ``rubrics`` (one
criterion each). A verdict becomes a ``judge`` Score (1 passed, 0 failed) whose reason names
the criterion, the judge version, the failed criteria and the failure mode; a judging without a
valid verdict, or a judge that raised, is a scorer failure, so the trial is unscorable with the
reason kept. A case with rubrics and no judge configured keeps its deterministic grade, and the
reason says how many rubrics went unjudged: never a silent pass. A trace whose instrumentation
did not record the conversation's content, or one imported with a span possibly missing
(``--keep-incomplete``), is not judged: the trial is unscorable, saying so.
"""

from __future__ import annotations

import asyncio

from trailcheck.cases import Case
from trailcheck.judge.judge import Judge
from trailcheck.judge.verdict import JudgeItem, Judging
from trailcheck.scorers import Grade, Score, ScorerFailure
from trailcheck.scorers.grade import content_not_captured, grade_verdict, incomplete_trace
from trailcheck.trace import Trace
from trailcheck.trace.content_gap import content_gap
from trailcheck.trace.incomplete import incompleteness

JUDGE_SCORER = "judge"


def _score(judging: Judging) -> Score:
    verdict = judging.verdict
    assert verdict is not None  # only judged judgings become scores
    parts = [f"judge {judging.judge_version}: {'passed' if verdict.passed else 'failed'}"]
    parts.append(f"criterion: {judging.criterion}")
    if verdict.failed_criteria:
        parts.append(f"failed: {'; '.join(verdict.failed_criteria)}")
    if verdict.failure_mode:
        parts.append(f"failure mode: {verdict.failure_mode}")
    if verdict.evidence:
        parts.append(f"evidence: {' | '.join(verdict.evidence)}")
    return Score(
        scorer=JUDGE_SCORER,
        value=1.0 if verdict.passed else 0.0,
        passed=verdict.passed,
        threshold=1.0,
        reason="; ".join(parts),
    )


def _failure(judging: Judging) -> ScorerFailure:
    raw = f"; raw answer: {judging.raw}" if judging.raw else ""
    return ScorerFailure(
        scorer=JUDGE_SCORER,
        error_type="Unscorable",
        message=f"criterion {judging.criterion!r}: {judging.reason}{raw}",
        traceback="",
    )


async def _judge_one(judge: Judge, item: JudgeItem) -> Judging | ScorerFailure:
    try:
        return await judge.judge(item)
    # A judge's bug is the trial's data, like a scorer's: recorded, and the run goes on.
    except Exception as error:  # noqa: BLE001
        failure = ScorerFailure.from_exception(JUDGE_SCORER, error)
        return failure.model_copy(update={"message": f"criterion {item.criterion!r}: {error}"})


async def judged(graded: Grade, trace: Trace, case: Case, judge: Judge | None) -> Grade:
    """``graded`` with the case's rubrics judged (see the module docstring)."""
    if not case.rubrics:
        return graded
    if judge is None:
        unjudged = f"{len(case.rubrics)} rubric(s) not judged: no judge configured"
        return graded.model_copy(update={"reason": f"{graded.reason}; {unjudged}"})
    # A judge reads what was said; a trace that did not record it all is not judged.
    not_judged: ScorerFailure | None = None
    incomplete, gap = incompleteness(trace), content_gap(trace)
    if incomplete is not None:
        not_judged = incomplete_trace(JUDGE_SCORER, incomplete)
    elif gap is not None:
        not_judged = content_not_captured(JUDGE_SCORER, gap)
    if not_judged is not None:
        failures = [*graded.failures, not_judged]
        status, reason = grade_verdict(graded.scores, failures, explicit=True)
        return graded.model_copy(
            update={"failures": tuple(failures), "status": status, "reason": reason}
        )
    items = [
        JudgeItem(item_id=trace.trace_id, trace=trace, criterion=rubric, case=case)
        for rubric in case.rubrics
    ]
    outcomes = await asyncio.gather(*(_judge_one(judge, item) for item in items))
    scores = list(graded.scores)
    failures = list(graded.failures)
    for outcome in outcomes:
        if isinstance(outcome, ScorerFailure):
            failures.append(outcome)
        elif outcome.status == "judged":
            scores.append(_score(outcome))
        else:
            failures.append(_failure(outcome))
    status, reason = grade_verdict(scores, failures, explicit=True)
    return graded.model_copy(
        update={
            "status": status,
            "reason": reason,
            "scores": tuple(scores),
            "failures": tuple(failures),
        }
    )
