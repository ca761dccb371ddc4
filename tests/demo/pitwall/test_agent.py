"""The Pit Wall agent's guards, through the real runner: the model-call budget stops a model
that asks for tools forever at exactly the budget, each turn gets the whole budget again, and a
recoverable archive error goes back to the model, which tells the user."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from trailcheck.cases import Case, Dataset
from trailcheck.demo.pitwall import BUDGET, model_agent, scripted_agent, v2_archive
from trailcheck.models import Reply, ScriptedModel, ToolDeclaration
from trailcheck.models.scripted import tool_call_reply
from trailcheck.run.runner import run
from trailcheck.run.tool_agent import STOPPED_METADATA_KEY, ToolAgent
from trailcheck.trace import Message, Trace

pytestmark = pytest.mark.live

STANDINGS = "How does the 2024 championship stand?"


def _case(*turns: str, **fields: Any) -> Case:
    conversation = [{"role": "user", "content": turn} for turn in turns]
    return Case.model_validate({"id": "c", "input": conversation, **fields}, strict=False)


def _trace(agent: ToolAgent, case: Case) -> Trace:
    result = run(Dataset(name="pitwall-guards", cases=[case]), lambda: agent, v2_archive)
    [trial] = result.report.trials()
    assert result.traces, trial.reason
    return result.traces[0]


def _forever(messages: Sequence[Message], tools: Sequence[ToolDeclaration] = ()) -> Reply:
    """A model that never answers: one more standings lookup, every time."""
    return tool_call_reply("get_driver_standings", {"season": 2024})


def test_a_model_asking_for_tools_forever_stops_at_exactly_the_budget_in_every_turn() -> None:
    agent = model_agent(ScriptedModel(_forever, name="forever"))
    trace = _trace(agent, _case(STANDINGS, "And now?"))
    model_calls = [span for span in trace.spans if span.kind == "llm"]
    assert len(model_calls) == 2 * BUDGET.model_calls  # the second turn had the whole budget
    assert len(trace.tool_calls) == 2 * BUDGET.model_calls
    stopped = trace.metadata[STOPPED_METADATA_KEY]
    assert stopped == {
        "reason": "model_calls",
        "allowed": BUDGET.model_calls,
        "used": BUDGET.model_calls,
        "turn": 2,
    }
    assert trace.final_text.startswith("Stopped: no final answer after 6 model calls")
    answers = [m for m in agent.history if m.role == "assistant" and not m.tool_calls]
    assert [m.text for m in answers] == [trace.final_text, trace.final_text]


def test_every_tool_call_in_the_history_has_its_tool_message_after_a_stop() -> None:
    def greedy(messages: Sequence[Message], tools: Sequence[ToolDeclaration] = ()) -> Reply:
        calls = [tool_call_reply("get_driver_standings", {"season": 2024}).tool_calls[0]] * 5
        return Reply(tool_calls=[c.model_copy(update={"id": f"x{i}"}) for i, c in enumerate(calls)])

    agent = model_agent(ScriptedModel(greedy, name="greedy"))
    trace = _trace(agent, _case(STANDINGS))
    assert trace.metadata[STOPPED_METADATA_KEY]["reason"] == "tool_calls"
    asked = [c.id for m in agent.history for c in m.tool_calls]
    answered = [m.tool_call_id or "" for m in agent.history if m.role == "tool"]
    assert sorted(asked) == sorted(answered)
    assert agent.history[-1] == Message(role="assistant", content=trace.final_text)


def test_a_driver_missing_from_the_race_goes_back_to_the_model_as_the_original_error() -> None:
    question = (
        "How did Verstappen's final-stint pace compare with Hamilton's at the 2024 São Paulo"
        " Grand Prix?"
    )
    trace = _trace(scripted_agent(), _case(question))
    [call] = trace.tool_calls
    assert call.name == "compare_lap_times"
    assert call.error is not None
    assert "RaceNotFoundError" in call.error
    assert "hamilton" in call.error
    assert trace.final_text.startswith("The archive could not answer: RaceNotFoundError: ")


def test_a_race_named_twice_is_refused_before_the_tool_runs() -> None:
    def both(messages: Sequence[Message], tools: Sequence[ToolDeclaration] = ()) -> Reply:
        if messages[-1].role == "tool":
            return Reply(text=messages[-1].text)
        arguments = {"season": 2024, "round": 21, "circuit_id": "interlagos"}
        return tool_call_reply("get_race_results", arguments)

    trace = _trace(model_agent(ScriptedModel(both, name="both")), _case(STANDINGS))
    assert trace.tool_calls == []  # refused calls make no tool span: nothing ran
    assert "provide exactly one of round or circuit_id" in trace.final_text
