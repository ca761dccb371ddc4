"""Terminal and JSON renderings of an
:class:`~trailcheck.judge.attribution_calibration.AttributionCalibrationReport`.

Every accuracy shows its arithmetic (``count/total = value``) and its Wilson interval; an
accuracy over nothing prints as ``undefined`` (``null`` in JSON), never as a number.
"""

from __future__ import annotations

from typing import Any, Final

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from trailcheck.intervals import Rate
from trailcheck.judge.attribution_calibration import (
    AttributionCalibrationReport,
    AttributionFigures,
    AttributorAgreement,
    AttributorFigures,
)
from trailcheck.report.formatting import format_bounds, format_number

__all__ = ["attribution_calibration_json", "render_attribution_calibration"]

MAX_LISTED_UNATTRIBUTED: Final = 10

_RATES: Final = (
    ("step accuracy (of attributed)", "step_accuracy"),
    ("agent accuracy (of attributed)", "agent_accuracy"),
    ("category accuracy (of attributed)", "category_accuracy"),
    ("step accuracy (of all labels)", "step_accuracy_of_all"),
    ("agent accuracy (of all labels)", "agent_accuracy_of_all"),
)
_ROW_NAMES: Final = ["labels", "attributed", "unattributed", *(name for name, _ in _RATES)]


def _rate(figure: Rate) -> str:
    return f"{figure.count}/{figure.total} = {format_number(figure.value)}" + (
        f" {format_bounds(figure.interval)}" if figure.total else ""
    )


def _rows(figures: AttributionFigures) -> list[str]:
    counts = [str(figures.n_labels), str(figures.n_attributed), str(figures.n_unattributed)]
    return [*counts, *(_rate(getattr(figures, field)) for _, field in _RATES)]


def _columns(attributor: AttributorFigures) -> dict[str, AttributionFigures]:
    columns = {
        "all": attributor.all,
        "calibration": attributor.calibration,
        "validation": attributor.validation,
    }
    return columns | {f"group {name}": figures for name, figures in attributor.groups.items()}


def _table(title: str, columns: dict[str, AttributionFigures], caption: str) -> Table:
    table = Table("figure", *columns, title=title, caption=caption)
    cells = [_rows(figures) for figures in columns.values()]
    for index, name in enumerate(_ROW_NAMES):
        table.add_row(name, *(column[index] for column in cells))
    return table


def _agreement(agreement: AttributorAgreement) -> Text:
    return Text(
        f"agreement on the {agreement.n_both_attributed} item(s) both attributed:"
        f" same step {_rate(agreement.same_step)}, same agent {_rate(agreement.same_agent)},"
        f" same category {_rate(agreement.same_category)}"
    )


def _unattributed(attributor: AttributorFigures) -> list[RenderableType]:
    items = attributor.all.unattributed
    shown: list[RenderableType] = [
        Text(f"unattributed: {item.item_id}: {item.reason}", style="yellow")
        for item in items[:MAX_LISTED_UNATTRIBUTED]
    ]
    hidden = len(items) - len(shown)
    return [*shown, *([Text(f"... and {hidden} more unattributed")] if hidden > 0 else [])]


def render_attribution_calibration(report: AttributionCalibrationReport) -> RenderableType:
    """The attributor's figures (all, per split, per group), a candidate's, their agreement."""
    caption = f"rates: wilson {report.level * 100:g}%"
    parts: list[RenderableType] = []
    for role, attributor in (("attributor", report.attributor), ("candidate", report.candidate)):
        if attributor is None:
            continue
        excluded = attributor.validation_excluded_development
        title = f"{role} {attributor.attributor_version}" + (
            f"; {excluded} development label(s) left out of validation" if excluded else ""
        )
        parts += [_table(title, _columns(attributor), caption), *_unattributed(attributor)]
    if report.agreement is not None:
        parts.append(_agreement(report.agreement))
    return Group(*parts)


def attribution_calibration_json(report: AttributionCalibrationReport) -> dict[str, Any]:
    """The report as JSON values (``attributor.all.step_accuracy``, ...)."""
    return report.model_dump(mode="json")
