"""The support shop as a LangGraph agent, run as an otel agent: the same brains under LangGraph,
traced by OpenInference's LangChain instrumentation, graded by the same ``support`` dataset.
Skipped only where the ``langgraph`` extra is not installed (CI installs every extra)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain")
pytest.importorskip("openinference.instrumentation.langchain")

from trailcheck.cases import GateSpec
from trailcheck.cli import run_cli
from trailcheck.demo.support import (
    prompt_only_shop,
    support_dataset,
)
from trailcheck.demo.support import v1_agent as native_v1
from trailcheck.demo.support.langgraph_agent import v1_agent, v2_agent
from trailcheck.run import OtelAgent, RunOptions, RunResult, run
from trailcheck.run.gate import check_gate
from trailcheck.run.otel_trial import TRIAL_SPAN_NAME
from trailcheck.run.results import (
    TrialResult,
    load_report,
)

SUPPORT = str(Path("src") / "trailcheck" / "demo" / "support" / "support.yaml")
GATE = GateSpec(pass_hat_k=0.9, k=2, regression_must_pass=True)


def _run(agent: object) -> RunResult:
    return run(
        support_dataset(),
        OtelAgent(agent),  # type: ignore[arg-type]
        prompt_only_shop,
        options=RunOptions(k=2, concurrency=8),
    )


def _failed(trial: TrialResult) -> set[str]:
    return {score.scorer for score in trial.scores if not score.passed}


def test_v1_fails_the_gate_on_the_cases_that_guard_its_bugs() -> None:
    result = _run(v1_agent)
    report = result.report
    assert not check_gate(report, GATE).passed
    assert report.summary.pass_hat_k[2] == pytest.approx(6 / 13)
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
    assert [t.status for t in trials["read-only-status"]] == ["passed", "passed"]
    assert report.summary.trials.infra_error == 0


def test_v2_passes_every_trial_and_the_gate() -> None:
    report = _run(v2_agent).report
    assert report.summary.trials.passed == report.summary.trials.attempted == 26
    assert check_gate(report, GATE).passed


def test_the_trace_is_langgraphs_under_the_trial_span() -> None:
    result = _run(v2_agent)
    trace = next(t for t in result.traces if t.metadata["case_id"] == "refund-verified")
    root = trace.tree.root
    assert root is not None
    assert root.name == TRIAL_SPAN_NAME
    [graph] = trace.tree.children(root.span_id)
    assert graph.name == "LangGraph"
    assert {span.attributes.get("otel.scope.name") for span in trace.spans} >= {
        "openinference.instrumentation.langchain"
    }
    assert [call.name for call in trace.tool_calls] == [
        "lookup_order",
        "verify_identity",
        "check_refund_policy",
        "issue_refund",
    ]
    assert trace.state_after is not None
    assert len(trace.state_after["refunds"]) == 1
    assert trace.final_text.startswith("I've issued your refund of $129.00 for order A-1001")
    assert result.report.manifest["agent"]["framework"] == "langgraph"  # type: ignore[index,call-overload]


def test_langgraph_and_the_native_loop_are_graded_alike() -> None:
    options = RunOptions(k=1)
    native = run(support_dataset(), native_v1, prompt_only_shop, options=options).report
    otel = OtelAgent(v1_agent)
    framework = run(support_dataset(), otel, prompt_only_shop, options=options).report

    def scores(report: object) -> list[tuple[str, str, list[tuple[str, bool, str]]]]:
        without_ids = re.compile(r"\b[0-9a-f]{16}\b")
        return [
            (
                trial.case_id,
                trial.status,
                [(s.scorer, s.passed, without_ids.sub("ID", s.reason)) for s in trial.scores],
            )
            for trial in report.trials()  # type: ignore[attr-defined]
        ]

    assert scores(framework) == scores(native)


def test_run_command_with_agent_kind_otel_gates_v1_red_and_v2_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def command(agent: str, out: str) -> list[str]:
        return [
            *("run", SUPPORT, "--agent-kind", "otel"),
            *("--agent", f"trailcheck.demo.support.langgraph_agent:{agent}"),
            *("--env", "trailcheck.demo.support:prompt_only_shop", "-k", "2"),
            *("--out", str(tmp_path / out), "--gate-pass-hat-k", "0.9", "--gate-regression"),
        ]

    assert run_cli(command("v1_agent", "v1")) == 1
    assert "gate failed: pass^2 >= 0.9: got 0.462" in capsys.readouterr().out
    assert run_cli(command("v2_agent", "v2")) == 0
    assert "gate passed" in capsys.readouterr().out
    report = load_report(tmp_path / "v2" / "report.json")
    agent = report.manifest["agent"]
    assert isinstance(agent, dict)
    assert (agent["kind"], agent["agent"]) == ("otel", "support-langgraph-v2")


def test_demo_framework_langgraph_writes_the_three_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["demo", "--framework", "langgraph", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    names = ("langgraph-v1-prompt-only", "langgraph-v2-prompt-only", "langgraph-v2-enforced")
    for name in names:
        assert (tmp_path / f"{name}.html").exists()
    v1 = load_report(tmp_path / "langgraph-v1-prompt-only.json")
    assert v1.summary.pass_hat_k[4] == pytest.approx(6 / 13)
    assert load_report(tmp_path / "langgraph-v2-enforced.json").summary.pass_hat_k[4] == 1.0
    assert "support dataset, LangGraph agents, k = 4" in out
    assert "0 regressed, 7 improved, 6 both passed, 0 both failed" in " ".join(out.split())
