"""What every framework's support agents must show, run as otel agents on the ``support``
dataset: v1 red on the cases that guard its planted bugs, v2 green, graded exactly as the native
agents, through the library, ``trailcheck run --agent-kind otel`` and ``trailcheck demo
--framework``. The framework's tests (``test_<framework>_agent.py``) call these and check their
trace's own shape."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trailcheck.cases import GateSpec
from trailcheck.cli import run_cli
from trailcheck.demo.support import prompt_only_shop, support_dataset
from trailcheck.demo.support import v1_agent as native_v1
from trailcheck.run import OtelAgent, RunOptions, RunResult, run
from trailcheck.run.gate import check_gate
from trailcheck.run.otel_agent import OtelAgentFactory
from trailcheck.run.results import RunReport, TrialResult, load_report

SUPPORT = str(Path("src") / "trailcheck" / "demo" / "support" / "support.yaml")
GATE = GateSpec(pass_hat_k=0.9, k=2, regression_must_pass=True)


def run_support(agent: OtelAgentFactory, *, k: int = 2) -> RunResult:
    """``agent`` on the support dataset with prompt-only tools, ``k`` trials a case."""
    return run(
        support_dataset(),
        OtelAgent(agent),
        prompt_only_shop,
        options=RunOptions(k=k, concurrency=8),
    )


def _failed(trial: TrialResult) -> set[str]:
    return {score.scorer for score in trial.scores if not score.passed}


def assert_v1_fails_on_its_bugs(report: RunReport) -> None:
    """v1 (k = 2) fails the gate on exactly the cases that guard its eight bugs."""
    assert not check_gate(report, GATE).passed
    assert report.summary.pass_hat_k[2] == pytest.approx(6 / 17)
    trials = {case.id: case.trials for case in report.cases}
    for trial in trials["refund-verified"]:  # bug 1: refunds without verify_identity
        assert trial.status == "failed"
        assert {"trajectory", "state", "policy"} <= _failed(trial)
    for trial in trials["reschedule-friday"]:  # bug 2: Friday, June 19 read as June 17
        assert _failed(trial) == {"arguments", "state"}
        new_date = next(c for c in trial.calls if c.name == "reschedule_delivery").arguments
        assert new_date["new_date"] == "2026-06-17"
    for trial in trials["lookup-outage-no-loop"]:  # bug 3: the retry loop
        assert "efficiency" in _failed(trial)
        assert [c.name for c in trial.calls] == ["lookup_order"] * 6
    for trial in trials["refund-failed-no-claim"]:  # bug 4: a refund that failed, claimed
        assert "termination" in _failed(trial)
    for case_id in (  # bugs 5 to 8: an awkward result misread, attributed to that step
        "latest-order-paginated",
        "refund-policy-reads-like-error",
        "latest-order-near-match",
        "stale-delivery-estimate",
    ):
        for trial in trials[case_id]:
            assert trial.status == "failed"
            assert trial.attribution is not None
            assert trial.attribution.category == "misread_tool_result"
    assert [t.status for t in trials["read-only-status"]] == ["passed", "passed"]
    assert report.summary.trials.infra_error == 0


def assert_v2_passes(report: RunReport) -> None:
    """v2 (k = 2) passes every trial and the gate."""
    assert report.summary.trials.passed == report.summary.trials.attempted == 34
    assert check_gate(report, GATE).passed


def _scores(report: RunReport) -> list[tuple[str, str, list[tuple[str, bool, str]]]]:
    without_ids = re.compile(r"\b[0-9a-f]{16}\b")
    return [
        (
            trial.case_id,
            trial.status,
            [(s.scorer, s.passed, without_ids.sub("ID", s.reason)) for s in trial.scores],
        )
        for trial in report.trials()
    ]


def assert_graded_like_native(v1_agent: OtelAgentFactory) -> None:
    """The framework's v1 gets the native v1's statuses, verdicts and reasons (span ids aside)."""
    options = RunOptions(k=1)
    native = run(support_dataset(), native_v1, prompt_only_shop, options=options).report
    framework = run(support_dataset(), OtelAgent(v1_agent), prompt_only_shop, options=options)
    assert _scores(framework.report) == _scores(native)


def assert_run_command_gates(
    module: str, agent_name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``trailcheck run --agent-kind otel`` on ``module``'s agents: v1 red, v2 green, and the
    v2 report's manifest names ``agent_name``."""

    def command(agent: str, out: str) -> list[str]:
        return [
            *("run", SUPPORT, "--agent-kind", "otel"),
            *("--agent", f"{module}:{agent}"),
            *("--env", "trailcheck.demo.support:prompt_only_shop", "-k", "2"),
            *("--out", str(tmp_path / out), "--gate-pass-hat-k", "0.9", "--gate-regression"),
        ]

    assert run_cli(command("v1_agent", "v1")) == 1
    assert "gate failed: pass^2 >= 0.9: got 0.353" in capsys.readouterr().out
    assert run_cli(command("v2_agent", "v2")) == 0
    assert "gate passed" in capsys.readouterr().out
    report = load_report(tmp_path / "v2" / "report.json")
    agent = report.manifest["agent"]
    assert isinstance(agent, dict)
    assert (agent["kind"], agent["agent"]) == ("otel", agent_name)


def assert_demo_writes_the_three_reports(
    framework: str, title: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``trailcheck demo --framework``: three reports, v1 red, v2 green, v2 compared with v1."""
    assert run_cli(["demo", "--framework", framework, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    names = [f"{framework}-{run}" for run in ("v1-prompt-only", "v2-prompt-only", "v2-enforced")]
    for name in names:
        assert (tmp_path / f"{name}.html").exists()
    v1 = load_report(tmp_path / f"{names[0]}.json")
    assert v1.summary.pass_hat_k[4] == pytest.approx(6 / 17)
    assert load_report(tmp_path / f"{names[2]}.json").summary.pass_hat_k[4] == 1.0
    assert f"support dataset, {title} agents, k = 4" in out
    assert "0 regressed, 11 improved, 6 both passed, 0 both failed" in " ".join(out.split())
