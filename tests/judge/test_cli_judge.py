"""``trailcheck judge calibrate`` end to end with the replay judge: the JSON keys the issue names,
the table, a candidate, the report file, and exit 2 for bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from trailcheck.cli import run_cli
from trailcheck.judge.calibration import load_calibration_report


def _jsonl(path: Path, records: list[dict[str, Any]]) -> str:
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return str(path)


def _verdict(item_id: str, passed: bool, version: str) -> dict[str, Any]:
    return {
        "item_id": item_id,
        "criterion": "c",
        "judge_version": version,
        "verdict": {
            "evidence": [],
            "passed_criteria": [],
            "failed_criteria": [],
            "failure_mode": None,
            "passed": passed,
        },
    }


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """20 labels (even items pass); the judge passes every item but t1 and t3 (biased toward
    pass); the candidate agrees with people everywhere except t0; t19 has no recorded verdict."""
    labels = [
        {"item_id": f"t{i}", "criterion": "c", "human_passed": i % 2 == 0, "labeler": "ana"}
        for i in range(20)
    ]
    judge = [_verdict(f"t{i}", i not in (1, 3), "rubric-1") for i in range(19)]
    candidate = [_verdict(f"t{i}", i % 2 == 0 and i != 0, "cheap-1") for i in range(20)]
    return {
        "labels": _jsonl(tmp_path / "labels.jsonl", labels),
        "judge": "replay:" + _jsonl(tmp_path / "judge.jsonl", judge),
        "candidate": "replay:" + _jsonl(tmp_path / "candidate.jsonl", candidate),
    }


def test_json_names_the_figures(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["judge", "calibrate", "--labels", files["labels"], "--judge", files["judge"]]
    assert run_cli([*argv, "--json", "--seed", "3"]) == 0
    data = orjson.loads(capsys.readouterr().out)
    for key in ("n_labels", "confusion", "agreement", "cohen_kappa"):
        assert key in data
    assert data["n_labels"] == 20
    assert (data["n_paired"], data["n_unscorable"]) == (19, 1)
    assert data["unscorable"][0]["item_id"] == "t19"
    assert data["confusion"] == {
        "human_pass_judge_pass": 10,
        "human_pass_judge_fail": 0,
        "human_fail_judge_pass": 7,
        "human_fail_judge_fail": 2,
    }
    assert data["false_pass_rate"]["count"] == 7
    assert data["false_pass_rate"]["total"] == 9
    assert data["false_pass_rate"]["interval"]["method"] == "wilson"
    assert data["false_fail_rate"]["value"] == 0.0
    kappa = data["cohen_kappa"]
    assert kappa["value"] == pytest.approx(2 * 20 / (10 * 2 + 17 * 9))
    assert kappa["interval"]["seed"] == 3
    assert kappa["interval"]["low"] <= kappa["value"] <= kappa["interval"]["high"]
    assert data["judge_version"] == "rubric-1"
    assert set(data["splits"]) == {"calibration", "validation", "validation_excluded_development"}
    assert data["candidate"] is None


def test_a_candidate_and_the_report_file(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "calibration.json"
    argv = ["judge", "calibrate", "--labels", files["labels"], "--judge", files["judge"]]
    argv += ["--candidate", files["candidate"], "--out", str(out), "--json"]
    assert run_cli(argv) == 0
    data = orjson.loads(capsys.readouterr().out)
    candidate = data["candidate"]
    assert candidate["judge_version"] == "cheap-1"
    assert candidate["figures"]["false_pass_rate"]["value"] == 0.0
    assert candidate["differences"]["false_pass_rate"] == pytest.approx(-7 / 9)
    assert candidate["agreement_test"]["only_candidate_agrees"] == 7
    report = load_calibration_report(out)
    assert report.candidate is not None
    assert report.model_dump(mode="json") == data


def test_the_table(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["judge", "calibrate", "--labels", files["labels"], "--judge", files["judge"]]
    assert run_cli([*argv, "--candidate", files["candidate"]]) == 0
    out = capsys.readouterr().out
    assert "judge rubric-1: 20 labels, 19 paired, 1 unscorable" in out
    assert "7/9 = 0.778" in out  # the false-pass rate, with its arithmetic
    assert "candidate cheap-1" in out
    assert "McNemar p = " in out
    assert "unscorable: t19 / c: no recorded verdict" in out


def test_input_errors_exit_2(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"item_id": "t1", "criterion": "c", "human_passed": "yes", "labeler": "a"}\n')
    calibrate = ["judge", "calibrate", "--labels"]
    assert run_cli([*calibrate, str(bad), "--judge", files["judge"]]) == 2
    assert f"{bad}:1: field 'human_passed'" in capsys.readouterr().err
    assert run_cli([*calibrate, files["labels"], "--judge", "oracle"]) == 2
    assert "unknown judge 'oracle'" in capsys.readouterr().err
    assert run_cli([*calibrate, files["labels"], "--judge", "rubric"]) == 2
    assert "needs a model" in capsys.readouterr().err
    assert run_cli([*calibrate, files["labels"], "--judge", "replay:absent.jsonl"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_lint_flags_knowledge_and_vague_rubrics_in_a_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "rubrics.yaml"
    dataset.write_text(
        "name: rubrics\n"
        "cases:\n"
        "  - id: c1\n"
        "    input: Who won?\n"
        "    rubrics:\n"
        "      - Did the agent verify identity before the refund call?\n"
        "      - Verstappen won the 2024 São Paulo GP.\n"
        "      - Was the trajectory good?\n"
    )
    assert run_cli(["judge", "lint", str(dataset)]) == 1
    out = capsys.readouterr().out
    assert "case 'c1' rubrics[1]: knowledge:" in out
    assert "case 'c1' rubrics[2]: no_criterion:" in out
    assert "rubrics[0]" not in out
    assert "3 rubric(s) checked, 2 problem(s)" in out
