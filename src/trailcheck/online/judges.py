"""The judges an online evaluator can run, as the online file names them.

``judge:`` takes a spec ``{name: <judge>, ...settings}``, or just the judge's name when it needs
no setting (``judge: task_completion``):

- ``rubric``: :class:`~trailcheck.judge.RubricJudge` on one ``criterion`` (required), with its
  ``template_version``.
- ``groundedness``: :class:`~trailcheck.judge.GroundednessJudge`: is each sentence of the answer
  supported by what the tools returned?
- ``task_completion``: reference-free task completion: reading the conversation, was the user's
  request met, and why (or why not)? Only the spec is defined here; its prompt comes with the
  worker.

``model`` names the judge's model; left out, the worker's default model judges. Which model
actually judged is recorded with each execution.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Discriminator,
    Field,
    GetJsonSchemaHandler,
    Tag,
    field_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from trailcheck.judge.rubric import RUBRIC_TEMPLATES
from trailcheck.specs.naming import unknown_name_message
from trailcheck.specs.tagged import TaggedSpec

__all__ = [
    "JUDGE_NAMES",
    "GroundednessJudgeSpec",
    "JudgeSpec",
    "RubricJudgeSpec",
    "TaskCompletionJudgeSpec",
]

ModelName = Annotated[str, Field(min_length=1)]


class _JudgeSpecBase(TaggedSpec):
    tag_field = "name"
    model: ModelName | None = None


class RubricJudgeSpec(_JudgeSpecBase):
    """Does the run meet ``criterion``? One explicit criterion per judge."""

    name: Literal["rubric"] = "rubric"
    criterion: Annotated[str, Field(min_length=1)]
    template_version: str = "1"

    @field_validator("template_version")
    @classmethod
    def _known_template(cls, version: str) -> str:
        if version not in RUBRIC_TEMPLATES:
            known = ", ".join(sorted(RUBRIC_TEMPLATES))
            raise ValueError(f"no rubric template {version!r} (known: {known})")
        return version


class GroundednessJudgeSpec(_JudgeSpecBase):
    """Is each sentence of the answer supported by the tools' results?"""

    name: Literal["groundedness"] = "groundedness"


class TaskCompletionJudgeSpec(_JudgeSpecBase):
    """Was the user's request met? Read from the conversation alone, with no reference."""

    name: Literal["task_completion"] = "task_completion"


_SPECS = (RubricJudgeSpec, GroundednessJudgeSpec, TaskCompletionJudgeSpec)
JUDGE_NAMES: tuple[str, ...] = tuple(str(spec.model_fields["name"].default) for spec in _SPECS)


def _named_judge(value: Any) -> Any:
    """A bare name is the spec of that judge with its defaults; a spec must name a judge."""
    if isinstance(value, _JudgeSpecBase):
        return value
    if isinstance(value, str):
        if value == "rubric":
            raise ValueError("a rubric judge needs its criterion: {name: rubric, criterion: ...}")
        value = {"name": value}
    if not isinstance(value, dict) or "name" not in value:
        raise ValueError(f"a judge is a name or a mapping with a name: one of {_names()}")
    if value["name"] not in JUDGE_NAMES:
        raise ValueError(unknown_name_message("judge", value["name"], JUDGE_NAMES))
    return value


def _names() -> str:
    return ", ".join(JUDGE_NAMES)


def _judge_tag(value: Any) -> str | None:
    name = value.get("name") if isinstance(value, dict) else getattr(value, "name", None)
    return name if isinstance(name, str) else None


class _WithNameShorthand:
    """JSON Schema of a judge: a spec, or the name of a judge that needs no setting."""

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        shorthand = {
            "description": "Shorthand for {name: <this>} with every setting at its default.",
            "enum": list(JUDGE_NAMES),
        }
        return {"anyOf": [handler(core_schema), shorthand]}


JudgeSpec = Annotated[
    Annotated[RubricJudgeSpec, Tag("rubric")]
    | Annotated[GroundednessJudgeSpec, Tag("groundedness")]
    | Annotated[TaskCompletionJudgeSpec, Tag("task_completion")],
    Discriminator(_judge_tag),
    BeforeValidator(_named_judge),
    _WithNameShorthand(),
]
"""Any online judge, chosen by its ``name``."""
