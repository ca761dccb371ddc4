"""A Finding: one named failure mode observed in one trace, and who or what observed it.

Findings come from three sources, kept side by side and never merged: a detection rule
(``source="rule:<rule name>"``), a person assigning a failure mode by hand (``"human:<name>"``,
axial coding), and nothing else. Free-text notes (open coding) are not findings: they have no
label yet. A label is specific (``refund_without_identity_check``), never vague
(``tool_problem``); it is what a promoted case lists in ``failure_modes``.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SEVERITIES", "Finding", "Severity"]

Severity = Literal["low", "medium", "high", "critical"]
SEVERITIES: Final[tuple[Severity, ...]] = get_args(Severity)  # least to most severe
# snake_case, so a label reads the same in YAML rules, the store and a case's failure_modes.
Label = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=120)]


class Finding(BaseModel):
    """``label`` observed in trace ``trace_id``: ``reason`` says why in one line, ``evidence``
    names the span ids that show it (empty when the evidence is the trace as a whole, e.g. a
    missing final answer)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trace_id: str = Field(min_length=1)
    label: Label
    severity: Severity
    reason: str = Field(min_length=1)
    evidence: tuple[str, ...] = ()
    source: str = Field(min_length=1, pattern=r"^(rule|human|online):.+$")
