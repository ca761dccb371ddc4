"""Tool faults a case declares: what the environment does wrong, on purpose, in that trial.

Real tools return awkward but correct output (an empty search, a partial match, a stale value)
and fail transiently (a rate limit). A case declares such a fault so that a trial exercises the
agent's handling of it::

    faults:
      - {tool: lookup_order, first: 2, error: "RateLimited: retry in 1 s"}
      - {tool: search_orders, result: [], awkward: empty_list}

The runner applies them to the environment's tools: a faulty call raises ``ToolError(error)``
(the agent reads it as the tool's result) or returns ``result`` in place of the real one,
without running the tool.

``awkward`` says that a ``result`` is correct but awkward, and of which kind
(:mod:`trailcheck.cases.awkward`): the tool did right, so a run that goes wrong after it went
wrong in its reading, and attribution says so (``misread_tool_result``). What the agent should
do next is said by the case's expectations, as for any case: the calls (``expected_tools``,
``expected_arguments``), what must not happen (``policies``, ``expected_state``) and what it
tells the user (``reference_response``, the response scorer). A result fault without
``awkward`` makes no such claim: it may model a tool that returned wrong data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from trailcheck.cases.awkward import AwkwardKind, awkward_shape_problem


class ToolFault(BaseModel):
    """One injected fault: for the ``first`` N calls of ``tool`` (every call when absent), an
    ``error`` or a replacement ``result``, exactly one of the two."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    tool: Annotated[str, Field(min_length=1)]
    first: Annotated[int, Field(ge=1)] | None = None
    error: Annotated[str, Field(min_length=1)] | None = None
    result: JsonValue = None
    awkward: AwkwardKind | None = Field(
        None,
        description="The result is correct but awkward, of this kind: an agent that goes wrong"
        " after it misread it.",
    )

    @model_validator(mode="after")
    def _one_effect(self) -> Self:
        has_result = "result" in self.model_fields_set
        if (self.error is None) == (not has_result):
            raise ValueError("a fault has exactly one of error and result")
        if self.awkward is not None:
            if self.error is not None:
                raise ValueError("awkward names a kind of result: it needs result, not error")
            problem = awkward_shape_problem(self.awkward, self.result)
            if problem is not None:
                raise ValueError(problem)
        return self

    @property
    def replaces_result(self) -> bool:
        """Whether the fault returns ``result`` (which may be ``null``) instead of an error."""
        return self.error is None

    def applies_to(self, call_number: int) -> bool:
        """Whether the ``call_number``-th call (1-based) of the tool is faulty."""
        return self.first is None or call_number <= self.first


def awkward_kinds(faults: Sequence[ToolFault]) -> list[AwkwardKind]:
    """The kinds of awkward result ``faults`` return, each once, in the order of the faults."""
    return list(dict.fromkeys(fault.awkward for fault in faults if fault.awkward is not None))
