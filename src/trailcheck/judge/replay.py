"""A judge that replays verdicts recorded earlier, for tests and for re-analysis without a model.

Spec form ``replay:FILE.jsonl`` (records as :func:`~trailcheck.judge.labels.load_verdicts`
reads them). A verdict is found by ``(item_id, criterion)`` alone, so replaying needs no trace;
an item with no recorded verdict is ``unscorable``, saying so, never a pass or a fail.

Its version is the judge version the records carry when they all name the same one (a
calibration of replayed verdicts then pins the judge that gave them); otherwise, when records
disagree or name none, it is a hash of the file, so two different files never share a version.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Final

from trailcheck.errors import InputError, UsageError
from trailcheck.judge.labels import LabelKey, RecordedVerdict, load_verdicts
from trailcheck.judge.verdict import JudgeItem, Judging

__all__ = ["REPLAY_PREFIX", "ReplayJudge", "replay_judge_from_spec"]

REPLAY_PREFIX: Final = "replay:"


class ReplayJudge:
    """Replays the verdicts of one recorded-verdicts file."""

    def __init__(self, path: Path) -> None:
        self._path = path
        records = load_verdicts(path)
        self._verdicts: dict[LabelKey, RecordedVerdict] = {record.key: record for record in records}
        recorded = {record.judge_version for record in records}
        self._recorded_version = recorded.pop() if len(recorded) == 1 else None
        if self._recorded_version is not None:
            self._version = self._recorded_version
        else:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
            self._version = f"replay-{digest}"

    @property
    def version(self) -> str:
        return self._version

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "replay",
            "file": str(self._path),
            "verdicts": len(self._verdicts),
            "recorded_judge_version": self._recorded_version,
        }

    def recorded(self, item_id: str, criterion: str) -> Judging:
        """The recorded verdict for ``(item_id, criterion)``, or an unscorable judging."""
        record = self._verdicts.get((item_id, criterion))
        if record is None:
            return Judging.unscorable(
                item_id=item_id,
                criterion=criterion,
                judge_version=self._version,
                reason=f"no recorded verdict for item {item_id!r}, criterion {criterion!r}"
                f" in {self._path}",
                attempts=0,
            )
        return Judging(
            item_id=item_id,
            criterion=criterion,
            judge_version=self._version,
            status="judged",
            verdict=record.verdict,
            reason=f"replayed from {self._path}",
            attempts=0,
        )

    async def judge(self, item: JudgeItem) -> Judging:
        return self.recorded(item.item_id, item.criterion)


def replay_judge_from_spec(spec: str) -> ReplayJudge | None:
    """The replay judge ``replay:FILE.jsonl`` names, or None when ``spec`` is not a replay spec."""
    if not spec.startswith(REPLAY_PREFIX):
        return None
    file = spec[len(REPLAY_PREFIX) :]
    if not file:
        raise UsageError(f"judge spec {spec!r} names no file: write replay:FILE.jsonl")
    path = Path(file)
    if not path.is_file():
        raise InputError(f"{file}: no such file (judge spec {spec!r})")
    return ReplayJudge(path)
