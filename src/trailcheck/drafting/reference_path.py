"""The reference path: a draft's expected calls replayed by the oracle, before anyone reviews it.

A draft is checked as it would be once approved (its proposals adopted,
:func:`~trailcheck.loop.with_proposals`), in two steps; the first that finds a problem rejects
it, with every problem it found:

1. **Schemas** (always): each tool the draft expects or sets a fault on is declared, and each
   expected call's arguments are valid against its tool's declared parameters (missing
   required ones, wrong types, values outside an ``enum``...: the JSON Schema subset of
   :func:`~trailcheck.components.schema_problems`).
2. **Replay** (with an environment factory): the oracle (:mod:`trailcheck.audit.oracle`) makes
   the expected calls in a fresh environment, through the runner, with the draft's faults
   applied. Rejected when a tool the environment lacks is expected, a call cannot be formed
   (a required parameter with no value), a call raises (unless one of the draft's own faults
   raises it: a rate limit the scenario sets up), or the oracle's trial fails the scorers its
   calls determine: the trajectory, the arguments, the policies, and the expected state
   against the environment's state afterwards.

Without an environment only the schemas are checked: the status is ``schema_only``, and review
shows it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from trailcheck.audit import plan_calls, replay_oracle
from trailcheck.audit.oracle import witness_arguments
from trailcheck.cases import Case, ToolFault
from trailcheck.components import schema_problems
from trailcheck.environment import EnvironmentFactory
from trailcheck.loop import with_proposals
from trailcheck.loop.synthetic import ReferencePathStatus
from trailcheck.models import ToolDeclaration
from trailcheck.run.faults import tool_name
from trailcheck.run.results import TrialResult

__all__ = ["ReferencePath", "check_reference_path", "schema_problems_of"]


@dataclass(frozen=True, slots=True)
class ReferencePath:
    """How a draft's reference path went: ``passed``, ``failed`` (with the reasons) or
    ``schema_only`` (no environment to replay in)."""

    status: ReferencePathStatus
    reasons: tuple[str, ...] = ()


def _expected_tools(case: Case) -> list[str]:
    names = list(case.expected_tools or [])
    names += [expected.tool for expected in case.expected_arguments]
    names += [fault.tool for fault in case.faults]
    return list(dict.fromkeys(names))


def schema_problems_of(case: Case, declarations: Sequence[ToolDeclaration]) -> list[str]:
    """What is wrong with ``case``'s expected calls against the declared tools (step 1 of the
    module; ``case`` with its proposals adopted)."""
    declared = {declaration.name: declaration for declaration in declarations}
    known = ", ".join(sorted(declared)) or "none"
    problems = [
        f"unknown tool {name!r} (declared: {known})"
        for name in _expected_tools(case)
        if name not in declared
    ]
    for index, expected in enumerate(case.expected_arguments):
        declaration = declared.get(expected.tool)
        if declaration is None:
            continue
        arguments = witness_arguments(expected.arguments)
        for problem in schema_problems(arguments, declaration.parameters):
            problems.append(f"expected_arguments[{index}] ({expected.tool}): {problem}")
    return problems


def _unexpected_errors(trial: TrialResult, faults: Sequence[ToolFault]) -> list[str]:
    """The calls of the oracle's trial that raised, but for errors the case's faults raise."""
    numbers: Counter[str] = Counter()
    errors: list[str] = []
    for call in trial.calls:
        numbers[call.name] += 1
        if call.succeeded:
            continue
        set_up = any(
            fault.tool == call.name
            and fault.error is not None
            and fault.applies_to(numbers[call.name])
            for fault in faults
        )
        if not set_up:
            errors.append(f"{call.name} raised: {call.error or 'an error'}")
    return errors


def _replay_problems(case: Case, environment_factory: EnvironmentFactory, seed: int) -> list[str]:
    tools = list(environment_factory().tools)
    names = sorted(tool_name(tool) for tool in tools)
    missing = [name for name in _expected_tools(case) if name not in names]
    if missing:
        return [
            f"the environment has no tool {name!r} (its tools: {', '.join(names)})"
            for name in missing
        ]
    unformed = [
        f"{call.tool} cannot be called: no value for {', '.join(call.missing)}"
        for call in plan_calls(case, tools)
        if call.missing
    ]
    replay = replay_oracle(case, environment_factory, seed=seed)
    return [*unformed, *_unexpected_errors(replay.trial, case.faults), *replay.failures]


def check_reference_path(
    draft: Case,
    declarations: Sequence[ToolDeclaration],
    environment_factory: EnvironmentFactory | None = None,
    *,
    seed: int = 0,
) -> ReferencePath:
    """``draft``'s reference path (see the module)."""
    case = with_proposals(draft)
    problems = schema_problems_of(case, declarations)
    if problems:
        return ReferencePath("failed", tuple(problems))
    if environment_factory is None:
        return ReferencePath("schema_only")
    problems = _replay_problems(case, environment_factory, seed)
    return ReferencePath("failed", tuple(problems)) if problems else ReferencePath("passed")
