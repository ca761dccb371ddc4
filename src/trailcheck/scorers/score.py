"""What a scorer returns, what a scorer is, and how a failing scorer is recorded.

A scorer is a frozen dataclass whose fields are its settings, with ``name`` and ``version`` as
class variables, and ``score(trace, case)``. It returns a :class:`Score`, or ``None`` when the
case does not ask for what it checks (``expected_tools`` absent, no ``expected_arguments``): a
check that was not asked for produces no Score at all, so nothing can count it as a pass. A
scorer that raises is recorded by :func:`run_scorer` as a :class:`ScorerFailure`.

A built-in scorer also has ``lean_score(trace, case)``, which reads any
:class:`~trailcheck.trace.trace_view.TraceView` and returns a :class:`LeanScore`: the same fields,
not validated again, so grading in bulk builds no pydantic model per trace
(:func:`~trailcheck.scorers.grade.grade_lean`); ``score`` is that, made a Score.
"""

from __future__ import annotations

import traceback
from functools import lru_cache
from typing import ClassVar, Protocol, runtime_checkable

import msgspec
from pydantic import BaseModel, ConfigDict, Field

from trailcheck.cases import Case, ScorerSpec
from trailcheck.trace import Trace
from trailcheck.trace.trace_view import TraceView


class Score(BaseModel):
    """One scorer's grade of one trace: ``passed`` iff ``value >= threshold`` (unless the scorer
    documents a stricter rule), and a ``reason`` that shows the arithmetic."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scorer: str = Field(min_length=1)
    value: float = Field(ge=0.0, le=1.0)
    passed: bool
    threshold: float = Field(ge=0.0, le=1.0)
    reason: str
    evidence: tuple[str, ...] = ()
    """Span ids of the spans the score was computed from."""


class LeanScore(msgspec.Struct, frozen=True, gc=False):
    """A :class:`Score` as bulk grading keeps it: the same fields, made by a built-in scorer
    (which keeps the Score's constraints) and not validated again until :meth:`to_score`."""

    scorer: str
    value: float
    passed: bool
    threshold: float
    reason: str
    evidence: tuple[str, ...] = ()

    def to_score(self) -> Score:
        return Score(
            scorer=self.scorer,
            value=self.value,
            passed=self.passed,
            threshold=self.threshold,
            reason=self.reason,
            evidence=self.evidence,
        )

    @classmethod
    def from_score(cls, score: Score) -> LeanScore:
        return cls(
            score.scorer, score.value, score.passed, score.threshold, score.reason, score.evidence
        )


def score_of(lean: LeanScore | None) -> Score | None:
    """What ``score`` returns for what ``lean_score`` returned."""
    return None if lean is None else lean.to_score()


class ScorerFailure(BaseModel):
    """A scorer that raised: the trial is unscorable, and this says why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scorer: str
    error_type: str
    message: str
    traceback: str

    @classmethod
    def from_exception(cls, scorer: str, error: BaseException) -> ScorerFailure:
        return cls(
            scorer=scorer,
            error_type=type(error).__qualname__,
            message=str(error),
            traceback="".join(traceback.format_exception(error)),
        )


@runtime_checkable
class Scorer(Protocol):
    """The seam for built-in and third-party scorers alike."""

    name: ClassVar[str]
    version: ClassVar[str]

    def score(self, trace: Trace, case: Case) -> Score | None:
        """The grade, or ``None`` when the case does not ask for this check."""
        ...

    def to_spec(self) -> ScorerSpec:
        """The name and the non-default settings, as a dataset file names this scorer."""
        ...


@runtime_checkable
class LeanScorer(Scorer, Protocol):
    """A scorer that reads any holder of a trace and grades without building a Score."""

    def lean_score(self, trace: TraceView, case: Case) -> LeanScore | None:
        """The grade, or ``None`` when the case does not ask for this check."""
        ...


def run_scorer(scorer: Scorer, trace: Trace, case: Case) -> Score | ScorerFailure | None:
    """``scorer.score(trace, case)``, with an exception recorded instead of raised."""
    try:
        return scorer.score(trace, case)
    # Failures are data: whatever a (possibly third-party) scorer raises is recorded with its
    # type and stack, and the run goes on. Interrupts (BaseException) still propagate.
    except Exception as error:  # noqa: BLE001
        return ScorerFailure.from_exception(scorer.name, error)


@lru_cache(maxsize=4096)
def ratio(numerator: int, denominator: int) -> str:
    """``2/3=0.667``: a fraction as a reader checks it by hand (``0/0`` when there is nothing)."""
    if denominator == 0:
        return f"{numerator}/0"
    return f"{numerator}/{denominator}={numerator / denominator:.3f}"
