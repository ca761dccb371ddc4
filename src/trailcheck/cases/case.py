"""A case (a golden): one input, and what a good run on it does, says and leaves behind.

Every expectation is optional, and absent means *not checked*, never a vacuous pass. Where "no"
and "not checked" differ, the model keeps them apart: ``expected_tools: []`` means no tool may be
called, while an absent ``expected_tools`` (``None``) leaves the trajectory unchecked.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    Tag,
    ValidationInfo,
    field_validator,
)

from trailcheck.cases.comparators import Comparator
from trailcheck.cases.faults import ToolFault
from trailcheck.cases.resources import TrialResources
from trailcheck.cases.scorer_specs import ScorerSpec
from trailcheck.cases.simulated_user import SimulatedUser
from trailcheck.policy import PolicySpec
from trailcheck.trace import Message

Split = Literal["regression", "holdout", "calibration", "monitoring"]
ToolMatch = Literal["exact", "in_order", "any_order"]
ReviewStatus = Literal["candidate", "approved", "rejected"]
Text = Annotated[str, Field(min_length=1)]


def _input_kind(value: Any) -> str | None:
    # One branch is tried, so an error names the input's real problem, not every alternative's.
    if isinstance(value, str):
        return "text"
    return "messages" if isinstance(value, list) else None


def _retrieval_text(key: tuple[str | None, int | None]) -> str:
    query, step = key
    if query is not None:
        return f"query {query!r}"
    return "every other retrieval" if step is None else f"step {step}"


CaseInput = Annotated[
    Annotated[str, Tag("text")] | Annotated[list[Message], Tag("messages"), Field(min_length=1)],
    Discriminator(
        _input_kind,
        custom_error_type="input_type",
        custom_error_message="expected text or a list of messages",
    ),
]
"""What the agent is given: a user message as text, or a conversation (several user turns)."""


class ExpectedInvocation(BaseModel):
    """One expected call of ``tool``: a comparator per argument field that must match.

    A tool may be expected several times; the arguments scorer pairs expectations with calls by
    an optimal assignment. At least one field is named: that the call happens at all is the
    trajectory's to check, and an expectation with nothing to compare would pass vacuously.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    tool: Text
    arguments: dict[str, Comparator] = Field(min_length=1)


class RelevantChunks(BaseModel):
    """The chunks a retrieval should return, by id, for one retrieval of a run: the one whose
    query is ``query``, else the ``step``-th retrieval of the run (from 1), else (neither given)
    every retrieval that no other entry names. A retrieval span's recall@k and precision@k are
    counted against them (docs/components.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    query: Text | None = None
    step: int | None = Field(None, ge=1)
    chunks: list[Text] = Field(min_length=1)

    @field_validator("step")
    @classmethod
    def _query_or_step(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and info.data.get("query") is not None:
            raise ValueError("name the retrieval by its query or by its step, not both")
        return value


class Case(BaseModel):
    """A golden case. Only ``approved`` cases run as release tests."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        strict=True,
        # Who speaks: the fixed input, the simulated user, or both (checked on input).
        json_schema_extra={"anyOf": [{"required": ["input"]}, {"required": ["user"]}]},
    )

    id: Text
    # Before input, whose check reads it; input is validated when left out, so that it runs.
    user: SimulatedUser | None = None
    input: CaseInput | None = Field(None, validate_default=True)
    split: Split = "regression"
    failure_modes: list[Text] = Field(default_factory=list)
    source_trace_ids: list[Text] = Field(default_factory=list)
    expected_tools: list[Text] | None = None
    tool_match: ToolMatch = "in_order"
    tool_threshold: float = Field(1.0, ge=0.0, le=1.0)
    expected_arguments: list[ExpectedInvocation] = Field(default_factory=list)
    expected_state: dict[str, JsonValue] | None = None
    reference_response: str | None = None
    relevant_chunks: list[RelevantChunks] = Field(default_factory=list)
    rubrics: list[Text] = Field(default_factory=list)
    policies: list[PolicySpec] = Field(default_factory=list)
    scorers: list[ScorerSpec] | None = None
    faults: list[ToolFault] = Field(default_factory=list)
    resources: TrialResources | None = None
    # Before review_status, whose check reads it; validated when left out, so that the check runs.
    reviewed_by: Text | None = None
    review_status: ReviewStatus = Field("candidate", validate_default=True)
    notes: str | None = None
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    def input_text(self) -> str:
        """What the agent hears, as one text for people: the fixed turns (``role: text`` a line
        when they are messages), then the simulated user's brief, marked as such."""
        lines: list[str] = []
        if isinstance(self.input, str):
            lines.append(self.input)
        elif self.input is not None:
            lines += [f"{message.role}: {message.text}" for message in self.input]
        if self.user is not None:
            lines.append(f"(simulated user) {self.user.instruction}")
        return "\n".join(lines)

    @field_validator("input")
    @classmethod
    def _has_a_user_turn(
        cls, value: str | list[Message] | None, info: ValidationInfo
    ) -> str | list[Message] | None:
        if isinstance(value, list) and not any(message.role == "user" for message in value):
            raise ValueError("a conversation input has at least one user message")
        # A user brief that failed its own validation is absent from info.data, and reported.
        if value is None and "user" in info.data and info.data["user"] is None:
            raise ValueError("required field is missing (or a simulated user: user)")
        return value

    @field_validator("expected_state")
    @classmethod
    def _checks_something(cls, value: dict[str, JsonValue] | None) -> dict[str, JsonValue] | None:
        if value == {}:
            raise ValueError("an empty expected state checks nothing; leave it out instead")
        return value

    @field_validator("relevant_chunks")
    @classmethod
    def _one_entry_per_retrieval(cls, value: list[RelevantChunks]) -> list[RelevantChunks]:
        keys = [(entry.query, entry.step) for entry in value]
        repeated = sorted({_retrieval_text(key) for key in keys if keys.count(key) > 1})
        if repeated:
            raise ValueError(f"more than one entry for {', '.join(repeated)}")
        return value

    @field_validator("review_status")
    @classmethod
    def _approved_has_reviewer(cls, value: ReviewStatus, info: ValidationInfo) -> ReviewStatus:
        # A field validator, not a model validator: it runs even when other fields are wrong, so
        # a file's problems are all reported at once. A reviewed_by that failed its own
        # validation is absent from info.data, and already reported.
        if value == "approved" and "reviewed_by" in info.data and info.data["reviewed_by"] is None:
            raise ValueError("an approved case names its reviewer: reviewed_by is missing")
        return value
