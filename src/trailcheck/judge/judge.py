"""The Judge protocol: one criterion about one item in, a :class:`Judging` out.

Every judge (rubric, groundedness, reference, samples of one, a panel, a fake, a replay of
recorded verdicts) has a ``version``: a short hash of what its verdicts depend on (model,
settings, prompt template), recorded in run manifests and calibration reports, so a calibration
is only ever applied to the judge it measured. ``describe()`` is that content, as JSON values.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from trailcheck.judge.verdict import JudgeItem, Judging


@runtime_checkable
class Judge(Protocol):
    @property
    def version(self) -> str: ...

    def describe(self) -> dict[str, Any]: ...

    async def judge(self, item: JudgeItem) -> Judging: ...
