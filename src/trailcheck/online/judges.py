"""The judges an online evaluator can run, as the online file names them.

``judge:`` takes a spec ``{name: <judge>, ...settings}``, or just the judge's name when it needs
no setting (``judge: task_completion``):

- ``rubric``: :class:`~trailcheck.judge.RubricJudge` on one ``criterion`` (required), with its
  ``template_version``.
- ``groundedness``: :class:`~trailcheck.judge.GroundednessJudge`: is each sentence of the answer
  supported by what the tools returned?
- ``task_completion``: :class:`~trailcheck.judge.TaskCompletionJudge`: reading the
  conversation alone, was the user's request met, and why (or why not)? With its
  ``template_version``.

``model`` names the judge's model; left out, the worker's default model judges. Which model
actually judged is recorded with each execution.

A spec becomes a judge with :func:`build_judge`, and a trace a judging with
:func:`judge_trace`: every online judge answers a :class:`~trailcheck.judge.Judging` about the
trace (its id is the item's), with the criterion :func:`judge_criterion` names. The
groundedness judge's figures (supported sentences over all) stay in the judging's reason; its
verdict passes only when every sentence is supported.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

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

from trailcheck.judge.groundedness import GroundednessJudge
from trailcheck.judge.judge import Judge
from trailcheck.judge.rubric import RUBRIC_TEMPLATES, RubricJudge
from trailcheck.judge.task_completion import (
    TASK_COMPLETION_CRITERION,
    TASK_COMPLETION_TEMPLATES,
    TaskCompletionJudge,
)
from trailcheck.judge.verdict import JudgeItem, Judging
from trailcheck.models.chat import ChatModel
from trailcheck.specs.naming import unknown_name_message
from trailcheck.specs.tagged import TaggedSpec
from trailcheck.trace import Trace

__all__ = [
    "JUDGE_NAMES",
    "GroundednessJudgeSpec",
    "JudgeSpec",
    "RubricJudgeSpec",
    "TaskCompletionJudgeSpec",
    "build_judge",
    "judge_criterion",
    "judge_item",
    "judge_trace",
]

ModelName = Annotated[str, Field(min_length=1)]
# The criterion of a groundedness judging (the rubric's is its author's; task completion's is
# the judge's own fixed question).
GROUNDEDNESS_CRITERION: Final = "Each sentence of the final answer is supported by the evidence."


class _JudgeSpecBase(TaggedSpec):
    tag_field = "name"
    model: ModelName | None = None


def _template_version(judge: str, templates: dict[str, dict[str, str]], version: str) -> str:
    if version not in templates:
        known = ", ".join(sorted(templates))
        raise ValueError(f"no {judge} template {version!r} (known: {known})")
    return version


class RubricJudgeSpec(_JudgeSpecBase):
    """Does the run meet ``criterion``? One explicit criterion per judge."""

    name: Literal["rubric"] = "rubric"
    criterion: Annotated[str, Field(min_length=1)]
    template_version: str = "1"

    @field_validator("template_version")
    @classmethod
    def _known_template(cls, version: str) -> str:
        return _template_version("rubric", RUBRIC_TEMPLATES, version)


class GroundednessJudgeSpec(_JudgeSpecBase):
    """Is each sentence of the answer supported by the tools' results?"""

    name: Literal["groundedness"] = "groundedness"


class TaskCompletionJudgeSpec(_JudgeSpecBase):
    """Was the user's request met? Read from the conversation alone, with no reference."""

    name: Literal["task_completion"] = "task_completion"
    template_version: str = "1"

    @field_validator("template_version")
    @classmethod
    def _known_template(cls, version: str) -> str:
        return _template_version("task_completion", TASK_COMPLETION_TEMPLATES, version)


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


def build_judge(spec: JudgeSpec, model: ChatModel, *, retries: int = 1) -> Judge:
    """The judge ``spec`` names, judging with ``model`` (``retries`` more attempts when an
    answer does not fit the verdict's schema)."""
    if isinstance(spec, RubricJudgeSpec):
        return RubricJudge(model, template_version=spec.template_version, retries=retries)
    if isinstance(spec, GroundednessJudgeSpec):
        return GroundednessJudge(model, retries=retries)
    return TaskCompletionJudge(model, template_version=spec.template_version, retries=retries)


def judge_criterion(spec: JudgeSpec) -> str:
    """The criterion a judging of ``spec`` records: the rubric's own, or the fixed question of
    the groundedness and task-completion judges."""
    if isinstance(spec, RubricJudgeSpec):
        return spec.criterion
    if isinstance(spec, GroundednessJudgeSpec):
        return GROUNDEDNESS_CRITERION
    return TASK_COMPLETION_CRITERION


def judge_item(spec: JudgeSpec, trace: Trace) -> JudgeItem:
    """What an online judge of ``spec`` looks at: the trace alone, under its own id."""
    return JudgeItem(item_id=trace.trace_id, trace=trace, criterion=judge_criterion(spec))


async def judge_trace(spec: JudgeSpec, trace: Trace, judge: Judge) -> Judging:
    """``judge`` (built from ``spec`` by :func:`build_judge`, once per evaluator) on ``trace``.

    Unscorable, never raised, when the model could not be reached or its answer did not fit
    (the reason says which); a trace with nothing to judge (no input, no answer) is unscorable
    with that reason."""
    return await judge.judge(judge_item(spec, trace))
