"""The gate: every threshold checked against the report, undefined figures break thresholds."""

from __future__ import annotations

from functools import cache

import pytest

from trailcheck.cases import GateSpec
from trailcheck.demo.support import prompt_only_shop, support_dataset, v1_agent, v2_agent
from trailcheck.run.gate import check_gate
from trailcheck.run.results import RunReport
from trailcheck.run.runner import RunOptions, run


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
    assert pass_hat == "pass^2 >= 0.9: got 0.462"
    assert regressions.startswith("every regression trial passes: 5 case(s) did not: ")
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
