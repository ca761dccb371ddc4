"""Simulated users in the runner: conversations, their record in the trace, the simulator audit
counted as sim_error, and the baseline's turns replayed to a candidate."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from trailcheck.cases import Case, Dataset, SimulatedUser, StopCondition
from trailcheck.errors import UsageError
from trailcheck.judge.simulator_audit import ModelSimulatorReviewer
from trailcheck.run.agent import TrialContext
from trailcheck.run.conversation import SIMULATED_USER_NAME, USER_TURN_SPAN, Conversation
from trailcheck.run.plan import RunOptions
from trailcheck.run.runner import RunResult, run
from trailcheck.simulation import STOP_SIGNAL
from trailcheck.testing import ScriptedModel, ScriptedUser

INSTRUCTION = (
    "Your blender from order A-1042 arrived broken and you want your money back. Ask for a"
    " refund of 40 EUR first; accept 25 EUR when told the order cost that. Give the order id"
    " only when asked."
)


class Orders:
    """One order and a refund tool: the state says which order was refunded, and how much."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.refunds: list[dict[str, Any]] = []

    def snapshot(self) -> dict[str, Any]:
        return {"refunds": list(self.refunds)}

    @property
    def tools(self) -> list[Any]:
        return [self.issue_refund]

    def issue_refund(self, order_id: str, amount: float) -> dict[str, Any]:
        self.refunds.append({"order_id": order_id, "amount": amount})
        return {"refunded": amount}


class CarefulAgent:
    """Asks for the order id, says what the order cost, refunds that."""

    def __init__(self) -> None:
        self.heard: list[str] = []

    async def respond(self, message: str, context: TrialContext) -> str:
        self.heard.append(message)
        order = re.search(r"\bA-\d{4}\b", " ".join(self.heard))
        if order is None:
            return "Sorry to hear that. What is your order number?"
        if not any("25" in said for said in self.heard):
            return f"Order {order.group(0)} cost 25 EUR, so I can refund 25 EUR. Is that fine?"
        (refund,) = context.tools
        refund(order_id=order.group(0), amount=25.0)
        return f"Done: 25 EUR refunded for {order.group(0)}."


class HastyAgent:
    """Refunds what the user first asks, on the last order it can think of."""

    async def respond(self, message: str, context: TrialContext) -> str:
        (refund,) = context.tools
        refund(order_id="A-1000", amount=40.0)
        return "Done: 40 EUR refunded."


def refund_user(**changes: Any) -> SimulatedUser:
    fields: dict[str, Any] = {
        "instruction": INSTRUCTION,
        "known_facts": {"order_id": "A-1042", "first_amount": 40},
        "max_turns": 5,
        "stop_when": [StopCondition(tool_called="issue_refund")],
    }
    return SimulatedUser(**{**fields, **changes})


def refund_case(**changes: Any) -> Case:
    return Case(
        id="refund",
        user=changes.pop("user", refund_user()),
        expected_state={"refunds": [{"order_id": "A-1042", "amount": 25.0}]},
        **changes,
    )


def polite_user(**changes: Any) -> ScriptedUser:
    fields: dict[str, Any] = {
        "opening": "My blender arrived broken. I want a refund of {first_amount} EUR.",
        "rules": [
            (r"(?i)order number", "It's {order_id}."),
            (r"(?i)25 EUR", "OK, 25 EUR then."),
        ],
    }
    return ScriptedUser(**{**fields, **changes})


def run_refund(agent: Any, simulator: Any, k: int = 2, **settings: Any) -> RunResult:
    case = settings.pop("case", refund_case())
    return run(
        Dataset(name="refunds", cases=[case]),
        agent,
        Orders,
        options=RunOptions(k=k),
        user_simulator=simulator,
        **settings,
    )


def test_a_careful_agent_passes_a_conversation_whose_facts_come_only_when_asked() -> None:
    result = run_refund(CarefulAgent, polite_user())
    summary = result.report.summary
    assert summary.trials.passed == 2
    assert summary.pass_hat_k[2] == 1.0
    trial = result.report.cases[0].trials[0]
    assert trial.conversation_ending == "stop_when"
    assert [turn.text for turn in trial.user_turns] == [
        "My blender arrived broken. I want a refund of 40 EUR.",
        "It's A-1042.",
        "OK, 25 EUR then.",
    ]
    trace = result.traces[0]
    assert isinstance(trace.input, list)
    assert [(m.name, m.text) for m in trace.input] == [
        (SIMULATED_USER_NAME, turn.text) for turn in trial.user_turns
    ]
    spans = [s for s in trace.spans if s.name == USER_TURN_SPAN]
    assert [s.attributes["trailcheck.user.turn"] for s in spans] == [1, 2, 3]
    assert all(s.attributes["trailcheck.user.simulated"] is True for s in spans)
    assert {s.attributes["trailcheck.user.model"] for s in spans} == {"scripted-user"}
    assert len(spans[0].attributes["trailcheck.user.prompt_digest"]) == 16
    assert trace.metadata["simulated_user"] == {
        "simulator": "scripted-user",
        "ending": "stop_when",
        "turns": 3,
        "replayed": 0,
    }


def test_the_agent_never_hears_the_hidden_instruction() -> None:
    agents: list[CarefulAgent] = []

    def make() -> CarefulAgent:
        agents.append(CarefulAgent())
        return agents[-1]

    run_refund(make, polite_user(), k=1)
    heard = " ".join(agents[-1].heard)  # the first was made for the manifest
    assert "Give the order id only when asked" not in heard
    assert "A-1042" in heard


def test_a_hasty_agent_fails_as_the_agent_not_the_simulator() -> None:
    summary = run_refund(HastyAgent, polite_user()).report.summary
    assert summary.trials.failed == 2
    assert summary.trials.sim_error == 0
    assert summary.pass_hat_k[2] == 0.0


def test_a_simulator_that_recites_its_goal_is_a_sim_error_beside_pass_hat_k() -> None:
    leaky = polite_user(opening="{instruction}")
    report = run_refund(CarefulAgent, leaky).report
    trials = report.summary.trials
    assert trials.sim_error == 2
    assert trials.scored == 0
    assert trials.passed == 0
    assert report.summary.pass_hat_k[2] is None  # no scored trial: undefined, not 0 or 1
    assert report.summary.sim_error_rate is not None
    assert report.summary.sim_error_rate.count == 2
    trial = report.cases[0].trials[0]
    assert trial.status == "sim_error"
    assert [error.check for error in trial.simulator_errors] == ["leaked_goal"]
    assert trial.simulator_errors[0].turn == 1
    assert trial.scores  # the agent was still graded, to read


def test_a_simulator_that_makes_up_an_order_id_is_caught() -> None:
    inventive = polite_user(rules=[(r"(?i)order number", "It's A-7777."), (r"25", "OK.")])
    trial = run_refund(CarefulAgent, inventive, k=1).report.cases[0].trials[0]
    assert trial.status == "sim_error"
    checks = {(e.check, e.turn) for e in trial.simulator_errors}
    assert ("invented_fact", 2) in checks


def test_a_simulator_that_contradicts_itself_is_caught() -> None:
    user = refund_user(known_facts={"order_id": "A-1042", "other": "A-1043", "first_amount": 40})
    fickle = polite_user(
        opening="Refund please, order {order_id}.",
        rules=[(r"(?i)25 EUR", "Sorry, I meant order {other}.")],
    )
    case = refund_case(user=user)
    trial = run_refund(CarefulAgent, fickle, k=1, case=case).report.cases[0].trials[0]
    assert [e.check for e in trial.simulator_errors] == ["contradiction"]


def test_a_simulator_that_stops_before_its_goal_is_caught_but_max_turns_is_the_agents() -> None:
    quitter = polite_user(rules=[(r"(?i)order number", STOP_SIGNAL)])
    trial = run_refund(CarefulAgent, quitter, k=1).report.cases[0].trials[0]
    assert trial.conversation_ending == "simulator"
    assert [e.check for e in trial.simulator_errors] == ["ended_early"]

    class Stalling:
        async def respond(self, message: str, context: TrialContext) -> str:
            return "What is your order number?"

    stalled = run_refund(Stalling, polite_user(), k=1).report.cases[0].trials[0]
    assert stalled.conversation_ending == "max_turns"
    assert len(stalled.user_turns) == 5
    assert stalled.status == "failed"
    assert not stalled.simulator_errors


def test_a_hand_off_condition_ends_a_conversation_but_says_nothing_of_the_goal() -> None:
    hand_off = StopCondition(agent_says="(?i)transferring you", goal=False)
    content = polite_user(rules=[(r"(?i)order number", STOP_SIGNAL)])
    only_hand_off = refund_case(user=refund_user(stop_when=[hand_off]))
    trial = run_refund(CarefulAgent, content, k=1, case=only_hand_off).report.cases[0].trials[0]
    assert trial.conversation_ending == "simulator"
    assert trial.simulator_errors == []  # no goal condition: stopping is the user's to decide
    assert trial.status == "failed"  # the agent still had to refund, and did not

    both = refund_case(user=refund_user(stop_when=[hand_off, *refund_user().stop_when]))
    trial = run_refund(CarefulAgent, content, k=1, case=both).report.cases[0].trials[0]
    [error] = trial.simulator_errors
    assert error.check == "ended_early"
    assert error.detail == "it stopped before any of: tool_called: issue_refund"

    class Transferring:
        async def respond(self, message: str, context: TrialContext) -> str:
            return "I am transferring you to a colleague."

    handed = run_refund(Transferring, polite_user(), k=1, case=both).report.cases[0].trials[0]
    assert handed.conversation_ending == "stop_when"
    assert len(handed.user_turns) == 1
    assert handed.status == "failed"
    assert str(hand_off) == "agent_says: (?i)transferring you (not the goal)"


def test_a_case_with_a_simulated_user_and_no_simulator_is_refused_before_any_trial() -> None:
    with pytest.raises(UsageError, match=r"no user\s+simulator"):
        run_refund(CarefulAgent, None)


def test_a_fixed_input_is_played_before_the_simulated_user_carries_on() -> None:
    case = refund_case(input="Hello, my blender arrived broken.")
    scripted = polite_user()
    trial = run_refund(CarefulAgent, scripted, k=1, case=case).report.cases[0].trials[0]
    # The user has spoken (the fixed turn), so the script answers the agent's question.
    assert next(turn.text for turn in trial.user_turns) == "It's A-1042."
    assert scripted.calls[0][0].text == "Hello, my blender arrived broken."


def test_replaying_the_baseline_user_gives_the_same_turns_while_the_agents_agree() -> None:
    baseline = run_refund(CarefulAgent, polite_user()).report
    unused = polite_user(opening="something else entirely")
    same = run_refund(CarefulAgent, unused, replay_user=baseline).report
    assert unused.calls == []  # every turn came from the baseline
    for ours, theirs in zip(same.cases[0].trials, baseline.cases[0].trials, strict=True):
        assert [t.text for t in ours.user_turns] == [t.text for t in theirs.user_turns]
        assert all(t.replayed for t in ours.user_turns)
    assert same.user_replay is not None
    assert (same.user_replay.pairs, same.user_replay.identical) == (2, 2)


def test_replay_generates_fresh_turns_only_after_the_agents_diverge() -> None:
    baseline = run_refund(CarefulAgent, polite_user()).report

    class Different(CarefulAgent):
        async def respond(self, message: str, context: TrialContext) -> str:
            answer = await super().respond(message, context)
            return answer.replace("What is your order number?", "Which order number is it?")

    fresh = polite_user(rules=[(r"(?i)order number", "Order {order_id}."), (r"25 EUR", "Fine.")])
    report = run_refund(Different, fresh, replay_user=baseline).report
    trial = report.cases[0].trials[0]
    assert [(t.text, t.replayed) for t in trial.user_turns][:2] == [
        ("My blender arrived broken. I want a refund of 40 EUR.", True),
        ("Order A-1042.", False),
    ]
    assert report.user_replay is not None
    assert report.user_replay.diverged == 2
    assert {c.diverged_at for c in report.user_replay.conversations} == {2}


def test_a_user_whose_brief_changed_since_the_baseline_is_not_replayed() -> None:
    baseline = run_refund(CarefulAgent, polite_user()).report
    # The same case id, another user: the baseline's turns were said from another brief.
    changed = refund_case(user=refund_user(known_facts={"order_id": "A-1042", "first_amount": 30}))
    fresh = polite_user()
    report = run_refund(CarefulAgent, fresh, case=changed, replay_user=baseline).report
    trial = report.cases[0].trials[0]
    assert [(t.text, t.replayed) for t in trial.user_turns][:1] == [
        ("My blender arrived broken. I want a refund of 30 EUR.", False)
    ]
    assert fresh.calls  # the simulator played the new brief
    assert report.user_replay is not None
    assert report.user_replay.diverged == 2


def test_the_same_answer_holding_a_set_gives_the_same_replay_key() -> None:
    # A set's order is its hash table's: 1 and 9 share a slot, so the order they were added in
    # decides the order they are listed in; across processes, string hashes change it too.
    assert list({1, 9}) != list({9, 1})

    def keys(orders: set[int]) -> list[str]:
        conversation = Conversation(refund_case(), 1, polite_user(rules=[(r".", "Thanks.")]))

        async def respond(message: str) -> Any:
            return {"orders": orders}

        asyncio.run(conversation.play(respond, lambda attributes: None))
        return [turn.key for turn in conversation.simulated_turns]

    first, again = keys({1, 9}), keys({9, 1})
    assert len(first) == 5  # max_turns: the opening, then "Thanks." after each answer
    assert first == again


def test_a_case_needs_an_input_or_a_simulated_user() -> None:
    with pytest.raises(ValueError, match="or a simulated user"):
        Case(id="mute")
    with pytest.raises(ValueError, match="exactly one"):
        StopCondition(tool_called="x", agent_says="y")
    assert "(simulated user) Your blender" in refund_case().input_text()


def test_a_reviewing_judge_adds_what_the_rules_miss_and_its_failure_is_kept_as_data() -> None:
    finding = {"errors": [{"check": "invented_fact", "turn": 1, "detail": "a made-up address"}]}
    reviewer = ModelSimulatorReviewer(ScriptedModel([json.dumps(finding)], name="reviewer"))
    trial = run_refund(CarefulAgent, polite_user(), k=1, user_reviewer=reviewer)
    [result] = trial.report.cases[0].trials
    assert result.status == "sim_error"
    assert [(e.check, e.turn, e.by) for e in result.simulator_errors] == [
        ("invented_fact", 1, "judge:reviewer")
    ]

    broken = ModelSimulatorReviewer(ScriptedModel(["not json", "still not json"], name="broken"))
    [kept] = (
        run_refund(CarefulAgent, polite_user(), k=1, user_reviewer=broken).report.cases[0].trials
    )
    assert kept.status == "passed"
    assert [f.scorer for f in kept.scorer_failures] == ["judge:broken"]
    assert "no valid answer" in kept.scorer_failures[0].message
