"""``trailcheck run`` on the shipped Pit Wall datasets with a judge factory, and
``trailcheck demo pitwall``: exit codes, the report, and what the output names."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

from trailcheck.cli import run_cli
from trailcheck.run.results import load_report

pytestmark = pytest.mark.live

PITWALL = str(files("trailcheck.demo.pitwall") / "pitwall.yaml")
MODULE = "trailcheck.demo.pitwall"


def _run(tmp_path: Path, archive: str, *extra: str) -> int:
    return run_cli(
        [
            *("run", PITWALL, "--agent", f"{MODULE}:scripted_agent"),
            *("--env", f"{MODULE}:{archive}", "-k", "1", "--out", str(tmp_path), *extra),
        ]
    )


def test_run_v1_with_the_scripted_judge_fails_the_winner_case_and_names_the_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _run(tmp_path, "v1_archive", "--judge", f"{MODULE}:scripted_judge")
    assert code == 0  # no gate asked for: the report says what failed
    report = load_report(tmp_path / "report.json")
    statuses = {case.id: case.trials[0].status for case in report.cases}
    assert statuses == {
        "winner": "failed",
        "classification": "passed",
        "final-stint-pace": "passed",
    }
    assert report.manifest["judge"] is not None
    out = capsys.readouterr().out
    assert "unsupported" in out
    assert "1:20.472" in out


def test_a_regression_gate_fails_v1_and_passes_v2_only_with_a_calibrated_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path / "v1", "v1_archive", "--gate-regression") == 1
    assert "gate failed" in capsys.readouterr().out
    assert _run(tmp_path / "v2", "v2_archive", "--gate-regression") == 0
    judged = _run(
        tmp_path / "v2j", "v2_archive", "--gate-regression", "--judge", f"{MODULE}:scripted_judge"
    )
    assert judged == 1  # the judge is not calibrated, so the gate does not trust it
    assert "uncalibrated" in capsys.readouterr().out


class _HalfAJudge:
    """Judges, but has no version: a calibration could not say which judge it measured."""

    async def judge(self, item: object) -> None:
        raise AssertionError("never called: the factory's judge is refused first")


def half_a_judge() -> _HalfAJudge:
    return _HalfAJudge()


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("trailcheck.demo.nowhere:judge", "cannot import"),
        (f"{MODULE}:scripted_agent", "not a judge"),
        (f"{MODULE}.dataset:PITWALL_FILE", "not callable"),
        (f"{__name__}:half_a_judge", "returned _HalfAJudge, not a judge"),
    ],
)
def test_a_judge_factory_that_is_not_one_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str, problem: str
) -> None:
    assert _run(tmp_path, "v2_archive", "--judge", spec) == 2
    assert problem in capsys.readouterr().err
    assert not (tmp_path / "report.json").exists()


def test_demo_pitwall_runs_both_versions_and_prints_the_comparison(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["demo", "pitwall", "--out", str(tmp_path), "-k", "1"]) == 0
    out = capsys.readouterr().out
    assert "pitwall-v1" in out
    assert "pitwall-v2 against its v1 run" in out
    assert "[3] unsupported" in out
    for name in ("pitwall-v1", "pitwall-v2", "guardrails-v1", "guardrails-v2"):
        report = load_report(tmp_path / f"{name}.json")
        failed = [c.id for c in report.cases if c.trials[0].status != "passed"]
        assert failed == (["winner"] if name == "pitwall-v1" else []), name
        assert (tmp_path / f"{name}.html").exists()
