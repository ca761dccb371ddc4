"""Calibrating an attributor: how often it names the step, and the agent, that people named.

:func:`calibrate_attribution` pairs an attributor's outcomes (:mod:`~trailcheck.judge.
attributors`) with attribution labels by item id and reports, each as ``count/total`` with a
Wilson interval (:func:`trailcheck.intervals.rate`):

- ``step_accuracy``: the attributed step is the labelled one, among the items it attributed;
- ``agent_accuracy``: the attributed step's agent is the labelled agent (ignoring case), among
  the attributed items whose label names an agent;
- ``category_accuracy``: among the attributed items whose label names a category;
- ``step_accuracy_of_all`` and ``agent_accuracy_of_all``: the same over every label, an item
  left unattributed counting as a miss. Who&When reports accuracy this way (its figures are
  over every log), so these are the figures to set beside the paper's.

An item left unattributed is counted and listed with the reason, never dropped in silence.
The figures are given over all labels, per split (as for verdict labels:
:func:`~trailcheck.judge.figures.label_split`; development labels are left out of validation)
and per label ``group``. With a candidate attributor, its figures stand beside, with the two
attributors' agreement on the items both attributed: the same step, agent and category. The
deterministic attributor and the judge compared this way is the first calibrating the second.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from trailcheck.errors import UsageError
from trailcheck.intervals import DEFAULT_LEVEL, Rate, rate
from trailcheck.judge.attribution_labels import AttributionLabel
from trailcheck.judge.attributors import RecordedAttribution
from trailcheck.judge.figures import CalibrationOptions, label_split
from trailcheck.scorers.attribution import Attribution
from trailcheck.scorers.steps import same_agent

__all__ = [
    "AttributionCalibrationReport",
    "AttributionFigures",
    "AttributionRun",
    "AttributorAgreement",
    "AttributorFigures",
    "UnattributedItem",
    "attribution_figures",
    "attributor_agreement",
    "calibrate_attribution",
]


@dataclass(frozen=True, slots=True)
class AttributionRun:
    """One attributor's outcomes on the labelled items, with what identifies it."""

    version: str
    description: Mapping[str, Any]
    outcomes: Sequence[RecordedAttribution]


class UnattributedItem(BaseModel):
    """A label whose item the attributor did not attribute, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    reason: str


class AttributionFigures(BaseModel):
    """An attributor against one set of attribution labels (see the module)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n_labels: int
    n_attributed: int
    n_unattributed: int
    unattributed: list[UnattributedItem]
    step_accuracy: Rate
    agent_accuracy: Rate
    category_accuracy: Rate
    step_accuracy_of_all: Rate
    agent_accuracy_of_all: Rate


class AttributorFigures(BaseModel):
    """One attributor's figures over all labels, per split and per group, pinned to it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attributor_version: str
    attributor: dict[str, Any]
    all: AttributionFigures
    calibration: AttributionFigures
    validation: AttributionFigures
    validation_excluded_development: int
    groups: dict[str, AttributionFigures]


class AttributorAgreement(BaseModel):
    """Two attributors on the labelled items both attributed: how often they name the same
    step, the same agent and the same category."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n_both_attributed: int
    same_step: Rate
    same_agent: Rate
    same_category: Rate


class AttributionCalibrationReport(BaseModel):
    """An attributor's calibration, and a candidate's beside it with their agreement."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = "attribution"
    level: float
    validation_fraction: float
    attributor: AttributorFigures
    candidate: AttributorFigures | None = None
    agreement: AttributorAgreement | None = None


_Named = tuple[Attribution, str | None]
"""An attribution and the agent of its step."""


@dataclass(frozen=True, slots=True)
class _Paired:
    label: AttributionLabel
    outcome: RecordedAttribution | None

    @property
    def attributed(self) -> bool:
        return self.outcome is not None and self.outcome.attribution is not None

    def step_right(self) -> bool:
        attribution = self.outcome.attribution if self.outcome is not None else None
        return attribution is not None and attribution.step == self.label.mistaken_step

    def agent_right(self) -> bool:
        agent = self.outcome.agent if self.outcome is not None else None
        return self.attributed and same_agent(agent, self.label.mistaken_agent)

    def category_right(self) -> bool:
        attribution = self.outcome.attribution if self.outcome is not None else None
        return attribution is not None and attribution.category == self.label.category


def _count(paired: Sequence[_Paired], hit: Callable[[_Paired], bool], level: float) -> Rate:
    return rate(sum(hit(p) for p in paired), len(paired), level)


def attribution_figures(
    labels: Sequence[AttributionLabel],
    outcomes: Sequence[RecordedAttribution],
    level: float = DEFAULT_LEVEL,
) -> AttributionFigures:
    """The figures of ``outcomes`` against ``labels`` (see the module)."""
    paired = _pair(labels, outcomes)
    attributed = [p for p in paired if p.attributed]
    with_agent = [p for p in paired if p.label.mistaken_agent is not None]
    unattributed = [
        UnattributedItem(
            item_id=p.label.item_id,
            reason="not attributed" if p.outcome is None else p.outcome.reason or "no attribution",
        )
        for p in paired
        if not p.attributed
    ]
    return AttributionFigures(
        n_labels=len(paired),
        n_attributed=len(attributed),
        n_unattributed=len(unattributed),
        unattributed=unattributed,
        step_accuracy=_count(attributed, _Paired.step_right, level),
        agent_accuracy=_count(
            [p for p in attributed if p.label.mistaken_agent is not None],
            _Paired.agent_right,
            level,
        ),
        category_accuracy=_count(
            [p for p in attributed if p.label.category is not None],
            _Paired.category_right,
            level,
        ),
        step_accuracy_of_all=_count(paired, _Paired.step_right, level),
        agent_accuracy_of_all=_count(with_agent, _Paired.agent_right, level),
    )


def _pair(
    labels: Sequence[AttributionLabel], outcomes: Sequence[RecordedAttribution]
) -> list[_Paired]:
    by_item: dict[str, RecordedAttribution] = {}
    for outcome in outcomes:
        if outcome.item_id in by_item:
            raise UsageError(f"two attributions of item {outcome.item_id!r}")
        by_item[outcome.item_id] = outcome
    seen: set[str] = set()
    for label in labels:
        if label.item_id in seen:
            raise UsageError(f"two attribution labels of item {label.item_id!r}")
        seen.add(label.item_id)
    return [_Paired(label, by_item.get(label.item_id)) for label in labels]


def _attributor_figures(
    labels: Sequence[AttributionLabel], run: AttributionRun, options: CalibrationOptions
) -> AttributorFigures:
    sides = [(label, label_split(label, options.validation_fraction)) for label in labels]
    held_out = [label for label, side in sides if side == "validation"]
    groups = sorted({label.group for label in labels if label.group is not None})
    return AttributorFigures(
        attributor_version=run.version,
        attributor=dict(run.description),
        all=attribution_figures(labels, run.outcomes, options.level),
        calibration=attribution_figures(
            [label for label, side in sides if side == "calibration"], run.outcomes, options.level
        ),
        validation=attribution_figures(
            [label for label in held_out if not label.development], run.outcomes, options.level
        ),
        validation_excluded_development=sum(label.development for label in held_out),
        groups={
            group: attribution_figures(
                [label for label in labels if label.group == group], run.outcomes, options.level
            )
            for group in groups
        },
    )


def attributor_agreement(
    labels: Sequence[AttributionLabel],
    one: Sequence[RecordedAttribution],
    other: Sequence[RecordedAttribution],
    level: float = DEFAULT_LEVEL,
) -> AttributorAgreement:
    """How often two attributors agree on the labelled items both attributed."""
    first = {o.item_id: (o.attribution, o.agent) for o in one if o.attribution is not None}
    second = {o.item_id: (o.attribution, o.agent) for o in other if o.attribution is not None}
    both = [
        (first[label.item_id], second[label.item_id])
        for label in labels
        if label.item_id in first and label.item_id in second
    ]

    def share(same: Callable[[_Named, _Named], bool]) -> Rate:
        return rate(sum(same(a, b) for a, b in both), len(both), level)

    return AttributorAgreement(
        n_both_attributed=len(both),
        same_step=share(lambda a, b: a[0].step == b[0].step),
        same_agent=share(lambda a, b: same_agent(a[1], b[1])),
        same_category=share(lambda a, b: a[0].category == b[0].category),
    )


def calibrate_attribution(
    labels: Sequence[AttributionLabel],
    run: AttributionRun,
    *,
    candidate: AttributionRun | None = None,
    options: CalibrationOptions | None = None,
) -> AttributionCalibrationReport:
    """Calibrate ``run``'s attributor on ``labels``; with ``candidate``, compare the two."""
    options = options or CalibrationOptions()
    if not 0 <= options.validation_fraction <= 1:
        raise UsageError(f"validation_fraction must lie in 0..1, not {options.validation_fraction}")
    return AttributionCalibrationReport(
        level=options.level,
        validation_fraction=options.validation_fraction,
        attributor=_attributor_figures(labels, run, options),
        candidate=None if candidate is None else _attributor_figures(labels, candidate, options),
        agreement=None
        if candidate is None
        else attributor_agreement(labels, run.outcomes, candidate.outcomes, options.level),
    )
