"""``trailcheck stats``: pass^k of recorded runs from any format, as a table or JSON, with clear
errors for missing keys, bad outcomes and rejected records."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from trailcheck.cli import run_cli
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace

TAU_BENCH_TRAJECTORIES = Path("tau-bench") / "gpt-4o-airline-trajectories.json"
KEYS = ["--task-key", "metadata.task_id", "--outcome-key", "metadata.reward"]


def _trace(trace_id: str, **metadata: object) -> Trace:
    return TraceBuilder(trace_id, input="hi").metadata(**metadata).build()


def _write(tmp_path: Path, *traces: Trace) -> str:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"".join(dump_trace(trace) + b"\n" for trace in traces))
    return str(path)


def _runs(tmp_path: Path) -> str:
    # Task 1 passes 2 of 2; task 2 passes 1 of 2 (reward 1 and 0); task 3 only hit infra errors.
    return _write(
        tmp_path,
        _trace("1a", task_id=1, reward=1.0),
        _trace("1b", task_id=1, reward=1.0),
        _trace("2a", task_id=2, reward=1.0),
        _trace("2b", task_id=2, reward=0.0),
        _trace("3a", task_id=3, reward="infra_error"),
    )


def _table_rows(out: str) -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for line in out.splitlines():
        cells = [cell.strip() for cell in re.split(r"[│┃]", line)[1:-1]]
        if cells and cells[0].isdigit():
            rows[cells[0]] = cells[1:]
    return rows


def test_json_has_counts_figures_and_labelled_intervals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["stats", _runs(tmp_path), *KEYS, "--k", "3", "--json", "--seed", "7"]) == 0
    data = orjson.loads(capsys.readouterr().out)
    assert data["tasks"] == 3
    assert data["trials"] == {
        "attempted": 5,
        "scored": 4,
        "passed": 3,
        "failed": 1,
        "timeout": 0,
        "crashed": 0,
        "unscorable": 0,
        "infra_error": 1,
        "sim_error": 0,
    }
    assert data["pass_at_1"] == pytest.approx(0.75)
    assert data["pass_hat_k"] == {"1": 0.75, "2": 0.5, "3": None}
    assert data["pass_at_k"] == {"1": 0.75, "2": 1.0, "3": None}
    assert data["tasks_defined"] == {"1": 2, "2": 2, "3": 0}
    interval = data["pass_hat_k_interval"]["1"]
    assert (interval["method"], interval["seed"], interval["resamples"]) == (
        "bootstrap-task",
        7,
        2000,
    )
    assert data["infra_error_rate"]["interval"]["method"] == "wilson"
    assert data["infra_error_rate"]["count"] == 1


def test_table_shows_undefined_and_the_interval_method(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["stats", _runs(tmp_path), *KEYS, "--k", "3"]) == 0
    out = capsys.readouterr().out
    rows = _table_rows(out)
    assert rows["1"][:3] == ["0.750", "0.750", "2/3"]
    assert rows["2"][:3] == ["0.500", "1.000", "2/3"]
    assert rows["3"] == ["undefined", "undefined", "0/3", "undefined"]
    assert "bootstrap-task 95%, 2000 resamples, seed 0" in out
    assert "1 infra_error" in out
    assert "infra error rate: 1/5 = 0.200" in out


def test_a_threshold_below_1_counts_partial_rewards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(
        tmp_path, _trace("a", task_id="x", reward=0.6), _trace("b", task_id="x", reward=0.4)
    )
    assert run_cli(["stats", path, *KEYS, "--threshold", "0.5", "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["pass_hat_k"] == {"1": 0.5, "2": 0.0}


def test_a_missing_task_key_is_an_input_error_naming_the_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, _trace("a", task_id=1, reward=1.0), _trace("b", reward=1.0))
    assert run_cli(["stats", path, *KEYS]) == 2
    err = capsys.readouterr().err
    assert "error: trace 'b': has no metadata.task_id (metadata has no 'task_id')" in err


def test_rejected_records_stop_the_statistics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(dump_trace(_trace("a", task_id=1, reward=1.0)) + b"\n{not json}\n")
    assert run_cli(["stats", str(path), *KEYS, "--format", "trailcheck"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"rejected: {path}:2" in captured.err
    assert "1 record(s) rejected; statistics over part of the input would mislead" in captured.err


def test_no_traces_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nothing.json"
    path.write_bytes(b'{"resourceSpans": []}\n')
    assert run_cli(["stats", str(path), *KEYS, "--format", "otlp-json"]) == 2
    assert "no traces read" in capsys.readouterr().err


def test_an_empty_file_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"\n")
    assert run_cli(["stats", str(path), *KEYS, "--format", "trailcheck"]) == 2
    assert f"{path}: the file is empty" in capsys.readouterr().err


@pytest.mark.external
def test_tau_bench_trajectories_print_the_published_pass_hat_k(
    external: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(external / TAU_BENCH_TRAJECTORIES)
    assert run_cli(["stats", source, *KEYS]) == 0
    out = capsys.readouterr().out
    rows = _table_rows(out)
    # pass^1..4 = 0.42, 0.273, 0.22, 0.20, as published in the tau-bench README.
    assert [rows[k][0] for k in ("1", "2", "3", "4")] == ["0.420", "0.273", "0.220", "0.200"]
    assert [rows[k][2] for k in ("1", "2", "3", "4")] == ["50/50"] * 4
    assert "50 tasks; 200 trials attempted, 200 scored" in out
    assert "84 passed, 116 failed" in out
    assert run_cli(["stats", source, *KEYS, "--json"]) == 0
    data = orjson.loads(capsys.readouterr().out)
    assert {k: round(v, 3) for k, v in data["pass_hat_k"].items()} == {
        "1": 0.42,
        "2": 0.273,
        "3": 0.22,
        "4": 0.2,
    }
