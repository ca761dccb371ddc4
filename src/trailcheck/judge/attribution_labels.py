"""Attribution labels: where a person (or a published benchmark) says a failed run went wrong.

One record per line, read like every labels file (:mod:`trailcheck.judge.labels`: all or
nothing, every bad record reported with its line and field, one label per item)::

    {"item_id": "t-17", "mistaken_step": 2, "mistaken_agent": "support_agent",
     "category": "tool_returned_wrong_data", "labeler": "ana", "note": "old order id"}

- ``item_id``: the trace (or a case id one trace names, as for verdict labels);
- ``mistaken_step``: the step of the decisive mistake, counted from 1 among the trace's steps
  exactly as :class:`~trailcheck.scorers.attribution.Attribution` counts them
  (:func:`~trailcheck.scorers.steps.trace_steps`);
- ``mistaken_agent``: the agent that took it, in a multi-agent run (compared ignoring case);
  absent, the label counts toward step-level accuracy only;
- ``category``: optional, one of the attribution categories;
- ``labeler``, ``note``, ``split``, ``development`` as for verdict labels, and ``group``: a name
  the figures are also reported by (Who&When's two folders report apart).

A file of these is told from a file of verdict labels by its first record
(:func:`labels_file_kind`): attribution labels name a ``mistaken_step``.

:func:`who_and_when_labels` makes labels (and, for the judge's reference answer, cases) of the
published Who&When logs (:mod:`trailcheck.importing.who_and_when`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.cases import Case
from trailcheck.errors import InputError
from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.json_records import read_json_records
from trailcheck.importing.who_and_when import read_who_and_when_logs
from trailcheck.judge.labels import LabelKey, LabelSplit, load_records
from trailcheck.scorers.attribution import AttributionCategory

__all__ = [
    "ATTRIBUTION_CRITERION",
    "AttributionLabel",
    "LabelsFileKind",
    "WhoAndWhenImport",
    "labels_file_kind",
    "load_attribution_labels",
    "who_and_when_labels",
]

ATTRIBUTION_CRITERION: Final = "where the run first went wrong"
"""The criterion attribution labels and outcomes are keyed by, beside verdict labels'."""

LabelsFileKind = Literal["verdict", "attribution"]
_WHO_AND_WHEN_LABELER: Final = "who-and-when"


class AttributionLabel(BaseModel):
    """Where a failed run first went wrong, by a person's (or a benchmark's) account."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str = Field(min_length=1)
    mistaken_step: int = Field(ge=1)
    mistaken_agent: str | None = Field(default=None, min_length=1)
    category: AttributionCategory | None = None
    labeler: str = Field(min_length=1)
    note: str = ""
    group: str | None = Field(default=None, min_length=1)
    split: LabelSplit | None = None
    development: bool = False

    @property
    def key(self) -> LabelKey:
        return (self.item_id, ATTRIBUTION_CRITERION)


def load_attribution_labels(path: Path) -> list[AttributionLabel]:
    """Every attribution label of ``path``, in file order, or
    :class:`~trailcheck.judge.labels.LabelsFileError` listing every bad one."""
    return load_records(path, AttributionLabel, "label", lambda label: label.key)


def labels_file_kind(path: Path) -> LabelsFileKind:
    """``attribution`` when the first record of ``path`` names a ``mistaken_step``, else
    ``verdict`` (whose loader then says what is wrong with the file, if anything)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot be read: {error.strerror or error}") from None
    for record in read_json_records(data, str(path), array_is_one_record=lambda _: False):
        if isinstance(record, Rejection):
            return "verdict"
        is_attribution = isinstance(record.value, dict) and "mistaken_step" in record.value
        return "attribution" if is_attribution else "verdict"
    return "verdict"


@dataclass(frozen=True, slots=True)
class WhoAndWhenImport:
    """The labels and cases of some Who&When logs, and the logs that could not be read."""

    labels: list[AttributionLabel] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)


def who_and_when_labels(paths: Sequence[Path]) -> WhoAndWhenImport:
    """A label per Who&When log (its ``mistake_agent`` and ``mistake_step`` + 1, the reason as
    the note, the folder as the group) and a case (the question as input, ``ground_truth`` as
    the reference answer, the trace id as its id), both named by the trace's id. An unlabelled
    or malformed log is a rejection."""
    imported = WhoAndWhenImport()
    for path in paths:
        try:
            stream = path.open("rb")
        except OSError as error:
            raise InputError(f"{path}: cannot be read: {error.strerror or error}") from None
        with stream:
            for item in read_who_and_when_logs(stream, str(path)):
                if isinstance(item, Rejection):
                    imported.rejections.append(item)
                    continue
                trace, mistake = item
                if mistake is None:
                    imported.rejections.append(
                        Rejection(str(path), "an unlabelled log: no mistake_agent, mistake_step")
                    )
                    continue
                note = mistake.reason
                if mistake.mistake_type:
                    note = f"{note} (mistake type: {mistake.mistake_type})".lstrip()
                imported.labels.append(
                    AttributionLabel(
                        item_id=trace.trace_id,
                        mistaken_step=mistake.step,
                        mistaken_agent=mistake.agent,
                        labeler=_WHO_AND_WHEN_LABELER,
                        note=note,
                        group=mistake.folder or None,
                    )
                )
                imported.cases.append(_case(trace.trace_id, trace.input_text, trace.metadata))
    return imported


def _case(trace_id: str, question: str, metadata: dict[str, object]) -> Case:
    answer = metadata.get("ground_truth")
    return Case(
        id=trace_id,
        input=question or "(no question recorded)",
        reference_response=None if answer is None else str(answer),
        metadata={"source": "who-and-when"},
    )
