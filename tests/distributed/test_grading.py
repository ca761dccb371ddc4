"""Grading trailcheck JSONL as Ray tasks gives what the local bulk path gives: the same grades,
rejections and counts, in the same order, over one file or several shards."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders import SHOP_DATASET, shop_lines, shop_trace, write_jsonl
from tests.distributed.work import square_unless_three
from trailcheck.bulk.grading import Unmatched, grade_files
from trailcheck.distributed import grade_files_on_ray, ray_ordered_map
from trailcheck.importing.importer import ImportSummary
from trailcheck.scorers import Grade
from trailcheck.trace.jsonl import dump_trace

pytestmark = [pytest.mark.usefixtures("local_ray"), pytest.mark.live]


def _dataset(tmp_path: Path, text: str = SHOP_DATASET, name: str = "shop.yaml") -> Path:
    dataset = tmp_path / name
    dataset.write_text(text)
    return dataset


def _plain(items: list[Grade | Unmatched]) -> list[object]:
    return [str(item) if isinstance(item, Unmatched) else item for item in items]


def _counts(summary: ImportSummary) -> tuple[object, ...]:
    return (summary.spans, summary.imported, summary.rejected, summary.rejections, summary.formats)


def test_a_file_graded_on_ray_is_graded_as_the_process_pool_grades_it(tmp_path: Path) -> None:
    dataset = _dataset(tmp_path)
    lines = shop_lines(40)
    lines[4] = b'{"trace_id": "bad", "spans": [{"span_id": "s"}]}'  # rejected, its line named
    lines[20] = dump_trace(shop_trace(3))  # an id seen before: rejected as a copy
    path = write_jsonl(tmp_path / "traces.jsonl", lines)
    local_summary, ray_summary = ImportSummary(), ImportSummary()
    local = list(grade_files([path], dataset, local_summary, workers=2, chunk_bytes=700))
    remote = list(grade_files_on_ray([path], dataset, ray_summary, workers=2, chunk_bytes=700))
    assert _plain(remote) == _plain(local)
    assert _counts(ray_summary) == _counts(local_summary)
    # Not vacuous: many chunks, passes and failures, an unmatched trace, two rejections.
    assert path.stat().st_size > 10 * 700
    statuses = {item.status for item in remote if isinstance(item, Grade)}
    assert statuses == {"passed", "failed"}
    assert sum(isinstance(item, Unmatched) for item in remote) == 6
    assert [r.line for r in ray_summary.rejections] == [5, None]


def test_shards_are_one_input_and_an_id_repeated_across_them_is_rejected(tmp_path: Path) -> None:
    dataset = _dataset(tmp_path)
    first = write_jsonl(tmp_path / "part-0.jsonl", shop_lines(15))
    second = write_jsonl(
        tmp_path / "part-1.jsonl", [*shop_lines(15, start=15), dump_trace(shop_trace(2))]
    )
    whole = write_jsonl(tmp_path / "whole.jsonl", [*shop_lines(30), dump_trace(shop_trace(2))])
    summary = ImportSummary()
    sharded = list(grade_files_on_ray([first, second], dataset, summary, workers=2))
    expected = list(grade_files([whole], dataset, ImportSummary(), workers=1))
    assert _plain(sharded) == _plain(expected)
    assert summary.imported == 30
    (copy,) = summary.rejections
    assert "t2" in str(copy)
    assert str(second) in str(copy)


def test_each_worker_grades_against_the_dataset_of_its_own_map(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "traces.jsonl", shop_lines(12))
    strict = _dataset(tmp_path)
    lenient = _dataset(
        tmp_path, SHOP_DATASET.replace("[lookup_order, issue_refund]", "[issue_refund]"), "b.yaml"
    )
    for dataset in (strict, lenient, strict):
        local = list(grade_files([path], dataset, ImportSummary(), workers=1))
        remote = list(grade_files_on_ray([path], dataset, ImportSummary(), workers=2))
        assert _plain(remote) == _plain(local)
    strict_passes = sum(
        g.passed
        for g in grade_files([path], strict, ImportSummary(), workers=1)
        if isinstance(g, Grade)
    )
    lenient_passes = sum(
        g.passed
        for g in grade_files([path], lenient, ImportSummary(), workers=1)
        if isinstance(g, Grade)
    )
    assert strict_passes != lenient_passes  # the two datasets do grade differently


def test_ordered_map_keeps_input_order_and_raises_the_works_own_error_in_its_turn() -> None:
    results = ray_ordered_map(square_unless_three, range(6), workers=2)
    assert [next(results), next(results), next(results)] == [0, 1, 4]
    with pytest.raises(ArithmeticError, match="item 3 is refused"):
        next(results)


def test_ordered_map_of_nothing_is_nothing() -> None:
    assert list(ray_ordered_map(square_unless_three, [], workers=1)) == []
    with pytest.raises(ValueError, match="workers must be at least 1, not 0"):
        list(ray_ordered_map(square_unless_three, [1], workers=0))
