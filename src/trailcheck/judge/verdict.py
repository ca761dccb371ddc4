"""What a judge answers, and what a judging produces: a validated verdict, or why there is none.

A judge is a measuring instrument, so its answer is a schema, never free text parsed after the
fact: the evidence it read, the criteria that passed and failed, the failure mode, and a binary
``passed`` (never a 1-to-5 scale). A judging that yields no valid verdict (the model's answer
did not fit the schema after one retry, or the model could not be reached) is ``unscorable``,
with the raw answer kept.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.cases import Case
from trailcheck.trace import Trace


class Verdict(BaseModel):
    """A judge's answer about one criterion."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence: list[str] = Field(
        description="Quotes from the data (tool calls, results, the answer) the verdict rests on."
    )
    passed_criteria: list[str] = Field(description="The criteria the data meets.")
    failed_criteria: list[str] = Field(description="The criteria the data does not meet.")
    failure_mode: str | None = Field(
        description="A short name for how it failed (e.g. refund_without_verification), or null."
    )
    passed: bool = Field(description="True only if every criterion is met.")


def verdict_json_schema() -> dict[str, Any]:
    """The JSON schema a judge's structured output must follow (every property required, no
    others: the strict form OpenAI-compatible servers accept)."""
    schema = Verdict.model_json_schema()
    schema["required"] = list(schema["properties"])
    schema["additionalProperties"] = False
    return schema


class JudgeItem(BaseModel):
    """What one judging looks at: a trace, the criterion, and the case it was run for."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    """The trace id (or case id) labels and recorded verdicts refer to."""
    trace: Trace
    criterion: str
    case: Case | None = None


JudgingStatus = Literal["judged", "unscorable"]


class Judging(BaseModel):
    """The outcome of judging one item: the verdict, or why there is none, and by which judge."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    criterion: str
    judge_version: str
    status: JudgingStatus
    verdict: Verdict | None = None
    raw: str | None = None
    """The model's last answer as text, kept when it could not be validated."""
    reason: str = ""
    attempts: int = 1

    @classmethod
    def unscorable(
        cls,
        *,
        item_id: str,
        criterion: str,
        judge_version: str,
        reason: str,
        raw: str | None = None,
        attempts: int = 1,
    ) -> Judging:
        """A judging without a verdict, saying why (and keeping the raw answer, if any)."""
        return cls(
            item_id=item_id,
            criterion=criterion,
            judge_version=judge_version,
            status="unscorable",
            raw=raw,
            reason=reason,
            attempts=attempts,
        )

    @property
    def passed(self) -> bool | None:
        """The verdict's ``passed``, or None when unscorable."""
        return None if self.verdict is None else self.verdict.passed
