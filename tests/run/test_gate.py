"""The gate: every threshold checked against the report, undefined figures break thresholds."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from trailcheck.cases import GateSpec
from trailcheck.demo.support import prompt_only_shop, support_dataset, v1_agent, v2_agent
from trailcheck.run.gate import check_gate
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import RunReport
from trailcheck.run.runner import run


@cache
def _report(version: str, k: int = 2) -> RunReport:
    agent = v1_agent if version == "v1" else v2_agent
    return run(support_dataset(), agent, prompt_only_shop, options=RunOptions(k=k)).report


def test_green_run_meets_every_threshold() -> None:
    gate = GateSpec(
        pass_hat_k=0.9, k=2, pass_at_1=1.0, regression_must_pass=True, max_infra_errors=0
    )
    result = check_gate(_report("v2"), gate)
    assert result.passed
    assert result.checked == (
        "pass^2 >= 0.9",
        "pass@1 >= 1",
        "every regression trial passes",
        "infra errors <= 0",
    )


def test_each_broken_threshold_is_one_line() -> None:
    gate = GateSpec(pass_hat_k=0.9, regression_must_pass=True, max_infra_errors=0)
    result = check_gate(_report("v1"), gate)
    assert not result.passed
    assert len(result.broken) == 2
    pass_hat, regressions = result.broken
    assert pass_hat == "pass^2 >= 0.9: got 0.353"
    assert regressions.startswith("every regression trial passes: 7 case(s) did not: ")
    assert "reschedule-friday (2/2)" in regressions


def test_pass_hat_k_beyond_the_trials_run_is_undefined_and_fails() -> None:
    result = check_gate(_report("v2"), GateSpec(pass_hat_k=0.5, k=4))
    assert result.broken == (
        "pass^4 >= 0.5: undefined (no case has 4 scored trials; run with -k 4 or more)",
    )


def test_partial_report_fails_any_gate() -> None:
    partial = _report("v2").model_copy(update={"partial": True})
    assert check_gate(partial, GateSpec()).broken == (
        "complete run: the run was interrupted; its report is partial",
    )


def test_command_line_overrides_the_dataset_file() -> None:
    from_file = GateSpec(pass_hat_k=0.9, k=4, max_infra_errors=0)
    merged = from_file.merged(GateSpec(pass_hat_k=0.5))
    assert merged == GateSpec(pass_hat_k=0.5, k=4, max_infra_errors=0)
    with pytest.raises(ValueError, match="less than or equal to 1"):
        GateSpec(pass_hat_k=1.5)


def _calibration(version: str, false_passes: int) -> Any:
    """A calibration of ``version`` on 10 human passes and 10 human fails, with
    ``false_passes`` of the fails passed by the judge."""
    from trailcheck.judge.calibration import calibrate
    from trailcheck.judge.figures import JudgeRun
    from trailcheck.judge.labels import HumanLabel
    from trailcheck.judge.verdict import Judging, Verdict

    criterion = "verifies identity before the refund"
    labels, judgings = [], []
    for i in range(20):
        human = i < 10
        judged = human or i - 10 < false_passes
        labels.append(
            HumanLabel(item_id=f"t{i}", criterion=criterion, human_passed=human, labeler="ana")
        )
        verdict = Verdict(
            evidence=[], passed_criteria=[], failed_criteria=[], failure_mode=None, passed=judged
        )
        judgings.append(
            Judging(
                item_id=f"t{i}",
                criterion=criterion,
                judge_version=version,
                status="judged",
                verdict=verdict,
            )
        )
    return calibrate(labels, JudgeRun(version=version, description={}, judgings=judgings))


def _judged(version: str) -> RunReport:
    manifest = {**_report("v2").manifest, "judge": {"version": version, "kind": "rubric"}}
    return _report("v2").model_copy(update={"manifest": manifest})


JUDGE_GATE = GateSpec(pass_hat_k=0.9, judge_max_false_pass=0.2, judge_max_false_fail=0.1)


def test_a_judged_run_without_calibration_fails_the_gate_as_uncalibrated() -> None:
    (line,) = check_gate(_judged("j-1"), JUDGE_GATE).broken
    assert line.startswith("judge calibrated: judge j-1 is uncalibrated")


def test_a_calibration_of_another_judge_version_does_not_count() -> None:
    (line,) = check_gate(_judged("j-2"), JUDGE_GATE, _calibration("j-1", 0)).broken
    assert "the calibration is of judge j-1, not j-2: that judge is uncalibrated" in line


def test_the_calibrated_error_rates_must_stay_within_the_thresholds() -> None:
    assert check_gate(_judged("j-1"), JUDGE_GATE, _calibration("j-1", 1)).passed
    (line,) = check_gate(_judged("j-1"), JUDGE_GATE, _calibration("j-1", 6)).broken
    assert line.startswith("judge calibrated: false_pass_rate 6/10 = 0.600")


def test_judge_thresholds_are_required_when_a_judge_is_gated() -> None:
    (line,) = check_gate(_judged("j-1"), GateSpec(pass_hat_k=0.9), _calibration("j-1", 0)).broken
    assert "set judge_max_false_pass and judge_max_false_fail" in line
