"""The Pit Wall as a Google ADK agent, run as an otel agent: the same brain behind ADK's model
interface, traced by ADK's own OpenTelemetry, graded by the same datasets and judge. Skipped only
where the ``adk`` extra is not installed (CI installs every extra)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

pytest.importorskip("google.adk")

from trailcheck.cli import run_cli
from trailcheck.demo.pitwall import (
    guardrails_dataset,
    pitwall_dataset,
    scripted_judge,
    v1_archive,
    v2_archive,
)
from trailcheck.demo.pitwall.adk_agent import scripted_agent
from trailcheck.environment import EnvironmentFactory
from trailcheck.run import OtelAgent, RunOptions, RunResult, run
from trailcheck.run.otel_trial import TRIAL_SPAN_NAME
from trailcheck.run.results import TrialResult, load_report

pytestmark = pytest.mark.live

PITWALL = str(files("trailcheck.demo.pitwall") / "pitwall.yaml")
INVENTED = (
    "His 26 points are the win and the extra point for the race's fastest lap, 1:20.472 on lap 67."
)


def _pitwall(archive: EnvironmentFactory) -> RunResult:
    return run(
        pitwall_dataset(),
        OtelAgent(scripted_agent),
        archive,
        options=RunOptions(k=2),
        judge=scripted_judge(),
    )


def _trials(result: RunResult) -> dict[str, list[TrialResult]]:
    return {case.id: case.trials for case in result.report.cases}


def _scores(trial: TrialResult) -> dict[str, bool]:
    return {score.scorer: score.passed for score in trial.scores}


def test_v1_fails_the_winner_case_on_groundedness_only() -> None:
    trials = _trials(_pitwall(v1_archive))
    for trial in trials["winner"]:
        assert trial.status == "failed"
        assert _scores(trial) == {
            "trajectory": True,
            "response": True,
            "grounding": False,
            "judge": False,
        }
        reasons = {score.scorer: score.reason for score in trial.scores}
        assert "unsupported: 1:20.472 (80.472 s), 67;" in reasons["grounding"]
        assert f"failed: [3] unsupported: {INVENTED}" in reasons["judge"]
    for case in ("classification", "final-stint-pace"):
        assert [t.status for t in trials[case]] == ["passed", "passed"], case


def test_v2_passes_every_case_and_the_trace_is_adks() -> None:
    result = _pitwall(v2_archive)
    assert result.report.summary.pass_at_1 == 1.0
    winner = next(t for t in result.traces if t.metadata["case_id"] == "winner")
    root = winner.tree.root
    assert root is not None
    assert root.name == TRIAL_SPAN_NAME
    scopes = {span.attributes.get("otel.scope.name") for span in winner.spans}
    assert "gcp.vertex.agent" in scopes
    [call] = winner.tool_calls
    assert call.name == "get_race_results"
    assert call.arguments == {"season": 2024, "circuit_id": "interlagos"}
    assert winner.final_text.endswith(INVENTED)
    assert result.report.manifest["agent"]["framework"] == "google-adk"  # type: ignore[index,call-overload]


def test_the_guardrails_call_no_tool() -> None:
    result = run(guardrails_dataset(), OtelAgent(scripted_agent), v1_archive)
    assert [t.status for t in result.report.trials()] == ["passed", "passed"]
    assert all(trace.tool_calls == [] for trace in result.traces)


def test_run_command_gates_v1_red_and_v2_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def command(archive: str) -> list[str]:
        return [
            *("run", PITWALL, "--agent-kind", "otel"),
            *("--agent", "trailcheck.demo.pitwall.adk_agent:scripted_agent"),
            *("--env", f"trailcheck.demo.pitwall:{archive}", "-k", "1"),
            *("--out", str(tmp_path / archive), "--gate-regression"),
        ]

    assert run_cli(command("v1_archive")) == 1
    assert "gate failed" in capsys.readouterr().out
    assert run_cli(command("v2_archive")) == 0
    report = load_report(tmp_path / "v2_archive" / "report.json")
    assert report.summary.trials.passed == 3


def test_demo_pitwall_framework_adk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli(["demo", "pitwall", "--framework", "adk", "-k", "1", "--out", str(tmp_path)])
    assert code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Why pitwall-v1 fails:" in out
    v1 = load_report(tmp_path / "pitwall-v1.json")
    assert {case.id: case.trials[0].status for case in v1.cases}["winner"] == "failed"
    assert load_report(tmp_path / "pitwall-v2.json").summary.pass_at_1 == 1.0
    assert v1.manifest["agent"]["reference"] == (  # type: ignore[index,call-overload]
        "trailcheck.demo.pitwall.adk_agent:scripted_agent"
    )
