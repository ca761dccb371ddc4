"""``trailcheck demo conversation``'s story, through the real runner: v1 refunds before asking
and fails, v2 asks and passes; simulated turns are marked in the traces; the faulty user's
trials are sim_error beside pass^k; v2 meets v1's very users until the agents part."""

from __future__ import annotations

from typing import Any

from tests.demo.conversation.conftest import K
from trailcheck.cases import Dataset
from trailcheck.demo.conversation import (
    INVENTED_ORDER_ID,
    conversation_dataset,
    scripted_users,
    v1_agent,
    v2_agent,
)
from trailcheck.demo.support import prompt_only_shop
from trailcheck.run.conversation import SIMULATED_USER_NAME, USER_TURN_SPAN
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import RunReport
from trailcheck.run.runner import RunResult, run
from trailcheck.testing import ScriptedUser, ScriptedUsers

STORY_CASES = {"wrong-amount-first", "order-id-when-asked", "changes-mind"}
FAULTY_CASE = "espresso-out-of-window"


def _statuses(report: RunReport) -> dict[str, set[str]]:
    return {case.id: {trial.status for trial in case.trials} for case in report.cases}


def test_v1_fails_every_story_case_and_v2_passes_them_with_pass_hat_k_shown(
    demo_runs: dict[str, RunResult],
) -> None:
    v1, v2 = demo_runs["conversation-v1"].report, demo_runs["conversation-v2"].report
    assert _statuses(v1) == {**{key: {"failed"} for key in STORY_CASES}, FAULTY_CASE: {"sim_error"}}
    assert _statuses(v2) == {**{key: {"passed"} for key in STORY_CASES}, FAULTY_CASE: {"sim_error"}}
    assert v1.summary.pass_hat_k[K] == 0.0
    assert v2.summary.pass_hat_k[K] == 1.0


def test_the_faulty_users_trials_are_sim_error_counted_beside_pass_hat_k(
    demo_runs: dict[str, RunResult],
) -> None:
    for result in demo_runs.values():
        summary = result.report.summary
        assert summary.trials.sim_error == K
        assert summary.trials.scored == summary.trials.attempted - K
        assert summary.sim_error_rate is not None
        assert summary.sim_error_rate.count == K
        [case] = [c for c in result.report.cases if c.id == FAULTY_CASE]
        for trial in case.trials:
            checks = [(error.check, error.turn) for error in trial.simulator_errors]
            assert checks == [("invented_fact", 2), ("ended_early", None)]
            assert INVENTED_ORDER_ID in trial.simulator_errors[0].detail


def test_the_traces_carry_the_simulated_turns_marked_as_such(
    demo_runs: dict[str, RunResult],
) -> None:
    result = demo_runs["conversation-v2"]
    trial = next(t for t in result.report.trials() if t.case_id == "wrong-amount-first")
    trace = next(t for t in result.traces if t.trace_id == trial.trace_id)
    turns = [span for span in trace.spans if span.name == USER_TURN_SPAN]
    assert [span.attributes["trailcheck.user.message"] for span in turns] == [
        turn.text for turn in trial.user_turns
    ]
    assert all(span.attributes["trailcheck.user.simulated"] is True for span in turns)
    assert [span.attributes["trailcheck.user.replayed"] for span in turns] == [
        True,
        True,
        False,
        False,
    ]
    assert isinstance(trace.input, list)
    assert {message.name for message in trace.input} == {SIMULATED_USER_NAME}


def test_v2_asks_for_the_amount_the_order_cost_where_v1_refunds_what_was_asked(
    demo_runs: dict[str, RunResult],
) -> None:
    def refund_of(result: RunResult) -> list[Any]:
        trial = next(t for t in result.report.trials() if t.case_id == "wrong-amount-first")
        return [c.arguments for c in trial.calls if c.name == "issue_refund"]

    assert refund_of(demo_runs["conversation-v1"]) == [
        {"order_id": "A-1007", "amount": 24.0, "reason": "customer request"}
    ]
    assert refund_of(demo_runs["conversation-v2"]) == [
        {"order_id": "A-1007", "amount": 18.0, "reason": "customer request"}
    ]
    v2 = next(
        t for t in demo_runs["conversation-v2"].report.trials() if t.case_id == "changes-mind"
    )
    assert not [c for c in v2.calls if c.name == "issue_refund"]
    assert v2.transcript[-1].text.startswith("All right: I haven't refunded anything")


def test_v2_meets_v1s_very_users_until_the_agents_part(demo_runs: dict[str, RunResult]) -> None:
    v1, v2 = demo_runs["conversation-v1"].report, demo_runs["conversation-v2"].report
    replay = v2.user_replay
    assert replay is not None
    assert (replay.pairs, replay.identical, replay.diverged) == (4 * K, K, 3 * K)
    where = {(c.case_id, c.diverged_at) for c in replay.conversations}
    assert where == {(case, 3) for case in STORY_CASES} | {(FAULTY_CASE, None)}
    for case in v2.cases:
        [baseline] = [c for c in v1.cases if c.id == case.id]
        for ours, theirs in zip(case.trials, baseline.trials, strict=True):
            replayed = [turn.text for turn in ours.user_turns if turn.replayed]
            assert replayed == [turn.text for turn in theirs.user_turns][: len(replayed)]
    assert v2.comparison is not None
    assert v2.comparison.unscored == [FAULTY_CASE]  # sim_error on both sides: not compared


def test_each_case_has_exactly_one_script_and_a_faithful_user_lets_both_agents_pass_it() -> None:
    users = scripted_users()
    dataset = conversation_dataset()
    assert all(case.user is not None for case in dataset.cases)
    names = {users.script_for(case.user).name for case in dataset.cases if case.user}
    assert len(names) == len(dataset.cases)
    # The faulty case is sound: with a user who gives the real order id, both agents pass it,
    # so its sim_error hides no failure of the agents'.
    faithful = ScriptedUsers(
        {
            "espresso machine": ScriptedUser(
                "My espresso machine leaks.", [(r"(?i)order number", "It's {order_id}.")]
            )
        }
    )
    [case] = [c for c in dataset.cases if c.id == FAULTY_CASE]
    for agent in (v1_agent, v2_agent):
        report = run(
            Dataset(name="espresso", cases=[case]),
            agent,
            prompt_only_shop,
            options=RunOptions(k=1),
            user_simulator=faithful,
        ).report
        [trial] = report.trials()
        assert (trial.status, trial.conversation_ending) == ("passed", "stop_when"), trial.reason
