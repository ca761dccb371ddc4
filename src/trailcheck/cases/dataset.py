"""A dataset: named, versioned cases, with the tools its agent has and its default scorers."""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trailcheck.cases.case import Case, Text
from trailcheck.cases.document import format_path
from trailcheck.cases.gate import GateSpec
from trailcheck.cases.resources import TrialResources
from trailcheck.cases.rules import duplicate_ids, undeclared_tools
from trailcheck.cases.scorer_specs import ScorerSpec
from trailcheck.cases.version import dataset_version

# No "@" (it separates the name from the hash in a version) and no whitespace (versions are
# pasted into commands and reports).
DatasetName = Annotated[str, Field(min_length=1, pattern=r"^[^@\s]+$")]


class Dataset(BaseModel):
    """Cases under one name. ``tools``, when given, is every tool the agent may call, and each
    tool a case names must be one of them; absent, tool names are not checked. ``scorers`` run
    for every case that does not list its own. ``gate`` holds the release thresholds;
    ``resources``, what each trial asks of a cluster's executor (a case may ask for its own)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    name: DatasetName
    description: str | None = None
    tools: list[Text] | None = None
    scorers: list[ScorerSpec] = Field(default_factory=list)
    gate: GateSpec | None = None
    resources: TrialResources | None = None
    cases: list[Case] = Field(default_factory=list)

    @field_validator("tools")
    @classmethod
    def _unique_tools(cls, tools: list[str] | None) -> list[str] | None:
        repeated = sorted(name for name, n in Counter(tools or []).items() if n > 1)
        if repeated:
            raise ValueError(f"tools declared more than once: {', '.join(repeated)}")
        return tools

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        problems = [
            f"cases[{index}]: duplicate case id {self.cases[index].id!r} (also cases[{first}])"
            for index, first in duplicate_ids([case.id for case in self.cases])
        ]
        if self.tools is not None:
            problems += [
                f"{format_path(where)}: {message}"
                for where, message in undeclared_tools(map(_tool_data, self.cases), self.tools)
            ]
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def graded_cases(self) -> list[Case]:
        """The cases as :func:`~trailcheck.scorers.grade` takes them: a case that lists no
        scorers of its own gets the dataset's (when the dataset lists any)."""
        if not self.scorers:
            return list(self.cases)
        return [
            case if case.scorers is not None else case.model_copy(update={"scorers": self.scorers})
            for case in self.cases
        ]

    @property
    def version(self) -> str:
        """``name@<12 hex>``: the hash of the canonical content (see :mod:`.version`)."""
        return dataset_version(self)


def _tool_data(case: Case) -> dict[str, Any]:
    # Only the fields that name tools: the rule reads the same data the loader has.
    data: dict[str, Any] = case.model_dump(
        mode="json",
        by_alias=True,
        include={"expected_tools", "expected_arguments", "policies", "faults"},
    )
    return data
