"""Several verdicts, one decision: k samples of one judge, or a panel of different judges.

- :class:`SampledJudge` asks one judge ``k`` times and takes the majority. At temperature 0 the
  samples of one model mostly agree by construction; sampling measures something only with a
  sampling temperature, or when the model is not deterministic at 0 (most hosted ones).
- :class:`PanelJudge` asks several judges (different models or templates) once each, and
  decides by ``"majority"`` or ``"unanimous"``.

The rules, the same for both:

- an unscorable member casts no vote; it is counted in the reason. With no vote at all, the
  outcome is unscorable;
- **majority**: passed iff more votes pass than fail; **a tie fails**, since a gate should not
  pass on a coin toss;
- **unanimous**: failed when any vote fails; otherwise unscorable when a member was unscorable
  (unanimity is unknown), else passed;
- ``agreement`` is the share of votes that agree with the outcome (0.5 in a tie);
- the outcome's verdict is that of the first member whose vote agrees with it, and every
  member's judging is kept in :class:`Ballot`.

Versions come from the members' versions, with ``k`` or the rule.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from trailcheck.errors import UsageError
from trailcheck.judge.judge import Judge
from trailcheck.judge.pinning import judge_version
from trailcheck.judge.verdict import JudgeItem, Judging

__all__ = ["Ballot", "PanelJudge", "PanelRule", "SampledJudge", "tally"]

PanelRule = Literal["majority", "unanimous"]


@dataclass(frozen=True, slots=True)
class Ballot:
    """The decision (``judging``), every member's judging, and how far they agreed."""

    judging: Judging
    members: list[Judging]
    agreement: float | None


class SampledJudge:
    """``k`` samples of ``judge``, decided by majority; see the module."""

    def __init__(self, judge: Judge, k: int) -> None:
        if k < 1:
            raise UsageError(f"k samples of a judge: k is 1 or more, not {k}")
        self._judge = judge
        self._k = k
        self._description = {"kind": "sampled", "k": k, "judge": judge.version}
        self._version = judge_version(self._description)

    @property
    def version(self) -> str:
        return self._version

    def describe(self) -> dict[str, Any]:
        return {**self._description, "version": self._version, "member": self._judge.describe()}

    async def judge(self, item: JudgeItem) -> Judging:
        return (await self.ballot(item)).judging

    async def ballot(self, item: JudgeItem) -> Ballot:
        members = await asyncio.gather(*(self._judge.judge(item) for _ in range(self._k)))
        return tally(item, list(members), "majority", self._version)


class PanelJudge:
    """Several judges, each once, decided by ``rule``; see the module."""

    def __init__(self, judges: Sequence[Judge], rule: PanelRule = "majority") -> None:
        if not judges:
            raise UsageError("a panel has at least one judge")
        if rule not in ("majority", "unanimous"):
            raise UsageError(f"a panel's rule is 'majority' or 'unanimous', not {rule!r}")
        self._judges = list(judges)
        self._rule: PanelRule = rule
        self._description = {
            "kind": "panel",
            "rule": rule,
            "judges": [judge.version for judge in self._judges],
        }
        self._version = judge_version(self._description)

    @property
    def version(self) -> str:
        return self._version

    def describe(self) -> dict[str, Any]:
        members = [judge.describe() for judge in self._judges]
        return {**self._description, "version": self._version, "members": members}

    async def judge(self, item: JudgeItem) -> Judging:
        return (await self.ballot(item)).judging

    async def ballot(self, item: JudgeItem) -> Ballot:
        members = await asyncio.gather(*(judge.judge(item) for judge in self._judges))
        return tally(item, list(members), self._rule, self._version)


def tally(item: JudgeItem, members: list[Judging], rule: PanelRule, version: str) -> Ballot:
    """The decision of ``members`` by ``rule`` (see the module), as judge ``version``."""
    votes = [member for member in members if member.verdict is not None]
    passes = sum(member.passed is True for member in votes)
    fails = len(votes) - passes
    unscorable = len(members) - len(votes)
    counts = f"{passes} pass, {fails} fail" + (f", {unscorable} unscorable" if unscorable else "")
    attempts = sum(member.attempts for member in members)
    if not votes or (rule == "unanimous" and fails == 0 and unscorable):
        why = "no member gave a verdict" if not votes else "a member gave no verdict"
        judging = Judging(
            item_id=item.item_id,
            criterion=item.criterion,
            judge_version=version,
            status="unscorable",
            reason=f"{rule}: {why} ({counts})",
            attempts=attempts,
        )
        return Ballot(judging, members, None)
    passed = fails == 0 if rule == "unanimous" else passes > fails
    agreeing = passes if passed else fails
    agreement = agreeing / len(votes)
    chosen = next(member for member in votes if member.passed is passed)
    outcome = "passed" if passed else "failed"
    tie = " (a tie fails)" if rule == "majority" and passes == fails else ""
    judging = Judging(
        item_id=item.item_id,
        criterion=item.criterion,
        judge_version=version,
        status="judged",
        verdict=chosen.verdict,
        reason=(
            f"{rule} {outcome}{tie}: {counts}; agreement {agreeing}/{len(votes)}={agreement:.3f}"
        ),
        attempts=attempts,
    )
    return Ballot(judging, members, agreement)
