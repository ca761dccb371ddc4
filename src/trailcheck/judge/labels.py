"""Human labels and recorded verdicts: the two JSONL inputs of a calibration.

A calibration is only as good as its labels, so a labels file is read whole or not at all:
every bad record (not JSON, a missing or mistyped field, an unknown field, a second label for
the same item and criterion) is reported at once, each naming its file, line and field, and
nothing is returned until the file is clean. Unknown fields are errors because a misspelt
``developement`` would otherwise silently count a development label as held-out evidence.

One record per line (a JSON array of records is read too)::

    {"item_id": "t-17", "criterion": "verifies identity before the refund", "human_passed": false,
     "labeler": "ana", "note": "refund issued first", "split": "validation", "development": false}
    {"item_id": "t-17", "criterion": "verifies identity before the refund",
     "verdict": {"evidence": [], "passed_criteria": [], "failed_criteria": ["..."],
                 "failure_mode": "refund_without_verification", "passed": false},
     "judge_version": "rubric-3f2a9c"}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from trailcheck.errors import InputError
from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.json_records import JsonRecord, read_json_records
from trailcheck.judge.verdict import Verdict

__all__ = [
    "HumanLabel",
    "LabelKey",
    "LabelSplit",
    "LabelsFileError",
    "RecordedVerdict",
    "load_labels",
    "load_records",
    "load_verdicts",
]

LabelSplit = Literal["calibration", "validation"]
LabelKey = tuple[str, str]
"""``(item_id, criterion)``: what a label, a recorded verdict and a judging are paired by."""


class HumanLabel(BaseModel):
    """A person's pass/fail on one criterion about one item (a trace or case id)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str = Field(min_length=1)
    criterion: str = Field(min_length=1)
    human_passed: bool
    labeler: str = Field(min_length=1)
    note: str = ""
    split: LabelSplit | None = None
    """Where the label belongs; None: assigned by hashing the item id."""
    development: bool = False
    """The item influenced a rubric or prompt, so it cannot be held-out evidence."""

    @property
    def key(self) -> LabelKey:
        return (self.item_id, self.criterion)


class RecordedVerdict(BaseModel):
    """A verdict a judge gave earlier, kept for replay."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str = Field(min_length=1)
    criterion: str = Field(min_length=1)
    verdict: Verdict
    judge_version: str | None = None

    @property
    def key(self) -> LabelKey:
        return (self.item_id, self.criterion)


class LabelsFileError(InputError):
    """A labels or verdicts file with bad records; ``rejections`` holds every one, in order."""

    def __init__(self, source: str, rejections: Sequence[Rejection]) -> None:
        self.rejections = list(rejections)
        count = len(self.rejections)
        heading = f"{source}: {count} bad record{'s' if count != 1 else ''}; nothing was loaded"
        super().__init__("\n".join([heading, *(str(rejection) for rejection in self.rejections)]))


_Record = TypeVar("_Record", bound=BaseModel)


def load_labels(path: Path) -> list[HumanLabel]:
    """Every label of ``path``, in file order; :class:`LabelsFileError` lists all bad ones."""
    return load_records(path, HumanLabel, "label", lambda label: label.key)


def load_verdicts(path: Path) -> list[RecordedVerdict]:
    """Every recorded verdict of ``path``, in file order; :class:`LabelsFileError` lists all
    bad ones."""
    return load_records(path, RecordedVerdict, "verdict", lambda verdict: verdict.key)


def load_records(
    path: Path, model: type[_Record], what: str, key: Callable[[_Record], LabelKey]
) -> list[_Record]:
    """Every ``model`` record of ``path`` read the way labels are (see the module): all or
    nothing, one per ``key``; ``what`` names a record in messages (``label``)."""
    source = str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{source}: cannot be read: {error.strerror or error}") from None
    records: list[_Record] = []
    rejections: list[Rejection] = []
    first_line: dict[LabelKey, int | None] = {}
    for item in read_json_records(data, source, array_is_one_record=lambda _: False):
        if isinstance(item, Rejection):
            rejections.append(item)
            continue
        parsed = _parse(item, model, source)
        if isinstance(parsed, list):
            rejections.extend(parsed)
            continue
        line = item.start_line()
        parsed_key = key(parsed)
        if parsed_key in first_line:
            rejections.append(_duplicate(source, line, parsed_key, first_line[parsed_key], what))
            continue
        first_line[parsed_key] = line
        records.append(parsed)
    if rejections:
        raise LabelsFileError(source, rejections)
    return records


def _parse(record: JsonRecord, model: type[_Record], source: str) -> _Record | list[Rejection]:
    line = record.start_line()
    if not isinstance(record.value, dict):
        kind = type(record.value).__name__
        return [Rejection(source, f"a record must be a JSON object, not {kind}", line=line)]
    try:
        # Strict: ``"human_passed": "no"`` or ``1`` is a mistake to report, not to coerce.
        return model.model_validate(record.value, strict=True)
    except ValidationError as error:
        return list(_field_problems(error.errors(include_url=False), source, line))


def _field_problems(
    problems: Iterable[ErrorDetails], source: str, line: int | None
) -> list[Rejection]:
    rejections: list[Rejection] = []
    for problem in problems:
        field = ".".join(str(part) for part in problem["loc"]) or None
        message = "unknown field" if problem["type"] == "extra_forbidden" else problem["msg"]
        rejections.append(Rejection(source, message, line=line, field=field))
    return rejections


def _duplicate(
    source: str, line: int | None, key: LabelKey, first: int | None, what: str
) -> Rejection:
    where = f"line {first}" if first is not None else "an earlier record"
    return Rejection(
        source,
        f"a second {what} for item {key[0]!r}, criterion {key[1]!r} (the first is at {where});"
        f" one {what} per item and criterion",
        line=line,
        field="item_id",
    )
