"""The figures of one judge against one set of human labels, and the splits they are cut by.

Labels and judgings are paired by ``(item_id, criterion)``. A label whose judging is missing or
unscorable is not paired, and is counted and listed (``n_unscorable``, ``unscorable``), never
dropped in silence: a judge that cannot answer the hard items would otherwise look accurate.

Splits. Each label is in the ``calibration`` or the held-out ``validation`` split: the one it
names, else one chosen by hashing its item id (so every criterion of an item lands on the same
side, on every machine, and adding labels moves no old one). A label marked ``development``
(its item shaped a rubric or prompt) is evidence the judge was fitted to, so it counts in the
calibration split and among all labels, and is left out of the validation figures
(``validation_excluded_development`` says how many).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from trailcheck.errors import UsageError
from trailcheck.intervals import DEFAULT_LEVEL, DEFAULT_RESAMPLES
from trailcheck.judge.agreement import AgreementRates, Confusion, Kappa, agreement_rates
from trailcheck.judge.agreement import cohen_kappa as kappa_of
from trailcheck.judge.agreement import confusion as confusion_of
from trailcheck.judge.judge import Judge
from trailcheck.judge.labels import HumanLabel, LabelKey, LabelSplit
from trailcheck.judge.verdict import Judging

__all__ = [
    "AgreementFigures",
    "CalibrationOptions",
    "JudgeRun",
    "SplitFigures",
    "SplitLabel",
    "UnscorableItem",
    "agreement_figures",
    "label_split",
]


@dataclass(frozen=True, slots=True)
class CalibrationOptions:
    """How the figures are computed; recorded in the report."""

    seed: int = 0
    level: float = DEFAULT_LEVEL
    resamples: int = DEFAULT_RESAMPLES
    validation_fraction: float = 0.3
    """The share of items hashed into the validation split when a label names no split."""


@dataclass(frozen=True, slots=True)
class JudgeRun:
    """One judge's judgings of the labelled items, with what identifies the judge."""

    version: str
    description: Mapping[str, Any]
    judgings: Sequence[Judging]

    @classmethod
    def of(cls, judge: Judge, judgings: Sequence[Judging]) -> JudgeRun:
        return cls(judge.version, judge.describe(), judgings)


class UnscorableItem(BaseModel):
    """A label that has no verdict to compare with, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    criterion: str
    reason: str


class AgreementFigures(AgreementRates):
    """A judge against one set of labels: counts, the confusion matrix, the rates and kappa."""

    n_labels: int
    n_paired: int
    n_unscorable: int
    unscorable: list[UnscorableItem]
    confusion: Confusion
    cohen_kappa: Kappa


class SplitFigures(BaseModel):
    """The figures of each split; validation leaves out development labels."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    calibration: AgreementFigures
    validation: AgreementFigures
    validation_excluded_development: int


@dataclass(frozen=True, slots=True)
class _Paired:
    label: HumanLabel
    judging: Judging | None


class SplitLabel(Protocol):
    """A label that may name its split: a verdict label or an attribution label."""

    @property
    def item_id(self) -> str: ...

    @property
    def split(self) -> LabelSplit | None: ...


def label_split(label: SplitLabel, validation_fraction: float) -> LabelSplit:
    """The split ``label`` names, else the one its item id hashes into."""
    if label.split is not None:
        return label.split
    digest = hashlib.sha256(label.item_id.encode()).digest()
    bucket = int.from_bytes(digest[:8], "big") / 2**64
    return "validation" if bucket < validation_fraction else "calibration"


def _judgings_by_key(judgings: Sequence[Judging]) -> dict[LabelKey, Judging]:
    by_key: dict[LabelKey, Judging] = {}
    for judging in judgings:
        key = (judging.item_id, judging.criterion)
        if key in by_key:
            raise UsageError(f"two judgings of item {key[0]!r}, criterion {key[1]!r}")
        by_key[key] = judging
    return by_key


def _unscorable(paired: _Paired) -> UnscorableItem | None:
    judging = paired.judging
    if judging is not None and judging.verdict is not None:
        return None
    reason = "not judged" if judging is None else judging.reason or "unscorable"
    return UnscorableItem(
        item_id=paired.label.item_id, criterion=paired.label.criterion, reason=reason
    )


def _figures(paired: Sequence[_Paired], options: CalibrationOptions) -> AgreementFigures:
    unscorable = [item for item in map(_unscorable, paired) if item is not None]
    pairs = [
        (p.label.human_passed, p.judging.verdict.passed)
        for p in paired
        if p.judging is not None and p.judging.verdict is not None
    ]
    table = confusion_of(pairs)
    rates = agreement_rates(table, options.level)
    kappa = kappa_of(pairs, level=options.level, resamples=options.resamples, seed=options.seed)
    return AgreementFigures(
        **dict(rates),
        n_labels=len(paired),
        n_paired=len(pairs),
        n_unscorable=len(unscorable),
        unscorable=unscorable,
        confusion=table,
        cohen_kappa=kappa,
    )


def _pair(labels: Sequence[HumanLabel], judgings: Sequence[Judging]) -> list[_Paired]:
    seen: set[LabelKey] = set()
    for label in labels:
        if label.key in seen:
            raise UsageError(f"two labels of item {label.item_id!r}, criterion {label.criterion!r}")
        seen.add(label.key)
    by_key = _judgings_by_key(judgings)
    return [_Paired(label, by_key.get(label.key)) for label in labels]


def _split_figures(paired: Sequence[_Paired], options: CalibrationOptions) -> SplitFigures:
    sides = [(p, label_split(p.label, options.validation_fraction)) for p in paired]
    held_out = [p for p, side in sides if side == "validation"]
    return SplitFigures(
        calibration=_figures([p for p, side in sides if side == "calibration"], options),
        validation=_figures([p for p in held_out if not p.label.development], options),
        validation_excluded_development=sum(p.label.development for p in held_out),
    )


def agreement_figures(
    labels: Sequence[HumanLabel],
    judgings: Sequence[Judging],
    options: CalibrationOptions | None = None,
) -> tuple[AgreementFigures, SplitFigures]:
    """The figures of ``judgings`` against all ``labels``, and against each split."""
    options = options or CalibrationOptions()
    if not 0 <= options.validation_fraction <= 1:
        raise UsageError(f"validation_fraction must lie in 0..1, not {options.validation_fraction}")
    paired = _pair(labels, judgings)
    return _figures(paired, options), _split_figures(paired, options)
