"""Rubrics judged after the deterministic grade: verdicts as scores, failures as data."""

from __future__ import annotations

from typing import Any

from trailcheck.cases import Case, Dataset
from trailcheck.judge.verdict import JudgeItem, Judging, Verdict
from trailcheck.run.agent import TrialContext
from trailcheck.run.runner import run

RUBRIC = "Did the agent look the order up before answering?"


class Answering:
    async def respond(self, message: str, context: TrialContext) -> str:
        return "Your order A-1 has shipped."


class ScriptJudge:
    """Answers every item as ``mode`` says, and keeps what it saw."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.items: list[JudgeItem] = []

    @property
    def version(self) -> str:
        return f"script-{self.mode}"

    def describe(self) -> dict[str, Any]:
        return {"kind": "script", "mode": self.mode}

    async def judge(self, item: JudgeItem) -> Judging:
        self.items.append(item)
        if self.mode == "raise":
            raise RuntimeError("judge client bug")
        if self.mode == "garbled":
            return Judging(
                item_id=item.item_id,
                criterion=item.criterion,
                judge_version=self.version,
                status="unscorable",
                raw="PASS!!!",
                reason="the answer is not JSON (after 1 retry)",
                attempts=2,
            )
        passed = self.mode == "pass"
        verdict = Verdict(
            evidence=["no lookup_order call in the trajectory"] if not passed else [],
            passed_criteria=[item.criterion] if passed else [],
            failed_criteria=[] if passed else [item.criterion],
            failure_mode=None if passed else "answered_without_lookup",
            passed=passed,
        )
        return Judging(
            item_id=item.item_id,
            criterion=item.criterion,
            judge_version=self.version,
            status="judged",
            verdict=verdict,
        )


def _dataset() -> Dataset:
    return Dataset(name="judged", cases=[Case(id="c1", input="Where is A-1?", rubrics=[RUBRIC])])


def _trial(judge: ScriptJudge | None) -> Any:
    result = run(_dataset(), Answering, judge=judge)
    (trial,) = result.report.trials()
    return trial, result


def test_a_passing_verdict_is_a_judge_score_and_the_manifest_pins_the_judge() -> None:
    judge = ScriptJudge("pass")
    trial, result = _trial(judge)
    assert trial.status == "passed"
    (score,) = [s for s in trial.scores if s.scorer == "judge"]
    assert score.reason.startswith(f"judge script-pass: passed; criterion: {RUBRIC}")
    assert judge.items[0].item_id == trial.trace_id
    assert judge.items[0].trace.final_output == "Your order A-1 has shipped."
    assert result.report.manifest["judge"] == {
        "version": "script-pass",
        "kind": "script",
        "mode": "pass",
    }


def test_a_failing_verdict_fails_the_trial_with_its_failure_mode() -> None:
    trial, _ = _trial(ScriptJudge("fail"))
    assert trial.status == "failed"
    (score,) = [s for s in trial.scores if s.scorer == "judge"]
    assert "failure mode: answered_without_lookup" in score.reason
    assert "evidence: no lookup_order call in the trajectory" in score.reason


def test_no_valid_verdict_or_a_judge_bug_makes_the_trial_unscorable_with_the_reason() -> None:
    garbled, _ = _trial(ScriptJudge("garbled"))
    assert garbled.status == "unscorable"
    assert "raw answer: PASS!!!" in garbled.scorer_failures[0].message
    broken, _ = _trial(ScriptJudge("raise"))
    assert broken.status == "unscorable"
    failure = broken.scorer_failures[0]
    assert (failure.error_type, failure.scorer) == ("RuntimeError", "judge")
    assert "judge client bug" in failure.message


def test_rubrics_without_a_judge_are_said_to_be_unjudged() -> None:
    trial, result = _trial(None)
    assert trial.status == "unscorable"
    assert trial.reason.endswith("1 rubric(s) not judged: no judge configured")
    assert result.report.manifest["judge"] is None


class Shelf:
    def reset(self) -> None:
        self.looked: list[str] = []

    def snapshot(self) -> dict[str, Any]:
        return {"looked": list(self.looked)}

    @property
    def tools(self) -> list[Any]:
        return [self.lookup_order]

    def lookup_order(self, order_id: str) -> dict[str, str]:
        """Look an order up by its id."""
        self.looked.append(order_id)
        return {"order_id": order_id, "status": "shipped"}


def test_a_rubric_judge_sees_the_trajectory_and_the_tool_declarations() -> None:
    import json

    from trailcheck.judge import RubricJudge
    from trailcheck.models import ScriptedModel

    class LookingUp:
        async def respond(self, message: str, context: TrialContext) -> str:
            (lookup,) = context.tools
            return f"Order A-1 is {lookup(order_id='A-1')['status']}."

    prompts: list[str] = []

    def judge_model(messages: Any, tools: Any) -> str:
        prompt = "\n".join(m.text for m in messages)
        prompts.append(prompt)
        looked_up = "lookup_order" in prompt and '"A-1"' in prompt
        return json.dumps(
            {
                "evidence": ["lookup_order was called with A-1"] if looked_up else [],
                "passed_criteria": [RUBRIC] if looked_up else [],
                "failed_criteria": [] if looked_up else [RUBRIC],
                "failure_mode": None if looked_up else "no_lookup",
                "passed": looked_up,
            }
        )

    judge = RubricJudge(ScriptedModel(judge_model, name="judge-model"))
    result = run(_dataset(), LookingUp, Shelf, judge=judge)
    (trial,) = result.report.trials()
    assert trial.status == "passed"
    (prompt,) = prompts
    assert "Look an order up by its id." in prompt  # the declaration, from the trace metadata
    assert "Order A-1 is shipped." in prompt
    judge_manifest = result.report.manifest["judge"]
    assert isinstance(judge_manifest, dict)
    assert judge_manifest["version"] == judge.version
