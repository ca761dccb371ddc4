"""Calibration: how well a judge agrees with people, measured before any gate trusts it.

:func:`calibrate` pairs a judge's judgings with human labels and reports the figures over all
labels (top level), per split (:mod:`~trailcheck.judge.figures` says how labels are split and
paired), and, for a candidate judge, side by side with their differences
(:mod:`~trailcheck.judge.comparison`). The report pins the judge's version and description: a
calibration is only ever evidence for the judge it measured.

:func:`calibration_gate` turns a report into broken-threshold lines. An undefined figure cannot
show that a threshold holds, so it breaks it: a false-pass rate with no human fail to count,
and kappa when the labels are all one class (unless ``undefined_kappa_passes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from trailcheck.errors import InputError
from trailcheck.intervals import Rate
from trailcheck.judge.comparison import CandidateComparison, compare_judges
from trailcheck.judge.figures import (
    AgreementFigures,
    CalibrationOptions,
    JudgeRun,
    SplitFigures,
    agreement_figures,
)
from trailcheck.judge.labels import HumanLabel

__all__ = [
    "CalibrationReport",
    "calibrate",
    "calibration_gate",
    "load_calibration_report",
]

FigureSet = Literal["all", "calibration", "validation"]


class CalibrationReport(AgreementFigures):
    """A judge's calibration: the figures over all labels, per split, and a candidate judge's
    beside them, pinned to the judge's version and description."""

    judge_version: str
    judge: dict[str, Any]
    seed: int
    level: float
    resamples: int
    validation_fraction: float
    n_development: int
    unlabelled_judgings: int
    """Judgings of items no label names: ignored, and counted."""
    splits: SplitFigures
    candidate: CandidateComparison | None = None

    def figures(self, which: FigureSet = "all") -> AgreementFigures:
        """The figures over all labels, or over one split."""
        if which == "all":
            return self
        return self.splits.calibration if which == "calibration" else self.splits.validation


def calibrate(
    labels: Sequence[HumanLabel],
    run: JudgeRun,
    *,
    candidate: JudgeRun | None = None,
    options: CalibrationOptions | None = None,
) -> CalibrationReport:
    """Calibrate ``run``'s judge on ``labels``; with ``candidate``, compare the two."""
    options = options or CalibrationOptions()
    figures, splits = agreement_figures(labels, run.judgings, options)
    labelled = {label.key for label in labels}
    comparison = None
    if candidate is not None:
        comparison = compare_judges(labels, run, candidate, options, judge_figures=figures)
    return CalibrationReport(
        **dict(figures),
        judge_version=run.version,
        judge=dict(run.description),
        seed=options.seed,
        level=options.level,
        resamples=options.resamples,
        validation_fraction=options.validation_fraction,
        n_development=sum(label.development for label in labels),
        unlabelled_judgings=sum((j.item_id, j.criterion) not in labelled for j in run.judgings),
        splits=splits,
        candidate=comparison,
    )


def load_calibration_report(path: Path) -> CalibrationReport:
    """A report written by ``trailcheck judge calibrate --out``."""
    try:
        return CalibrationReport.model_validate_json(path.read_bytes())
    except OSError as error:
        raise InputError(f"{path}: cannot be read: {error.strerror or error}") from None
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = ".".join(str(part) for part in first["loc"])
        raise InputError(
            f"{path}: not a calibration report: field {field!r}: {first['msg']}"
        ) from None


def _rate_line(name: str, figure: Rate, maximum: float, what: str) -> str | None:
    if figure.value is None:
        return f"{name} undefined (0 {what} among the labels): cannot show it is <= {maximum:g}"
    if figure.value <= maximum:
        return None
    low, high = figure.interval.low, figure.interval.high
    return (
        f"{name} {figure.count}/{figure.total} = {figure.value:.3f}"
        f" ({figure.interval.label()} [{low:.3f}, {high:.3f}]) exceeds the maximum {maximum:g}"
    )


def _kappa_line(figures: AgreementFigures, minimum: float, undefined_passes: bool) -> str | None:
    kappa = figures.cohen_kappa
    if kappa.value is None:
        if undefined_passes:
            return None
        return f"cohen_kappa undefined ({kappa.undefined_reason}): cannot show it is >= {minimum:g}"
    if kappa.value >= minimum:
        return None
    return f"cohen_kappa {kappa.value:.3f} is below the minimum {minimum:g}"


def calibration_gate(
    report: CalibrationReport,
    max_false_pass: float,
    max_false_fail: float,
    require_kappa: float | None = None,
    *,
    judge_version: str | None = None,
    figures: FigureSet = "all",
    undefined_kappa_passes: bool = False,
) -> list[str]:
    """The thresholds ``report`` breaks, one line each; empty when all hold. ``judge_version``:
    the judge about to be trusted, which must be the one calibrated. ``figures``: which labels
    the thresholds apply to (``validation``: held-out only, the stricter evidence)."""
    broken: list[str] = []
    if judge_version is not None and judge_version != report.judge_version:
        broken.append(
            f"the calibration is of judge {report.judge_version}, not {judge_version}:"
            " that judge is uncalibrated"
        )
    chosen = report.figures(figures)
    prefix = "" if figures == "all" else f"{figures} split: "
    lines = [
        _rate_line("false_pass_rate", chosen.false_pass_rate, max_false_pass, "human fails"),
        _rate_line("false_fail_rate", chosen.false_fail_rate, max_false_fail, "human passes"),
    ]
    if require_kappa is not None:
        lines.append(_kappa_line(chosen, require_kappa, undefined_kappa_passes))
    broken.extend(f"{prefix}{line}" for line in lines if line is not None)
    return broken
