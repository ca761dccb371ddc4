"""Imported benchmark tasks run with a simulated user, end to end: a tau-bench airline task and
an ADK conversation scenario, each played by a ScriptedUser against a trivial agent."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from trailcheck.cases import Case, Dataset
from trailcheck.cases.importers.adk import import_adk
from trailcheck.cases.importers.tau_bench import import_tau_bench
from trailcheck.run.agent import TrialContext
from trailcheck.run.conversation import SIMULATED_USER_NAME
from trailcheck.run.plan import RunOptions
from trailcheck.run.runner import RunResult, run
from trailcheck.simulation import STOP_SIGNAL
from trailcheck.testing import ScriptedUser

TAU = Path("tau-bench")
# Task 8: cancel one reservation, book another, and tell the user three amounts.
TASK = 8


class ToolLog:
    """Every airline tool by name, each only noting its call: the state is the calls made."""

    def __init__(self, names: Sequence[str]) -> None:
        self._names = list(names)
        self.reset()

    def reset(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def snapshot(self) -> dict[str, Any]:
        return {"calls": list(self.calls)}

    @property
    def tools(self) -> list[Callable[..., Any]]:
        return [self._tool(name) for name in self._names]

    def _tool(self, name: str) -> Callable[..., Any]:
        def call(**arguments: Any) -> dict[str, Any]:
            self.calls.append({"tool": name, "arguments": arguments})
            return {"ok": True}

        call.__name__ = name
        return call


class GoldAgent:
    """Makes the task's gold calls on the first turn, then says the outputs it must say."""

    def __init__(self, actions: list[dict[str, Any]], outputs: list[str]) -> None:
        self._actions = actions
        self._outputs = outputs
        self.heard: list[str] = []

    async def respond(self, message: str, context: TrialContext) -> str:
        self.heard.append(message)
        tools = {tool.__name__: tool for tool in context.tools}
        for action in self._actions:
            tools[action["name"]](**action["kwargs"])
        return f"All done: booked. The amounts are {', '.join(self._outputs)}."


class IdleAgent:
    """Answers without doing anything."""

    async def respond(self, message: str, context: TrialContext) -> str:
        return "I see. Anything else?"


class HandOffAgent:
    """Hands the user to a person at once."""

    async def respond(self, message: str, context: TrialContext) -> str:
        (transfer,) = [t for t in context.tools if t.__name__ == "transfer_to_human_agents"]
        transfer(summary="the user wants to change a booking")
        return "I am transferring you to a human agent."


def traveller() -> ScriptedUser:
    return ScriptedUser(
        opening="Hi, I need to change my trip. My user id is {user_id}.",
        rules=[(r"(?i)booked", STOP_SIGNAL)],
        otherwise="Could you go ahead, please?",
    )


@pytest.fixture
def airline(external: Path) -> tuple[Case, dict[str, Any], list[str]]:
    """The imported case of :data:`TASK`, its task, and every airline tool name."""
    tasks = json.loads((external / TAU / "airline_tasks_test.json").read_text(encoding="utf-8"))
    tools_info = external / TAU / "airline_tools_info.json"
    imported = import_tau_bench([external / TAU / "airline_tasks_test.json"], tools_info=tools_info)
    names = [entry["function"]["name"] for entry in json.loads(tools_info.read_text("utf-8"))]
    return imported.dataset.cases[TASK], tasks[TASK], names


def run_task(
    case: Case, names: list[str], agent: Callable[[], Any], user: ScriptedUser
) -> RunResult:
    return run(
        Dataset(name="airline", cases=[case]),
        agent,
        lambda: ToolLog(names),
        options=RunOptions(k=1),
        user_simulator=user,
    )


@pytest.mark.external
def test_an_imported_airline_task_runs_with_the_simulator_speaking_first(
    airline: tuple[Case, dict[str, Any], list[str]],
) -> None:
    case, task, names = airline
    agents: list[GoldAgent] = []

    def make() -> GoldAgent:
        agents.append(GoldAgent(task["actions"], task["outputs"]))
        return agents[-1]

    user = traveller()
    result = run_task(case, names, make, user)
    assert user.calls[0] == []  # asked for the first turn before anyone spoke
    trial = result.report.cases[0].trials[0]
    assert trial.status == "passed", [(s.scorer, s.reason) for s in trial.scores]
    assert trial.simulator_errors == []  # stopping content is no error: the hand-off is no goal
    assert trial.conversation_ending == "simulator"
    assert [(turn.text, turn.stop) for turn in trial.user_turns] == [
        (f"Hi, I need to change my trip. My user id is {task['user_id']}.", False),
        ("", True),  # told it was booked, the user is done
    ]
    assert {s.scorer for s in trial.scores} >= {"trajectory", "arguments", "response"}
    trace = result.traces[0]
    assert isinstance(trace.input, list)
    assert [message.name for message in trace.input] == [SIMULATED_USER_NAME]
    assert task["instruction"] not in " ".join(agents[-1].heard)  # the brief stays hidden


@pytest.mark.external
def test_an_agent_that_does_nothing_fails_the_task_as_the_agent(
    airline: tuple[Case, dict[str, Any], list[str]],
) -> None:
    case, _, names = airline
    assert case.user is not None
    trial = run_task(case, names, IdleAgent, traveller()).report.cases[0].trials[0]
    assert trial.status == "failed"
    assert trial.conversation_ending == "max_turns"
    assert len(trial.user_turns) == case.user.max_turns
    assert trial.simulator_errors == []


@pytest.mark.external
def test_a_hand_off_ends_the_conversation_as_tau_bench_ends_an_episode(
    airline: tuple[Case, dict[str, Any], list[str]],
) -> None:
    case, _, names = airline
    trial = run_task(case, names, HandOffAgent, traveller()).report.cases[0].trials[0]
    assert trial.conversation_ending == "stop_when"
    assert len(trial.user_turns) == 1
    assert trial.status == "failed"  # the writes were not made
    assert trial.simulator_errors == []


class DiceAgent:
    """Rolls a 7 when asked to roll, and says 7 is prime when asked."""

    async def respond(self, message: str, context: TrialContext) -> str:
        if "prime" in message.lower():
            return "Yes, 7 is prime."
        if "roll" in message.lower():
            return "I rolled a 7."
        return "I can roll dice and check primes."


def test_an_adk_scenario_plays_its_starting_prompt_then_the_simulated_user(
    tmp_path: Path,
) -> None:
    """The scenario is written from ADK's documented schema (``starting_prompt``,
    ``conversation_plan``): the evalsets in shared material have none."""
    scenario = {
        "starting_prompt": "What can you do for me?",
        "conversation_plan": "Ask the agent to roll a die, then whether the result is prime.",
    }
    evalset = {
        "eval_set_id": "dice",
        "eval_cases": [{"eval_id": "roll", "conversation_scenario": scenario}],
    }
    path = tmp_path / "dice.evalset.json"
    path.write_text(json.dumps(evalset), encoding="utf-8")
    dataset = import_adk([path]).dataset
    user = ScriptedUser(
        opening="unused: the starting prompt is the first turn",
        rules=[(r"(?i)roll dice", "Roll a die, please."), (r"rolled", "Is that prime?")],
    )
    result = run(dataset, DiceAgent, options=RunOptions(k=1), user_simulator=user)
    assert user.calls[0][0].text == "What can you do for me?"  # the fixed turn came first
    trial = result.report.cases[0].trials[0]
    assert trial.simulator_errors == []
    assert trial.conversation_ending == "simulator"
    assert [turn.text for turn in trial.user_turns] == ["Roll a die, please.", "Is that prime?", ""]
    trace = result.traces[0]
    assert isinstance(trace.input, list)
    assert [(m.name, m.text) for m in trace.input] == [
        (None, "What can you do for me?"),
        (SIMULATED_USER_NAME, "Roll a die, please."),
        (SIMULATED_USER_NAME, "Is that prime?"),
    ]
    assert trace.final_output == "Yes, 7 is prime."
