"""What a drafting model answers: scenarios for one policy clause, in a validated schema.

Each scenario is of one kind (:data:`SCENARIO_KINDS`), gives the user's message, the calls a
good agent makes in order (each with the arguments it makes them with), and optionally the
state they leave, the policies that must hold, and the tool faults that set the scene: a rate
limit is a fault with an ``error`` for the ``first`` calls, a stale or contradicting result a
fault with a ``result`` (``awkward: stale`` where the result is correct but stale).
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from trailcheck.cases import ToolFault
from trailcheck.policy import PolicySpec

__all__ = [
    "SCENARIO_DESCRIPTIONS",
    "SCENARIO_KINDS",
    "DraftAnswer",
    "DraftedCall",
    "DraftedScenario",
    "ScenarioKind",
]

ScenarioKind = Literal[
    "happy_path",
    "missing_identity_check",
    "wrong_permissions",
    "stale_result",
    "ambiguous_date",
    "rate_limit_retry",
    "contradicting_tool_outputs",
]
SCENARIO_KINDS: Final[tuple[ScenarioKind, ...]] = get_args(ScenarioKind)

SCENARIO_DESCRIPTIONS: Final[dict[ScenarioKind, str]] = {
    "happy_path": "the user asks for what the clause allows and gives what it needs",
    "missing_identity_check": "the user asks for a change before proving who they are: the"
    " agent verifies first, or does not act",
    "wrong_permissions": "the user asks for something the clause does not allow them (another"
    " customer's order, an action beyond their rights): the agent refuses and changes nothing",
    "stale_result": "a tool returns a value as it was, not as it is (a fault with a dated"
    " result, awkward: stale): the agent checks before acting on it",
    "ambiguous_date": "the user names a date more than one way can read (03/04, next Friday):"
    " the agent asks, or reads it as the clause says",
    "rate_limit_retry": "a tool is rate limited on its first call (a fault with an error and"
    " first: 1): the agent waits and calls it again, once",
    "contradicting_tool_outputs": "two tools disagree (a fault replaces one result): the agent"
    " does not act on the contradiction",
}
"""Each kind as the model is told it."""

ToolName = Annotated[str, Field(min_length=1)]


class DraftedCall(BaseModel):
    """One call a good agent makes: the tool, and the arguments it makes it with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: ToolName
    arguments: dict[str, JsonValue] = Field(default_factory=dict)


class DraftedScenario(BaseModel):
    """One scenario drafted for a clause (see the module)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scenario: ScenarioKind
    input: Annotated[str, Field(min_length=1, description="The user's message to the agent.")]
    expected_calls: list[DraftedCall] = Field(
        description="The calls a good agent makes, in order; empty when it calls no tool."
    )
    expected_state: dict[str, JsonValue] | None = Field(
        None, description="What the environment's state holds afterwards, where it matters."
    )
    policies: list[PolicySpec] = Field(default_factory=list)
    faults: list[ToolFault] = Field(default_factory=list)
    rationale: str = Field("", description="Why a good agent does this, in one sentence.")


class DraftAnswer(BaseModel):
    """A drafting model's whole answer for one clause."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    drafts: list[DraftedScenario]
