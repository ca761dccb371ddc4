"""Attributors: what names where a failed run first went wrong, behind one seam, and their
outcomes on labelled items, recorded and replayed.

An :class:`Attributor` has a ``version`` and ``describe()`` (what a calibration pins, as for
judges) and ``attribute(trace, case)``, which returns an
:class:`~trailcheck.scorers.attribution.Attribution` or None, directly (the deterministic
attributor) or awaited (the judge, :class:`~trailcheck.judge.attribution.AttributionJudge`).

:func:`attribute_labelled` runs one on each labelled item and keeps a
:class:`RecordedAttribution` per label: the attribution, the agent that took its step
(:func:`~trailcheck.scorers.steps.step_agent`), or why there is none (no trace for the item, the
attributor named no step, it raised). Written as JSONL they replay: :class:`ReplayAttributor`
(spec ``replay:FILE.jsonl``) answers from them by item id, with no trace and no model, so a
calibration of recorded attributions runs offline. Its version is the one the records name when
they all name the same, else a hash of the file.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.cases import Case
from trailcheck.errors import UsageError
from trailcheck.judge.attribution import AttributionJudge
from trailcheck.judge.attribution_labels import ATTRIBUTION_CRITERION, AttributionLabel
from trailcheck.judge.labels import load_records
from trailcheck.judge.run_judge import case_of
from trailcheck.scorers.attribution import Attribution
from trailcheck.scorers.grade import grade
from trailcheck.scorers.steps import step_agent
from trailcheck.trace import Trace

__all__ = [
    "Attributor",
    "DeterministicAttributor",
    "RecordedAttribution",
    "ReplayAttributor",
    "attribute_labelled",
    "load_attributions",
]


@runtime_checkable
class Attributor(Protocol):
    """Names the step where a failed run first went wrong (see the module)."""

    @property
    def version(self) -> str: ...

    def describe(self) -> dict[str, Any]: ...

    def attribute(
        self, trace: Trace, case: Case | None
    ) -> Attribution | Awaitable[Attribution | None] | None: ...


class RecordedAttribution(BaseModel):
    """One attributor's outcome on one item: the attribution and its step's agent, or None and
    why; the model calls it took, and the attributor's version."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str = Field(min_length=1)
    attribution: Attribution | None
    agent: str | None = None
    reason: str = ""
    calls: int = Field(default=0, ge=0)
    attributor_version: str | None = None


class DeterministicAttributor:
    """The deterministic attributor (:mod:`trailcheck.scorers.attribute`) as an
    :class:`Attributor`: the item's trace graded against its case, and the failed grade's
    attribution. Without a case, or on a grade that did not fail, it names no step."""

    def __init__(self) -> None:
        self._version = hashlib.sha256(b"deterministic-attribution:1").hexdigest()[:12]

    @property
    def version(self) -> str:
        return self._version

    def describe(self) -> dict[str, Any]:
        return {"kind": "deterministic", "version": self._version}

    def attribute(self, trace: Trace, case: Case | None) -> Attribution | None:
        if case is None:
            return None
        return grade(trace, case).attribution


def load_attributions(path: Path) -> list[RecordedAttribution]:
    """The recorded attributions of ``path`` (JSONL), all or nothing, one per item."""
    return load_records(
        path, RecordedAttribution, "attribution", lambda r: (r.item_id, ATTRIBUTION_CRITERION)
    )


class ReplayAttributor:
    """Replays the attributions of one recorded file (see the module)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        records = load_attributions(path)
        self._records = {record.item_id: record for record in records}
        named = {record.attributor_version for record in records}
        self._recorded_version = named.pop() if len(named) == 1 else None
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        self._version = self._recorded_version or f"replay-{digest}"

    @property
    def version(self) -> str:
        return self._version

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "replay",
            "file": str(self._path),
            "attributions": len(self._records),
            "recorded_attributor_version": self._recorded_version,
        }

    def recorded(self, item_id: str) -> RecordedAttribution:
        """The recorded outcome for ``item_id``; one without an attribution, saying so, when
        the file has none."""
        record = self._records.get(item_id)
        if record is None:
            reason = f"no recorded attribution for item {item_id!r} in {self._path}"
            return RecordedAttribution(
                item_id=item_id, attribution=None, reason=reason, attributor_version=self._version
            )
        return record

    def attribute(self, trace: Trace, case: Case | None) -> Attribution | None:
        return self.recorded(trace.trace_id).attribution


async def _attribute_one(
    attributor: Attributor,
    label: AttributionLabel,
    traces: Mapping[str, Trace],
    cases: Mapping[str, Case],
    gate: asyncio.Semaphore,
) -> RecordedAttribution:
    if isinstance(attributor, ReplayAttributor):
        return attributor.recorded(label.item_id)
    version = attributor.version
    trace = traces.get(label.item_id)
    if trace is None:
        reason = f"no trace for item {label.item_id!r} among the traces"
        return RecordedAttribution(
            item_id=label.item_id, attribution=None, reason=reason, attributor_version=version
        )
    case = case_of(label.item_id, trace, cases)
    async with gate:
        try:
            if isinstance(attributor, AttributionJudge):
                judging = await attributor.assess(trace, case)
                attribution, reason, calls = judging.attribution, judging.reason, judging.calls
            else:
                answer = attributor.attribute(trace, case)
                attribution = await answer if inspect.isawaitable(answer) else answer
                reason, calls = ("" if attribution else "the attributor named no step"), 0
        # An attributor that raises is the item's data, as a judge's failure is: recorded.
        except Exception as error:  # noqa: BLE001
            reason = f"attributor raised {type(error).__name__}: {error}"
            attribution, calls = None, 0
    return RecordedAttribution(
        item_id=label.item_id,
        attribution=attribution,
        agent=_agent(trace, attribution),
        reason=reason,
        calls=calls,
        attributor_version=version,
    )


def _agent(trace: Trace, attribution: Attribution | None) -> str | None:
    if attribution is None:
        return None
    span = next((s for s in trace.spans if s.span_id == attribution.span_id), None)
    return None if span is None else step_agent(trace, span)


async def attribute_labelled(
    attributor: Attributor,
    labels: Sequence[AttributionLabel],
    traces: Mapping[str, Trace] | None = None,
    cases: Mapping[str, Case] | None = None,
    concurrency: int = 4,
) -> list[RecordedAttribution]:
    """One outcome per label, in label order, at most ``concurrency`` attributions at once.
    ``cases`` by id: an item's case is the one with its id, or its trace's ``case_id``."""
    if concurrency < 1:
        raise UsageError(f"concurrency must be 1 or more, not {concurrency}")
    gate = asyncio.Semaphore(concurrency)
    found, given = traces or {}, cases or {}
    return list(
        await asyncio.gather(
            *(_attribute_one(attributor, label, found, given, gate) for label in labels)
        )
    )
