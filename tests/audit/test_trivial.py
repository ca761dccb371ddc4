"""Trivial agents: a case that doing nothing passes is flagged; a real check is not."""

from __future__ import annotations

import asyncio

from tests.audit.shop import dataset, tiny_shop
from trailcheck.audit import RandomToolAgent, check_trivial, check_trivial_static
from trailcheck.capture import Recorder
from trailcheck.run.agent import TrialContext

# Only "no refund happened" is checked: an agent that does nothing passes it.
VACUOUS = """\
  - id: vacuous
    input: Please do not refund A-1, just tell me about it.
    expected_state: {refunds: []}
"""
REAL = """\
  - id: real
    input: Refund A-1 please.
    expected_tools: [lookup_order, issue_refund]
    expected_state: {refunds: [{order_id: A-1, amount: 10}]}
"""
NO_TOOLS = """\
  - id: no-tools
    input: Hello there.
    expected_tools: []
"""


def test_a_case_a_refusing_agent_passes_is_flagged_when_run() -> None:
    findings = check_trivial(dataset(VACUOUS + REAL), tiny_shop)
    assert {f.case_id for f in findings} == {"vacuous"}
    first = findings[0]
    assert (first.check, first.severity) == ("passes_trivially", "high")
    # The empty answer fails termination, so do_nothing is not among them.
    assert first.message == (
        "the refuse agent passes it (run, k=1); scorers passed: state, efficiency, termination,"
        " grounding"
    )
    assert [f.message.split(" agent")[0] for f in findings] == [
        "the refuse",
        "the echo",
        "the random_tool",
    ]


def test_a_real_case_is_not_flagged_when_run() -> None:
    assert check_trivial(dataset(REAL), tiny_shop) == []


def test_static_reasoning_flags_a_case_an_empty_trace_satisfies() -> None:
    findings = check_trivial_static(dataset(NO_TOOLS + REAL))
    assert {f.case_id for f in findings} == {"no-tools"}
    assert [m.message.split(" agent")[0] for m in findings] == ["the refuse", "the echo"]
    assert "trajectory" in findings[0].message


def test_static_reasoning_without_environment_is_what_check_trivial_does() -> None:
    assert check_trivial(dataset(NO_TOOLS)) == check_trivial_static(dataset(NO_TOOLS))


def test_rubric_cases_are_only_warned_about() -> None:
    case = NO_TOOLS + "    rubrics: [Did the agent greet the user by name?]\n"
    (finding, *_) = check_trivial_static(dataset(case))
    assert finding.severity == "medium"
    assert "1 rubric(s) were not judged" in finding.message


def _tool_called(seed: int, message: str) -> str:
    shop = tiny_shop()
    recorder = Recorder(agent_name="t", input=message)
    context = TrialContext(tools=recorder.wrap_tools(shop.tools), recorder=recorder)

    async def go() -> None:
        async with recorder:
            await RandomToolAgent(seed).respond(message, context)

    asyncio.run(go())
    (call,) = recorder.traces[-1].tool_calls
    assert all(value == "?" for value in call.arguments.values())
    return call.name


def test_the_random_tool_agent_is_seeded() -> None:
    picks = {_tool_called(3, "hi") for _ in range(3)}
    assert len(picks) == 1
    assert {_tool_called(seed, "hi") for seed in range(20)} == {"lookup_order", "issue_refund"}
