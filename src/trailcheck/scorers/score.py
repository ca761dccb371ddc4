"""What a scorer returns, what a scorer is, and how a failing scorer is recorded.

A scorer is a frozen dataclass whose fields are its settings, with ``name`` and ``version`` as
class variables, and ``score(trace, case)``. It returns a :class:`Score`, or ``None`` when the
case does not ask for what it checks (``expected_tools`` absent, no ``expected_arguments``): a
check that was not asked for produces no Score at all, so nothing can count it as a pass. A
scorer that raises is recorded by :func:`run_scorer` as a :class:`ScorerFailure`. A scorer that
grades a trace on its own, with no expectation from the case, says so with the class variable
``reference_free = True``: only those run as online evaluators (:mod:`trailcheck.online`).

A Score is a record (:mod:`trailcheck.trace.record`): one definition, made as cheaply in bulk
grading as in a single test, and held by the pydantic reports as it is.
"""

from __future__ import annotations

import traceback
from functools import lru_cache
from typing import Annotated, ClassVar, Protocol, runtime_checkable

import msgspec

from trailcheck.cases import Case, ScorerSpec
from trailcheck.trace import Trace
from trailcheck.trace.kinds import NonEmpty
from trailcheck.trace.record import Record

Fraction = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]


class Score(Record, frozen=True):
    """One scorer's grade of one trace: ``passed`` iff ``value >= threshold`` (unless the scorer
    documents a stricter rule), and a ``reason`` that shows the arithmetic. ``evidence``: the
    ids of the spans the score was computed from."""

    scorer: NonEmpty
    value: Fraction
    passed: bool
    threshold: Fraction
    reason: str
    evidence: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Built in code, a struct's constraints are not checked: a scorer's arithmetic is.
        if not self.scorer:
            raise ValueError("a score names its scorer")
        for name, number in (("value", self.value), ("threshold", self.threshold)):
            if not 0.0 <= number <= 1.0:
                raise ValueError(f"{self.scorer}: {name} {number} is not within 0 and 1")


class ScorerFailure(Record, frozen=True):
    """A scorer that raised: the trial is unscorable, and this says why."""

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
