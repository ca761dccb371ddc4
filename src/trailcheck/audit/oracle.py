"""The oracle: the case's own expected calls, replayed as the agent; a golden it fails is wrong.

The oracle's plan for a case, in order:

- each tool of ``expected_tools``; the next ``expected_arguments`` entry for that tool gives its
  arguments, else a parameter of the tool takes the value the case expects for an argument of the
  same name elsewhere (``order_id`` of another call), else it is left out;
- then every ``expected_arguments`` entry not used above (a tool the trajectory does not name).

An argument's value is what its comparator accepts: ``exact``, ``text``, ``number``, ``date`` and
``datetime`` their ``value``, ``one_of`` its first value, ``subset`` its ``value``; ``regex``,
``present`` and ``absent`` name no value, and the argument is left out. The oracle answers the
case's ``reference_response``, or nothing.

It is graded only on the scorers its calls determine (:data:`ORACLE_SCORERS`); what an answer says
(response, grounding, termination, rubrics) is not the oracle's to get right. A case the oracle
fails is flagged ``oracle_fails`` (high) with the failing scorers' reasons. When the oracle could
not form a call (a required parameter the case names no value for), a failure may be its own, so it
is flagged ``oracle_incomplete`` (low) instead, naming the calls it could not form.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from trailcheck.audit.finding import Finding
from trailcheck.audit.probe_user import probed
from trailcheck.cases import (
    Case,
    Comparator,
    Dataset,
    DateComparator,
    DatetimeComparator,
    ExactComparator,
    NumberComparator,
    OneOfComparator,
    SubsetComparator,
    TextComparator,
)
from trailcheck.environment import EnvironmentFactory
from trailcheck.run.agent import AgentFactory, TrialContext
from trailcheck.run.faults import tool_name
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import TrialResult
from trailcheck.run.runner import run

ORACLE_SCORERS = frozenset(
    {"trajectory", "arguments", "state", "replay_state", "policy", "efficiency"}
)
_NO_VALUE = object()


@dataclass(frozen=True, slots=True)
class PlannedCall:
    """One call the oracle makes, and the required parameters it has no value for."""

    tool: str
    arguments: dict[str, Any]
    missing: tuple[str, ...] = field(default=())


def witness(comparator: Comparator) -> Any:
    """A value ``comparator`` accepts, or ``_NO_VALUE`` when it names none."""
    if isinstance(comparator, ExactComparator | TextComparator | SubsetComparator):
        return comparator.value
    if isinstance(comparator, NumberComparator):
        value = comparator.value
        return int(value) if value.is_integer() else value
    if isinstance(comparator, DateComparator | DatetimeComparator):
        stamp: date | datetime = comparator.value
        return stamp.isoformat()
    if isinstance(comparator, OneOfComparator):
        return comparator.values[0]
    return _NO_VALUE


def witness_arguments(fields: dict[str, Comparator]) -> dict[str, Any]:
    """The arguments an expected invocation's comparators name values for, with those values."""
    values = {name: witness(comparator) for name, comparator in fields.items()}
    return {name: value for name, value in values.items() if value is not _NO_VALUE}


def _required(tool: Callable[..., Any] | None) -> list[str]:
    if tool is None:
        return []
    return [
        p.name
        for p in inspect.signature(tool).parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


def _parameters(tool: Callable[..., Any] | None) -> list[str]:
    return [] if tool is None else list(inspect.signature(tool).parameters)


def plan_calls(case: Case, tools: Sequence[Callable[..., Any]]) -> list[PlannedCall]:
    """The oracle's calls for ``case`` on ``tools`` (see the module docstring)."""
    by_name = {tool_name(tool): tool for tool in tools}
    pending = [(e.tool, witness_arguments(e.arguments)) for e in case.expected_arguments]
    known: dict[str, Any] = {}
    for _, arguments in pending:
        for name, value in arguments.items():
            known.setdefault(name, value)
    planned: list[tuple[str, dict[str, Any]]] = []
    for name in case.expected_tools or []:
        index = next((i for i, (tool, _) in enumerate(pending) if tool == name), None)
        if index is not None:
            planned.append(pending.pop(index))
        else:
            inferred = {p: known[p] for p in _parameters(by_name.get(name)) if p in known}
            planned.append((name, inferred))
    planned += pending
    return [
        PlannedCall(name, args, tuple(p for p in _required(by_name.get(name)) if p not in args))
        for name, args in planned
    ]


class OracleAgent:
    """Makes the planned calls on the first turn (a call that raises is its error), then
    answers the reference response, or nothing."""

    def __init__(self, calls: Sequence[PlannedCall], answer: str | None) -> None:
        self._calls = list(calls)
        self._answer = answer or ""

    async def respond(self, message: str, context: TrialContext) -> str:
        calls, self._calls = self._calls, []
        tools = {tool_name(tool): tool for tool in context.tools}
        for call in calls:
            tool = tools.get(call.tool)
            if tool is None:
                continue  # the trajectory scorer names it as missing
            try:
                result = tool(**call.arguments)
                if inspect.isawaitable(result):
                    await result
            # A replayed call that fails is recorded, as an agent's would be; the replay goes on.
            except Exception:  # noqa: BLE001
                continue
        return self._answer


def _oracle_factory(calls: Sequence[PlannedCall], answer: str | None) -> AgentFactory:
    def make() -> OracleAgent:
        return OracleAgent(calls, answer)

    return make


def oracle_failures(trial: TrialResult) -> list[str]:
    """Why an oracle's trial failed: its status when it did not finish, else the reasons of the
    scorers its calls determine (:data:`ORACLE_SCORERS`); empty when it passed them."""
    if trial.status in ("crashed", "timeout", "infra_error"):
        return [f"{trial.status}: {trial.reason}"]
    reasons = [
        f"{score.scorer}: {score.reason}"
        for score in trial.scores
        if score.scorer in ORACLE_SCORERS and not score.passed
    ]
    reasons += [
        f"{failure.scorer} raised {failure.error_type}: {failure.message}"
        for failure in trial.scorer_failures
        if failure.scorer in ORACLE_SCORERS
    ]
    return reasons


@dataclass(frozen=True, slots=True)
class OracleReplay:
    """The oracle's calls for one case, the trial that made them, and why it failed (empty:
    the case's own expectations were reached)."""

    calls: tuple[PlannedCall, ...]
    trial: TrialResult
    failures: tuple[str, ...]


def replay_oracle(
    case: Case,
    environment_factory: EnvironmentFactory,
    *,
    within: Dataset | None = None,
    seed: int = 0,
) -> OracleReplay:
    """One oracle trial of ``case``, graded as it is (its dataset's scorers already given), in
    a fresh environment of the factory's; run as the one case of ``within``'s settings."""
    calls = plan_calls(case, list(environment_factory().tools))
    template = within or Dataset(name="oracle")
    single, user = probed(template.model_copy(update={"cases": [case], "scorers": []}))
    factory = _oracle_factory(calls, case.reference_response)
    options = RunOptions(k=1, seed=seed)
    result = run(single, factory, environment_factory, options=options, user_simulator=user)
    trial = result.report.cases[0].trials[0]
    return OracleReplay(tuple(calls), trial, tuple(oracle_failures(trial)))


def check_oracle(
    dataset: Dataset, environment_factory: EnvironmentFactory, *, seed: int = 0
) -> list[Finding]:
    """Cases the oracle fails on ``environment_factory``'s environment, one run per case."""
    findings: list[Finding] = []
    for case in dataset.graded_cases():
        replay = replay_oracle(case, environment_factory, within=dataset, seed=seed)
        if not replay.failures:
            continue
        failures = replay.failures
        incomplete = [f"{c.tool} (no {', '.join(c.missing)})" for c in replay.calls if c.missing]
        if incomplete:
            message = f"the oracle could not form {', '.join(incomplete)}, and fails " + "; ".join(
                failures
            )
            findings.append(
                Finding(case_id=case.id, check="oracle_incomplete", severity="low", message=message)
            )
        else:
            message = "the expected calls replayed fail their own case: " + "; ".join(failures)
            findings.append(
                Finding(case_id=case.id, check="oracle_fails", severity="high", message=message)
            )
    return findings
