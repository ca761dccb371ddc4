"""Flakiness: a case that passes some trials and fails others is flagged with its rate."""

from __future__ import annotations

import itertools

from tests.audit.shop import dataset, tiny_shop
from trailcheck.audit import check_flaky
from trailcheck.run.agent import TrialContext
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import RunReport
from trailcheck.run.runner import run
from trailcheck.scorers import Score

CASE = """\
  - id: refund
    input: Refund A-1 please.
    expected_tools: [issue_refund]
    expected_state: {refunds: [{order_id: A-1, amount: 10}]}
"""


class SometimesRefunds:
    def __init__(self, refunds: bool) -> None:
        self._refunds = refunds

    async def respond(self, message: str, context: TrialContext) -> str:
        if self._refunds:
            (refund,) = [tool for tool in context.tools if tool.__name__ == "issue_refund"]
            refund(order_id="A-1", amount=10)
        return "Refunded." if self._refunds else "Sorry."


def _report(pattern: list[bool]) -> RunReport:
    cycle = itertools.cycle(pattern)
    # One factory call describes the agent for the manifest before the trials: skip it.
    outcomes = iter([True, *itertools.islice(cycle, 4)])
    options = RunOptions(k=4, concurrency=1)
    return run(
        dataset(CASE), lambda: SometimesRefunds(next(outcomes)), tiny_shop, options=options
    ).report


def test_a_case_that_flips_is_flaky_with_its_rate() -> None:
    (finding,) = check_flaky(_report([True, False]))
    assert (finding.case_id, finding.check, finding.severity) == ("refund", "flaky", "medium")
    assert finding.message.startswith("outcome varies across trials: passed 2/4=0.500")
    assert "scorers that flip: trajectory 2/4, state 2/4" in finding.message


def test_a_steady_case_is_not_flaky() -> None:
    assert check_flaky(_report([True])) == []
    assert check_flaky(_report([False])) == []


def _judge(passed: bool, criterion: str) -> Score:
    verdict = "passed" if passed else "failed"
    reason = f"judge rubric-v3: {verdict}; criterion: {criterion}"
    if not passed:
        reason += f"; failed: {criterion}; failure mode: wrong_answer"
    return Score(scorer="judge", value=float(passed), passed=passed, threshold=1.0, reason=reason)


def _judged(report: RunReport, verdicts: list[list[Score]]) -> RunReport:
    (case,) = report.cases
    trials = [
        trial.model_copy(update={"scores": [*trial.scores, *scores]})
        for trial, scores in zip(case.trials, verdicts, strict=True)
    ]
    return report.model_copy(update={"cases": [case.model_copy(update={"trials": trials})]})


POLITE = "Is the agent polite; does it greet the user?"
NAMED = "Does the agent name the order?"


def test_a_judge_verdict_that_flips_across_samples_is_flagged_with_its_rate() -> None:
    # The outcome is steady (every trial fails its state check); one judge criterion flips.
    verdicts = [[_judge(p, POLITE), _judge(True, NAMED)] for p in (True, False, True, True)]
    (finding,) = check_flaky(_judged(_report([False]), verdicts))
    assert (finding.case_id, finding.check, finding.severity) == (
        "refund",
        "flaky_judge",
        "medium",
    )
    assert finding.message == (
        f"judge verdict varies across samples: criterion {POLITE!r} passed 3/4=0.750"
    )


def test_steady_judge_verdicts_are_not_flagged() -> None:
    verdicts = [[_judge(True, POLITE), _judge(False, NAMED)] for _ in range(4)]
    assert check_flaky(_judged(_report([False]), verdicts)) == []
