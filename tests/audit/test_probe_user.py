"""The audit runs its own agents on cases whose user is simulated: one neutral probe turn, no
model needed, and the cases graded as for any agent."""

from __future__ import annotations

from tests.run.test_simulated_users import Orders, refund_case
from trailcheck.audit.oracle import check_oracle, replay_oracle
from trailcheck.audit.probe_user import PROBE_LINE, probed
from trailcheck.audit.trivial import check_trivial
from trailcheck.cases import Case, Dataset, ExpectedInvocation


def refunds(*cases: Case) -> Dataset:
    return Dataset(name="refunds", cases=list(cases))


def reachable() -> Case:
    expected = ExpectedInvocation.model_validate(
        {"tool": "issue_refund", "arguments": {"order_id": "A-1042", "amount": 25.0}}
    )
    return refund_case(expected_arguments=[expected], expected_tools=["issue_refund"])


def test_the_oracle_reaches_a_simulated_users_case_after_the_probe_turn() -> None:
    replay = replay_oracle(reachable(), Orders)
    assert replay.failures == ()  # the calls and state the case expects were reached
    assert replay.trial.conversation_ending == "max_turns"
    assert replay.trial.simulator_errors == []
    assert [turn.text for turn in replay.trial.user_turns] == [PROBE_LINE]
    assert check_oracle(refunds(reachable()), Orders) == []


def test_the_oracle_still_fails_a_case_it_cannot_reach() -> None:
    wrong = reachable().model_copy(update={"expected_state": {"refunds": []}})
    [finding] = check_oracle(refunds(wrong), Orders)
    assert finding.case_id == "refund"


def test_a_trivial_agent_is_run_on_simulated_users_and_caught_when_it_passes() -> None:
    assert check_trivial(refunds(reachable()), Orders) == []
    vacuous = Case(id="vacuous", user=reachable().user, expected_state={"refunds": []})
    flagged = {f.message.split(" ")[0] for f in check_trivial(refunds(vacuous), Orders)}
    assert flagged  # every agent that calls no tool passes a case that expects no refund


def test_probing_cuts_the_user_to_one_turn_and_leaves_other_cases_alone() -> None:
    fixed = Case(id="fixed", input="Refund A-1042", expected_state={"refunds": []})
    played, user = probed(refunds(reachable(), fixed))
    assert user is not None
    simulated = played.cases[0].user
    assert simulated is not None
    assert (simulated.max_turns, simulated.stop_when) == (1, [])
    assert played.cases[1] == fixed
    assert probed(refunds(fixed)) == (refunds(fixed), None)
