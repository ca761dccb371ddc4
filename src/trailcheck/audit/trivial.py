"""Trivial agents: a case that an agent doing nothing useful passes checks too little.

Four agents, each plain and deterministic:

- ``do_nothing``: calls no tool and answers nothing (``""``);
- ``refuse``: calls no tool and answers ``"I can't help with that."``;
- ``echo``: calls no tool and answers the user's message back;
- ``random_tool``: calls one tool of the environment, chosen by a seeded generator (seed and
  message), with garbage arguments (``"?"`` for every required parameter); a tool that raises is
  the call's error, and it answers ``"Done."``;
- ``hand_off``: only where the domain has a hand-off tool (a name starting ``transfer_to_human``,
  ``escalate``, ``handoff`` or ``hand_off``): calls the first such tool (by name) with garbage
  arguments and answers ``"I have transferred you to a human agent."``. A case that passes when
  the agent hands every request to a human does not test the agent.

With an environment factory each agent runs every case with the real runner (k=1); a case any of
them passes is flagged ``passes_trivially`` (high), naming the agent and the scorers that passed.

Without an environment there is nothing to run in, so the audit reasons statically: it grades a
hand-built trace of no tool calls per answering agent (``do_nothing``, ``refuse``, ``echo``) with
``state_before == state_after == {}``, and, where the dataset's ``tools`` name a hand-off tool, a
trace of that one call (no arguments: a dataset names its tools, not their parameters) answering
the hand-off line. An empty state is the only one known without a fixture, so a
state check that names keys fails here; give an environment to check those cases for real.
"""

from __future__ import annotations

import inspect
import random
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from trailcheck.audit.finding import Finding
from trailcheck.audit.probe_user import probed
from trailcheck.cases import Case, Dataset
from trailcheck.environment import EnvironmentFactory
from trailcheck.run.agent import Agent, AgentFactory, TrialContext
from trailcheck.run.plan import RunOptions
from trailcheck.run.preflight import user_turns
from trailcheck.run.runner import run
from trailcheck.scorers import Score, grade
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

CHECK = "passes_trivially"
REFUSAL = "I can't help with that."
HAND_OFF_ANSWER = "I have transferred you to a human agent."
_HAND_OFF = re.compile(r"transfer_to_human|escalate|hand_?off", re.IGNORECASE)


def hand_off_tool(names: Iterable[str]) -> str | None:
    """The first name (sorted) that suggests a hand-off to a human, or None."""
    return next((name for name in sorted(names) if _HAND_OFF.match(name)), None)


class AnsweringAgent:
    """Calls no tool; answers each turn with ``answer(message)``."""

    def __init__(self, answer: Callable[[str], str]) -> None:
        self._answer = answer

    async def respond(self, message: str, context: TrialContext) -> str:
        return self._answer(message)


class RandomToolAgent:
    """Calls one seeded-random tool with garbage arguments, then says it is done."""

    def __init__(self, seed: int = 0) -> None:
        self._seed = seed

    async def respond(self, message: str, context: TrialContext) -> str:
        if context.tools:
            chooser = random.Random(f"{self._seed}:{message}")
            tool = chooser.choice(list(context.tools))
            try:
                result = tool(**garbage_arguments(tool))
                if inspect.isawaitable(result):
                    await result
            # What the tool does with garbage is the trace's to record, not this agent's.
            except Exception:  # noqa: BLE001
                pass
        return "Done."


class HandOffAgent:
    """Calls the environment's hand-off tool with garbage arguments; says it transferred you."""

    async def respond(self, message: str, context: TrialContext) -> str:
        by_name = {getattr(tool, "__name__", ""): tool for tool in context.tools}
        name = hand_off_tool(by_name)
        if name is not None:
            tool = by_name[name]
            try:
                result = tool(**garbage_arguments(tool))
                if inspect.isawaitable(result):
                    await result
            # As for the random tool: what the tool does with garbage is the trace's to record.
            except Exception:  # noqa: BLE001
                pass
        return HAND_OFF_ANSWER


def garbage_arguments(tool: Callable[..., Any]) -> dict[str, Any]:
    """``"?"`` for every parameter of ``tool`` that has no default."""
    parameters = inspect.signature(tool).parameters.values()
    return {
        p.name: "?"
        for p in parameters
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }


def _answers() -> dict[str, Callable[[str], str]]:
    return {"do_nothing": lambda _: "", "refuse": lambda _: REFUSAL, "echo": lambda m: m}


def trivial_agents(seed: int = 0, *, tool_names: Iterable[str] = ()) -> dict[str, AgentFactory]:
    """The trivial agents by name, as factories the runner takes; ``hand_off`` only where
    ``tool_names`` has a hand-off tool."""
    factories: dict[str, AgentFactory] = {}
    for name, answer in _answers().items():
        factories[name] = _answering_factory(answer)
    factories["random_tool"] = lambda: RandomToolAgent(seed)
    if hand_off_tool(tool_names) is not None:
        factories["hand_off"] = HandOffAgent
    return factories


def _environment_tool_names(environment_factory: EnvironmentFactory) -> list[str]:
    return [getattr(tool, "__name__", "") for tool in environment_factory().tools]


def _answering_factory(answer: Callable[[str], str]) -> AgentFactory:
    def make() -> Agent:
        return AnsweringAgent(answer)

    return make


def _finding(case: Case, agent: str, scores: Sequence[Score], how: str) -> Finding:
    passed = ", ".join(score.scorer for score in scores if score.passed) or "none"
    message = f"the {agent} agent passes it ({how}); scorers passed: {passed}"
    if case.rubrics:
        # No judge here: the rubrics may still fail it, so this is a warning, not a defect.
        message += f"; its {len(case.rubrics)} rubric(s) were not judged"
    return Finding(
        case_id=case.id,
        check=CHECK,
        severity="medium" if case.rubrics else "high",
        message=message,
    )


def check_trivial(
    dataset: Dataset, environment_factory: EnvironmentFactory | None = None, *, seed: int = 0
) -> list[Finding]:
    """Cases a trivial agent passes: run for real with an environment, else graded statically."""
    if environment_factory is None:
        return check_trivial_static(dataset)
    cases = {case.id: case for case in dataset.graded_cases()}
    findings: list[Finding] = []
    names = _environment_tool_names(environment_factory)
    played, user = probed(dataset)
    for name, factory in trivial_agents(seed, tool_names=names).items():
        options = RunOptions(k=1, seed=seed)
        report = run(played, factory, environment_factory, options=options, user_simulator=user)
        for result in report.report.cases:
            for trial in result.trials:
                if trial.status == "passed":
                    findings.append(_finding(cases[result.id], name, trial.scores, "run, k=1"))
    order = list(cases)
    return sorted(findings, key=lambda f: order.index(f.case_id or ""))


def empty_trace(case: Case, answer: str, *, calls: Sequence[str] = ()) -> Trace:
    """A trace answering ``answer`` after ``calls`` (no arguments, no result), with an unchanged
    empty state."""
    builder = TraceBuilder(f"trivial-{case.id}", input=case.input)
    for call in calls:
        builder = builder.tool(call, {})
    return builder.output(answer).state(before={}, after={}).build()


def check_trivial_static(dataset: Dataset) -> list[Finding]:
    """Cases whose checks a no-call trace with unchanged (empty) state satisfies."""
    findings: list[Finding] = []
    hand_off = hand_off_tool(dataset.tools or [])
    for case in dataset.graded_cases():
        # A case whose user is only simulated has no fixed turn to echo: the echoing agent
        # then says nothing, as the do-nothing one does.
        last_turn = next(reversed(user_turns(case)), "")
        for name, answer in _answers().items():
            graded = grade(empty_trace(case, answer(last_turn)), case)
            if graded.passed:
                findings.append(_finding(case, name, graded.scores, "graded statically"))
        if hand_off is not None:
            graded = grade(empty_trace(case, HAND_OFF_ANSWER, calls=[hand_off]), case)
            if graded.passed:
                findings.append(_finding(case, "hand_off", graded.scores, "graded statically"))
    return findings
