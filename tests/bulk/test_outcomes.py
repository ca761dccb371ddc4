"""``trailcheck stats`` over worker processes counts what one process counts, and stops on a
trace whose task or outcome cannot be read with the same error."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.bulk.outcomes import trial_outcomes
from trailcheck.errors import InputError
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.run.recorded import group_outcomes, outcomes_from_traces
from trailcheck.testing import TraceBuilder
from trailcheck.trace.jsonl import dump_trace

pytestmark = pytest.mark.live

KEYS = {"task_key": "metadata.task_id", "outcome_key": "metadata.reward", "threshold": 1.0}
REWARDS = (1.0, 0.0, True, "timeout", 0.5, "infra_error")


def _write(path: Path, count: int, *, broken: int | None = None) -> Path:
    lines = []
    for index in range(count):
        metadata = {"task_id": index % 7, "reward": REWARDS[index % len(REWARDS)]}
        if index == broken:
            metadata.pop("task_id")
        trace = TraceBuilder(f"t{index}", input="hi").metadata(**metadata).build()
        lines.append(dump_trace(trace) + b"\n")
    lines.insert(5, b'{"trace_id": "t0"}\n')  # a copy of an id: rejected, not counted
    path.write_bytes(b"".join(lines))
    return path


@pytest.mark.parametrize("workers", [1, 2])
def test_the_counts_are_those_of_one_process(tmp_path: Path, workers: int) -> None:
    paths = [_write(tmp_path / "a.jsonl", 60), _write(tmp_path / "b.jsonl", 1)]
    expected_summary = ImportSummary()
    expected = outcomes_from_traces(iter_import(paths, summary=expected_summary), **KEYS)
    summary = ImportSummary()
    trials = trial_outcomes(paths, summary, **KEYS, workers=workers, chunk_bytes=400)
    assert group_outcomes(trials) == expected
    assert summary.rejections == expected_summary.rejections
    assert len(summary.rejections) == 3  # t0 again in a.jsonl; t0 twice in b.jsonl
    # Task 3: traces 3, 10, 17, ... 59, their rewards REWARDS[index % 6].
    assert expected["3"] == [
        "timeout", "failed", "infra_error", "passed", "failed", "passed", "timeout", "failed",
        "infra_error",
    ]  # fmt: skip


@pytest.mark.parametrize("workers", [1, 2])
def test_an_unreadable_task_stops_the_count_naming_the_trace(tmp_path: Path, workers: int) -> None:
    path = _write(tmp_path / "a.jsonl", 40, broken=33)
    summary = ImportSummary()
    trials = trial_outcomes([path], summary, **KEYS, workers=workers, chunk_bytes=400)
    with pytest.raises(InputError, match=r"trace 't33': has no metadata.task_id"):
        group_outcomes(trials)
