"""A candidate judge (a cheaper model, a new prompt) against the current one, on the same labels.

Each judge's figures are computed on its own scorable items, side by side, and the differences
are candidate − judge. Whether the candidate agrees with people less often is tested on the
items both judges scored, with the exact McNemar test of
:func:`~trailcheck.run.compare.mcnemar_exact_p`: under no difference, an item where exactly one
judge agrees with the human is as likely to favour either; the items where both agree or both
disagree say nothing about the difference and are only counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from trailcheck.intervals import Rate
from trailcheck.judge.figures import (
    AgreementFigures,
    CalibrationOptions,
    JudgeRun,
    SplitFigures,
    agreement_figures,
)
from trailcheck.judge.labels import HumanLabel, LabelKey
from trailcheck.judge.verdict import Judging
from trailcheck.significance import mcnemar_exact_p

__all__ = ["AgreementTest", "CandidateComparison", "FigureDifferences", "compare_judges"]

SIGNIFICANCE: Final = 0.05


class FigureDifferences(BaseModel):
    """Candidate − judge, over all labels; None where either side is undefined."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agreement: float | None
    cohen_kappa: float | None
    false_pass_rate: float | None
    false_fail_rate: float | None
    n_unscorable: int


class AgreementTest(BaseModel):
    """Exact McNemar test of agreement with people, on the items both judges scored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: str = "exact-mcnemar"
    n_both_scored: int
    both_agree: int
    both_disagree: int
    only_judge_agrees: int
    only_candidate_agrees: int
    p_value: float
    statement: str


class CandidateComparison(BaseModel):
    """A candidate judge's figures beside the judge's, their differences and the paired test."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge_version: str
    judge: dict[str, Any]
    figures: AgreementFigures
    splits: SplitFigures
    differences: FigureDifferences
    agreement_test: AgreementTest


def _difference(candidate: float | None, judge: float | None) -> float | None:
    return None if candidate is None or judge is None else candidate - judge


def _rate_difference(candidate: Rate, judge: Rate) -> float | None:
    return _difference(candidate.value, judge.value)


def _differences(judge: AgreementFigures, candidate: AgreementFigures) -> FigureDifferences:
    return FigureDifferences(
        agreement=_rate_difference(candidate.agreement, judge.agreement),
        cohen_kappa=_difference(candidate.cohen_kappa.value, judge.cohen_kappa.value),
        false_pass_rate=_rate_difference(candidate.false_pass_rate, judge.false_pass_rate),
        false_fail_rate=_rate_difference(candidate.false_fail_rate, judge.false_fail_rate),
        n_unscorable=candidate.n_unscorable - judge.n_unscorable,
    )


def _verdicts(judgings: Sequence[Judging]) -> dict[LabelKey, bool]:
    return {(j.item_id, j.criterion): j.verdict.passed for j in judgings if j.verdict is not None}


def _statement(test: AgreementTest) -> str:
    if test.n_both_scored == 0:
        return "no item was scored by both judges: nothing to compare"
    discordant = test.only_judge_agrees + test.only_candidate_agrees
    counts = (
        f"on {test.n_both_scored} item(s) both scored, the judge agrees with people on"
        f" {test.both_agree + test.only_judge_agrees}, the candidate on"
        f" {test.both_agree + test.only_candidate_agrees}; McNemar p = {test.p_value:.3g}"
        f" on {discordant} discordant item(s)"
    )
    if test.p_value >= SIGNIFICANCE:
        return f"{counts}: no evidence of a difference (p >= {SIGNIFICANCE:g})"
    better = test.only_candidate_agrees > test.only_judge_agrees
    return f"{counts}: evidence the candidate agrees {'more' if better else 'less'} often"


def _agreement_test(
    labels: Sequence[HumanLabel], judge: Sequence[Judging], candidate: Sequence[Judging]
) -> AgreementTest:
    ours, theirs = _verdicts(judge), _verdicts(candidate)
    agree: list[tuple[bool, bool]] = [
        (ours[label.key] == label.human_passed, theirs[label.key] == label.human_passed)
        for label in labels
        if label.key in ours and label.key in theirs
    ]
    only_judge, only_candidate = agree.count((True, False)), agree.count((False, True))
    test = AgreementTest(
        n_both_scored=len(agree),
        both_agree=agree.count((True, True)),
        both_disagree=agree.count((False, False)),
        only_judge_agrees=only_judge,
        only_candidate_agrees=only_candidate,
        p_value=mcnemar_exact_p(only_judge, only_candidate),
        statement="",
    )
    return test.model_copy(update={"statement": _statement(test)})


def compare_judges(
    labels: Sequence[HumanLabel],
    judge: JudgeRun,
    candidate: JudgeRun,
    options: CalibrationOptions | None = None,
    *,
    judge_figures: AgreementFigures | None = None,
) -> CandidateComparison:
    """``candidate`` against ``judge`` on the same ``labels`` (``judge_figures``: the judge's
    figures over all labels, when already computed with the same options)."""
    if judge_figures is None:
        judge_figures, _ = agreement_figures(labels, judge.judgings, options)
    figures, splits = agreement_figures(labels, candidate.judgings, options)
    return CandidateComparison(
        judge_version=candidate.version,
        judge=dict(candidate.description),
        figures=figures,
        splits=splits,
        differences=_differences(judge_figures, figures),
        agreement_test=_agreement_test(labels, judge.judgings, candidate.judgings),
    )
