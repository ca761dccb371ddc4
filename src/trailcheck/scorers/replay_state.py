"""The replay state scorer: the expected state is what the case's expected calls produce.

Writing ``expected_state`` by hand for every case is where goldens go wrong. This scorer derives
it the tau-bench way: a fresh environment from ``environment`` (a ``module:attribute`` reference
to an environment factory, see :mod:`trailcheck.environment`) is reset, the case's
``expected_arguments`` are called on it in order, and its snapshot is the expected state. The
trace's ``state_after`` must then equal that snapshot *completely*: partial matching (see
:mod:`trailcheck.scorers.state`) with nothing extra allowed, so a refund the golden does not make
is a difference.

What replay needs, and refuses without:

- every argument of every expected invocation is an exact value (a plain value in the file): a
  comparator such as ``date`` or ``regex`` says what is acceptable, not what to call with, so
  the scorer raises and the trial is unscorable, naming the field;
- a call the state depends on is listed with its arguments (``verify_identity`` before
  ``issue_refund`` in an environment that enforces it);
- the environment is deterministic after ``reset()`` (ids from counters, a fixed clock).

A replayed call that raises :class:`~trailcheck.environment.ToolError` is kept in the reason and
the replay goes on, as an agent's failed call would; any other exception propagates (unscorable).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ClassVar

from trailcheck.cases import Case, ExactComparator, ExpectedInvocation, ScorerSpec
from trailcheck.environment import Environment, ToolError
from trailcheck.scorers.registry import scorer_to_spec
from trailcheck.scorers.score import Score
from trailcheck.scorers.state import compare_state, comparison_score
from trailcheck.specs.references import resolve_reference
from trailcheck.trace import Trace


@dataclass(frozen=True)
class ReplayStateScorer:
    """``state_after`` against the snapshot of a replay of the expected calls; passed iff
    value >= ``threshold``. No ``expected_arguments``: no Score."""

    name: ClassVar[str] = "replay_state"
    version: ClassVar[str] = "1"

    environment: str
    threshold: float = 1.0
    int_equals_float: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold is between 0 and 1, got {self.threshold}")

    def to_spec(self) -> ScorerSpec:
        return scorer_to_spec(self)

    def score(self, trace: Trace, case: Case) -> Score | None:
        if not case.expected_arguments:
            return None
        calls = [
            _replayable(invocation, index)
            for index, invocation in enumerate(case.expected_arguments)
        ]
        factory = resolve_reference(self.environment, what="environment factory")
        expected, tool_errors = replay(factory, calls)
        notes = [f"replayed {len(calls)} expected calls on {self.environment}", *tool_errors]
        if trace.state_after is None:
            return Score(
                scorer=self.name,
                value=0.0,
                passed=False,
                threshold=self.threshold,
                reason="; ".join(["replay_state 0/1=0.000", *notes, "no state_after to check"]),
            )
        result = compare_state(
            expected, trace.state_after, int_equals_float=self.int_equals_float, complete=True
        )
        return comparison_score(
            self.name,
            result,
            self.threshold,
            notes=notes,
            when_equal="state_after equals the replayed state",
        )


ReplayCall = tuple[str, dict[str, Any]]


def _replayable(invocation: ExpectedInvocation, index: int) -> ReplayCall:
    arguments: dict[str, Any] = {}
    for field, comparator in invocation.arguments.items():
        if not isinstance(comparator, ExactComparator):
            raise ValueError(
                f"expected_arguments[{index}].arguments.{field}: the {comparator.compare!r}"
                " comparator says what is acceptable, not what to call with; replay needs an"
                " exact value"
            )
        arguments[field] = comparator.value
    return invocation.tool, arguments


def replay(
    factory: Callable[[], Environment], calls: list[ReplayCall]
) -> tuple[dict[str, Any], list[str]]:
    """The snapshot after ``calls`` on a fresh, reset environment, and the ToolErrors raised."""
    environment = factory()
    environment.reset()
    tools = {getattr(tool, "__name__", ""): tool for tool in environment.tools}
    tool_errors: list[str] = []
    for position, (name, arguments) in enumerate(calls):
        tool = tools.get(name)
        if tool is None:
            raise ValueError(
                f"expected call {name!r} is not a tool of the environment; it has"
                f" {', '.join(sorted(tools)) or 'none'}"
            )
        try:
            _call(tool, arguments)
        except ToolError as error:
            tool_errors.append(f"replayed call {position} {name} raised ToolError: {error}")
    return environment.snapshot(), tool_errors


def _call(tool: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    result = tool(**arguments)
    if not inspect.isawaitable(result):
        return result
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(result))
    # Inside a running loop (a scorer called by the runner) the coroutine gets a loop of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _awaited(result)).result()


async def _awaited(awaitable: Any) -> Any:
    return await awaitable
