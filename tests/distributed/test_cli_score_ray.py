"""``trailcheck score --executor ray`` prints what the local bulk path prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.distributed.test_grading import DATASET, _lines, _write
from trailcheck.cli import run_cli


@pytest.mark.usefixtures("local_ray")
def test_score_on_ray_prints_the_local_grades_and_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "shop.yaml").write_text(DATASET)
    lines = _lines(30)
    lines[7] = b'{"trace_id": "bad", "spans": [{"span_id": "s"}]}'
    path = _write(tmp_path / "traces.jsonl", lines)
    score = ["score", str(path), "--dataset", str(tmp_path / "shop.yaml"), "--json"]
    printed = []
    for where in (["--workers", "2"], ["--executor", "ray", "--num-cpus", "0.5"]):
        assert run_cli([*score, *where]) == 2  # a rejected line and unmatched traces
        printed.append(capsys.readouterr())
    local, remote = printed
    assert remote.out == local.out
    assert remote.err == local.err
    assert '"status": "failed"' in local.out or '"status":"failed"' in local.out
    assert "rejected: " in local.err


@pytest.mark.parametrize("option", ["--by-session", "--emit-otel=http://127.0.0.1:9/v1/traces"])
def test_score_on_ray_refuses_what_only_the_in_process_path_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    (tmp_path / "shop.yaml").write_text(DATASET)
    path = _write(tmp_path / "traces.jsonl", _lines(2))
    score = ["score", str(path), "--dataset", str(tmp_path / "shop.yaml"), "--executor", "ray"]
    assert run_cli([*score, option]) == 2
    assert "--executor ray grades trailcheck JSONL" in capsys.readouterr().err
