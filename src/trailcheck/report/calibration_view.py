"""Terminal and JSON renderings of a :class:`~trailcheck.judge.calibration.CalibrationReport`.

Every rate shows its arithmetic (``count/total = value``) and its interval; undefined values
print as ``undefined`` (``null`` in JSON), never as a number.
"""

from __future__ import annotations

from typing import Any, Final

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from trailcheck.intervals import Rate
from trailcheck.judge.calibration import CalibrationReport
from trailcheck.judge.comparison import CandidateComparison
from trailcheck.judge.figures import AgreementFigures
from trailcheck.report.formatting import UNDEFINED, format_bounds, format_number, format_signed

__all__ = ["calibration_json", "render_calibration"]

MAX_LISTED_UNSCORABLE: Final = 10

_RATES: Final = (
    ("agreement", "agreement"),
    ("recall on human passes", "recall_on_human_pass"),
    ("recall on human fails", "recall_on_human_fail"),
    ("false-pass rate (of human fails)", "false_pass_rate"),
    ("false-fail rate (of human passes)", "false_fail_rate"),
)


def _rate(figure: Rate) -> str:
    value, bounds = format_number(figure.value), format_bounds(figure.interval)
    return f"{figure.count}/{figure.total} = {value} {bounds}"


def _kappa(figures: AgreementFigures) -> str:
    kappa = figures.cohen_kappa
    if kappa.value is None:
        return UNDEFINED
    return f"{kappa.value:.3f} {format_bounds(kappa.interval)}"


def _rows(figures: AgreementFigures) -> list[str]:
    counts = [str(figures.n_labels), str(figures.n_paired), str(figures.n_unscorable)]
    rates = [_rate(getattr(figures, field)) for _, field in _RATES]
    return [*counts, _kappa(figures), *rates]


_ROW_NAMES: Final = ["labels", "paired", "unscorable", "cohen kappa", *(n for n, _ in _RATES)]


def _figures_table(columns: dict[str, AgreementFigures], caption: str) -> Table:
    table = Table("figure", *columns, caption=caption)
    cells = [_rows(figures) for figures in columns.values()]
    for index, name in enumerate(_ROW_NAMES):
        table.add_row(name, *(column[index] for column in cells))
    return table


def _confusion_table(figures: AgreementFigures) -> Table:
    table = Table("", "judge pass", "judge fail", title="confusion (all labels)")
    matrix = figures.confusion
    table.add_row(
        "human pass", str(matrix.human_pass_judge_pass), str(matrix.human_pass_judge_fail)
    )
    table.add_row(
        "human fail", str(matrix.human_fail_judge_pass), str(matrix.human_fail_judge_fail)
    )
    return table


def _candidate(report: CalibrationReport, candidate: CandidateComparison) -> list[RenderableType]:
    table = _figures_table(
        {
            f"judge {report.judge_version}": report,
            f"candidate {candidate.judge_version}": (candidate.figures),
        },
        caption="all labels; differences are candidate − judge",
    )
    diff = candidate.differences
    differences = (
        f"differences: agreement {format_signed(diff.agreement)},"
        f" kappa {format_signed(diff.cohen_kappa)},"
        f" false-pass {format_signed(diff.false_pass_rate)},"
        f" false-fail {format_signed(diff.false_fail_rate)},"
        f" unscorable {diff.n_unscorable:+d}"
    )
    return [table, Text(differences), Text(candidate.agreement_test.statement)]


def _heading(report: CalibrationReport) -> str:
    excluded = report.splits.validation_excluded_development
    return (
        f"judge {report.judge_version}: {report.n_labels} labels, {report.n_paired} paired,"
        f" {report.n_unscorable} unscorable; {report.n_development} development label(s),"
        f" {excluded} left out of validation"
    )


def _unscorable_lines(report: CalibrationReport) -> list[RenderableType]:
    shown = [
        Text(f"unscorable: {item.item_id} / {item.criterion}: {item.reason}", style="yellow")
        for item in report.unscorable[:MAX_LISTED_UNSCORABLE]
    ]
    hidden = report.n_unscorable - len(shown)
    return [*shown, *([Text(f"... and {hidden} more unscorable")] if hidden > 0 else [])]


def render_calibration(report: CalibrationReport) -> RenderableType:
    """The figures per split, the confusion matrix, a candidate beside the judge."""
    interval_labels = (
        f"rates: {report.agreement.interval.label()}; kappa: {report.cohen_kappa.interval.label()}"
    )
    parts: list[RenderableType] = [
        Text(_heading(report)),
        _figures_table(
            {
                "all": report,
                "calibration": report.splits.calibration,
                "validation": report.splits.validation,
            },
            caption=interval_labels,
        ),
        _confusion_table(report),
    ]
    if report.candidate is not None:
        parts.extend(_candidate(report, report.candidate))
    parts.extend(_unscorable_lines(report))
    return Group(*parts)


def calibration_json(report: CalibrationReport) -> dict[str, Any]:
    """The report as JSON values: ``n_labels``, ``confusion``, ``agreement``, ``cohen_kappa``,
    ``false_pass_rate``, ``false_fail_rate`` and the rest at the top level."""
    return report.model_dump(mode="json")
