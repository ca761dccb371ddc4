"""Bulk grading over worker processes gives what grading each trace in process gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders import SHOP_DATASET, shop_lines, shop_trace, write_jsonl
from trailcheck.bulk.grading import Unmatched, grade_files
from trailcheck.cases import load_dataset
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.scorers import Grade, case_scorers, grade
from trailcheck.trace.jsonl import dump_trace

pytestmark = pytest.mark.live


def _in_process(path: Path, dataset: Path) -> tuple[list[object], ImportSummary]:
    cases = {case.id: case for case in load_dataset(dataset).graded_cases()}
    summary = ImportSummary()
    results: list[object] = []
    for trace in iter_import([path], format_name="trailcheck", summary=summary):
        case_id = trace.metadata.get("case_id")
        if case_id not in cases:
            results.append(f"{trace.trace_id} (case_id {case_id!r})")
        else:
            results.append(grade(trace, cases[case_id], case_scorers(cases[case_id])))
    return results, summary


def _bulk(path: Path, dataset: Path, workers: int) -> tuple[list[object], ImportSummary]:
    summary = ImportSummary()
    results: list[object] = []
    for item in grade_files([path], dataset, summary, workers=workers, chunk_bytes=700):
        results.append(str(item) if isinstance(item, Unmatched) else item)
        assert isinstance(item, Unmatched | Grade)
    return results, summary


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("bom", [False, True])
def test_bulk_grades_rejections_and_counts_are_those_of_the_import_path(
    tmp_path: Path, workers: int, bom: bool
) -> None:
    dataset = tmp_path / "shop.yaml"
    dataset.write_text(SHOP_DATASET)
    lines = shop_lines(30)
    lines[4] = b'{"trace_id": "bad", "spans": [{"span_id": "s"}]}'  # rejected, its line named
    lines[11] = b'{"trace_id": "dup", "metadata": {"a": 1, "a": 2}}'  # a key given twice
    lines[20] = dump_trace(shop_trace(3))  # the id of line 4's trace again: rejected as a copy
    lines.insert(7, b"")  # blank lines count as lines, and are skipped
    path = tmp_path / "traces.jsonl"
    write_jsonl(path, lines, bom=bom)
    expected, expected_summary = _in_process(path, dataset)
    results, summary = _bulk(path, dataset, workers)
    assert results == expected
    assert sum(isinstance(r, str) for r in results) == 4  # the "nowhere" case, and only it
    assert summary.rejections == expected_summary.rejections
    assert [r.line for r in summary.rejections] == [5, 13, None]
    assert (summary.spans, summary.imported, summary.rejected) == (
        expected_summary.spans,
        expected_summary.imported,
        expected_summary.rejected,
    )
    assert summary.imported == 27
