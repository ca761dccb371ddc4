"""What an audit reports: findings about the eval itself, each with a case, a check and a severity.

A finding with ``case_id=None`` is about the whole suite (a stale report, a check that could not
run). ``high`` findings make ``trailcheck audit`` exit 1: a case a trivial agent passes, a golden
its own expected calls fail.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Severity = Literal["high", "medium", "low"]
SEVERITIES: tuple[Severity, ...] = ("high", "medium", "low")


class Finding(BaseModel):
    """One defect of the eval: which case (None: the suite), which check, how bad, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str | None
    check: str = Field(min_length=1)
    severity: Severity
    message: str = Field(min_length=1)
    """One line: what is wrong, with the figures that show it."""

    @field_validator("message")
    @classmethod
    def _one_line(cls, message: str) -> str:
        # Scorer reasons are quoted into messages; a line break would split a finding's row.
        return " ".join(message.split())


class AuditResult(BaseModel):
    """Every finding of one audit, in the order the checks ran."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    findings: list[Finding] = Field(default_factory=list)

    @property
    def has_high(self) -> bool:
        return any(finding.severity == "high" for finding in self.findings)

    def of(self, check: str) -> list[Finding]:
        """The findings of ``check``."""
        return [finding for finding in self.findings if finding.check == check]
