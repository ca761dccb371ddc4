"""Asking a model for a structured answer, validating it, and retrying once when it is wrong.

The schema goes to the model as its output schema (a JSON-schema response format on OpenAI-
compatible servers), and the answer is validated against the pydantic model, never parsed as
free text. An answer that is not JSON, does not fit the schema, or fails the caller's own check
gets ``retries`` more attempts (one by default), each after a message saying what was wrong;
then the outcome is unscorable, with the last raw answer kept and the error as the reason. A
model that cannot be reached (:class:`~trailcheck.errors.InfraError`) is unscorable too, not
raised: a judge's failure is data about the judging, and the run goes on.

One leniency: an answer wrapped whole in a Markdown code fence (```json ... ```) is read as what
the fence holds, since models without enforced structured output often fence JSON.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from trailcheck.errors import InfraError, UsageError
from trailcheck.judge.verdict import Judging, Verdict, verdict_json_schema
from trailcheck.models.chat import ChatModel
from trailcheck.trace import Message

__all__ = ["Asked", "ask_structured", "ask_verdict", "strict_json_schema", "verdict_reason"]

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)
_MAX_ERRORS_SHOWN = 5


@dataclass(frozen=True, slots=True)
class Asked(Generic[T]):
    """The validated answer, or None with the reason; the last raw text and attempts made."""

    value: T | None
    raw: str | None
    reason: str
    attempts: int


async def ask_structured(
    model: ChatModel,
    messages: Sequence[Message],
    output_type: type[T],
    *,
    schema: dict[str, Any] | None = None,
    check: Callable[[T], str | None] | None = None,
    retries: int = 1,
    role: str = "judge",
) -> Asked[T]:
    """Ask ``model`` for an ``output_type``; ``check`` returns a problem the schema cannot
    express (e.g. "3 sentences judged, 4 asked"), or None. ``role`` names the model in the
    reason when it cannot be reached ("the judge model failed: ...")."""
    if retries < 0:
        raise UsageError(f"retries must be 0 or more, not {retries}")
    schema = schema if schema is not None else output_type.model_json_schema()
    conversation = list(messages)
    raw: str | None = None
    problem = ""
    for attempt in range(1, retries + 2):
        try:
            reply = await model.complete(conversation, output_schema=schema)
        except InfraError as error:
            return Asked(None, raw, f"the {role} model failed: {error}", attempt)
        raw = reply.text
        value, problem = _validated(raw, output_type)
        if value is not None and check is not None:
            problem = check(value) or ""
        if not problem and value is not None:
            return Asked(value, raw, "", attempt)
        conversation += [
            Message(role="assistant", content=raw or ""),
            Message(role="user", content=_retry_prompt(problem)),
        ]
    attempts = retries + 1
    return Asked(None, raw, f"no valid answer after {attempts} attempts: {problem}", attempts)


def strict_json_schema(output_type: type[BaseModel]) -> dict[str, Any]:
    """``output_type``'s JSON schema in the strict form OpenAI-compatible servers accept for
    structured output: every property of every object required, no others allowed."""
    schema = output_type.model_json_schema()
    for shape in [schema, *schema.get("$defs", {}).values()]:
        if shape.get("type") == "object" and "properties" in shape:
            shape["required"] = list(shape["properties"])
            shape["additionalProperties"] = False
    return schema


async def ask_verdict(
    model: ChatModel,
    messages: Sequence[Message],
    *,
    item_id: str,
    criterion: str,
    judge_version: str,
    retries: int = 1,
) -> Judging:
    """Ask for a :class:`Verdict` (see the module); the judging is unscorable when none came."""
    asked = await ask_structured(
        model, messages, Verdict, schema=verdict_json_schema(), retries=retries
    )
    if asked.value is None:
        return Judging.unscorable(
            item_id=item_id,
            criterion=criterion,
            judge_version=judge_version,
            raw=asked.raw,
            reason=asked.reason,
            attempts=asked.attempts,
        )
    return Judging(
        item_id=item_id,
        criterion=criterion,
        judge_version=judge_version,
        status="judged",
        verdict=asked.value,
        raw=asked.raw,
        reason=verdict_reason(asked.value),
        attempts=asked.attempts,
    )


def verdict_reason(verdict: Verdict) -> str:
    """One line a report shows: ``failed: <criteria>; failure mode <mode>`` or ``passed``."""
    if verdict.passed:
        return "passed" + (
            f": {'; '.join(verdict.passed_criteria)}" if verdict.passed_criteria else ""
        )
    reason = "failed"
    if verdict.failed_criteria:
        reason += f": {'; '.join(verdict.failed_criteria)}"
    if verdict.failure_mode:
        reason += f" (failure mode {verdict.failure_mode})"
    return reason


def _validated(raw: str | None, output_type: type[T]) -> tuple[T | None, str]:
    if raw is None or not raw.strip():
        return None, "the answer had no text; a JSON object was expected"
    fenced = _FENCE.match(raw)
    text = fenced.group(1) if fenced else raw
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        return None, f"the answer is not JSON ({error})"
    try:
        return output_type.model_validate(data), ""
    except ValidationError as error:
        return None, "the answer does not fit the schema: " + _errors(error)


def _errors(error: ValidationError) -> str:
    details = error.errors(include_url=False, include_input=False)
    shown = [
        f"{'.'.join(str(part) for part in detail['loc']) or '(root)'}: {detail['msg']}"
        for detail in details[:_MAX_ERRORS_SHOWN]
    ]
    more = len(details) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def _retry_prompt(problem: str) -> str:
    return (
        f"Your previous answer could not be used: {problem}. Answer again with only a JSON"
        " object that follows the required schema: every field present, no other fields."
    )
