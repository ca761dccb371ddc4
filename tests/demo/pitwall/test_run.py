"""The seed story through the real runner: v1 of get_race_results fails the winner case on
groundedness alone (number grounding and the groundedness judge), naming the sentence that no
tool supported; v2 passes every case; the guardrails call no tool."""

from __future__ import annotations

import pytest

from trailcheck.demo.pitwall import (
    guardrails_dataset,
    pitwall_dataset,
    scripted_agent,
    scripted_judge,
    v1_archive,
    v2_archive,
)
from trailcheck.environment import EnvironmentFactory
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import TrialResult
from trailcheck.run.runner import RunResult, run

pytestmark = pytest.mark.live

INVENTED = (
    "His 26 points are the win and the extra point for the race's fastest lap, 1:20.472 on lap 67."
)


def _pitwall(archive: EnvironmentFactory, *, judged: bool = True) -> RunResult:
    judge = scripted_judge() if judged else None
    return run(pitwall_dataset(), scripted_agent, archive, options=RunOptions(k=2), judge=judge)


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


def test_v2_passes_every_case_with_every_scorer_and_the_judge() -> None:
    result = _pitwall(v2_archive)
    for case, trials in _trials(result).items():
        for trial in trials:
            assert trial.status == "passed", (case, trial.reason)
            assert _scores(trial) == {
                "trajectory": True,
                "response": True,
                "grounding": True,
                "judge": True,
            }
    assert result.report.summary.pass_at_1 == 1.0


def test_both_versions_give_the_same_answer_and_only_the_evidence_differs() -> None:
    answers = {}
    for archive in (v1_archive, v2_archive):
        result = _pitwall(archive, judged=False)
        winner = next(t for t in result.traces if t.metadata["case_id"] == "winner")
        [call] = winner.tool_calls
        answers[archive.__name__] = (winner.final_text, "fastest_lap" in str(call.result))
    assert answers["v1_archive"][0] == answers["v2_archive"][0]
    assert answers["v1_archive"][0].endswith(INVENTED)
    assert answers["v1_archive"][1] is False
    assert answers["v2_archive"][1] is True


def test_without_a_judge_grounding_still_fails_v1_and_the_rubric_is_reported_unjudged() -> None:
    trials = _trials(_pitwall(v1_archive, judged=False))
    [first, _] = trials["winner"]
    assert first.status == "failed"
    assert _scores(first) == {"trajectory": True, "response": True, "grounding": False}
    assert "1 rubric" in (first.reason or "")


@pytest.mark.parametrize("archive", [v1_archive, v2_archive])
def test_the_guardrails_pass_without_calling_a_tool(archive: EnvironmentFactory) -> None:
    result = run(guardrails_dataset(), scripted_agent, archive, options=RunOptions(k=2))
    assert result.report.summary.pass_at_1 == 1.0
    assert result.traces
    for trace in result.traces:
        assert trace.tool_calls == []
    answers = {t.metadata["case_id"]: t.final_text for t in result.traces}
    assert "Which season do you mean?" in answers["season-missing"]
    assert "race archive" in answers["out-of-scope"]
