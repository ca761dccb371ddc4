"""The run reports of a folder: every ``*.json`` that ``trailcheck run`` wrote there (``NAME.json``,
or ``NAME/report.json`` as ``--out`` writes it), read with :func:`trailcheck.run.load_report`;
a file that is not a report is listed with the reason, not dropped in silence."""

from __future__ import annotations

from pathlib import Path

from trailcheck.errors import InputError
from trailcheck.run.results import load_report
from trailcheck.ui.runs_page import RunFile

__all__ = ["read_runs"]


def read_runs(folder: Path | None) -> list[RunFile]:
    """The reports of ``folder`` by name (empty without a folder)."""
    if folder is None or not folder.is_dir():
        return []
    paths = sorted({*folder.glob("*.json"), *folder.glob("*/report.json")})
    runs = []
    for path in paths:
        name = str(path.relative_to(folder).with_suffix(""))
        try:
            runs.append(RunFile(name, load_report(path)))
        except InputError as error:
            runs.append(RunFile(name, None, str(error)))
    return runs
