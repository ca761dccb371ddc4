"""The pairwise judge: which of two answers better meets the criterion, and does order matter?

Judges prefer the first (or the second) answer shown more often than the answers deserve.
:meth:`PairwiseJudge.both_orders` asks twice, A then B and B then A, maps the second answer back
to the original names, and reports whether the preference flipped; the calibration's
:func:`~trailcheck.judge.order.order_sensitivity` takes ``(check.item_id, check.flipped)`` of
each :class:`OrderCheck` and reports the flip rate. Both answers, like everything from a run,
are untrusted data.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.judge.pinning import PinnedModelJudge
from trailcheck.judge.render import (
    Section,
    declarations_section,
    input_section,
    render_sections,
    trajectory_sections,
)
from trailcheck.judge.structured import ask_structured
from trailcheck.judge.untrusted import untrusted_notice
from trailcheck.judge.verdict import JudgeItem, JudgingStatus
from trailcheck.models.chat import ChatModel
from trailcheck.trace import Message

__all__ = [
    "PAIRWISE_TEMPLATE",
    "OrderCheck",
    "PairwiseJudge",
    "PairwiseJudging",
    "PairwiseVerdict",
    "Preference",
]

Preference = Literal["a", "b", "tie"]

PAIRWISE_TEMPLATE = {
    "system": (
        "You compare two answers, A and B, that an AI agent could give to the same request,"
        " and say which better meets the criterion. The order in which they are shown says"
        " nothing about their quality, and a longer answer is not better for being longer."
        " Answer with a JSON object: evidence (short quotes from the answers and the data),"
        ' preferred ("a", "b", or "tie" when neither meets the criterion better), reason (one'
        " sentence). {notice}"
    ),
    "user": (
        "Criterion: {criterion}\n\n{evidence}\n\n"
        "Which answer better meets the criterion? Answer with the JSON object only."
    ),
}


class PairwiseVerdict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence: list[str] = Field(description="Quotes from the answers and the data.")
    preferred: Preference = Field(description='"a", "b", or "tie".')
    reason: str = Field(description="Why, in one sentence.")


class PairwiseJudging(BaseModel):
    """One comparison: the verdict (in the order shown), or why there is none."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    criterion: str
    judge_version: str
    status: JudgingStatus
    verdict: PairwiseVerdict | None = None
    raw: str | None = None
    reason: str = ""
    attempts: int = 1

    @property
    def preferred(self) -> Preference | None:
        return None if self.verdict is None else self.verdict.preferred


@dataclass(frozen=True, slots=True)
class OrderCheck:
    """Both orders of one comparison; ``swapped`` showed B first, as "a"."""

    forward: PairwiseJudging
    swapped: PairwiseJudging

    @property
    def item_id(self) -> str:
        return self.forward.item_id

    @property
    def preferred_forward(self) -> Preference | None:
        return self.forward.preferred

    @property
    def preferred_swapped(self) -> Preference | None:
        """The swapped comparison's preference, in the original names."""
        return _unswap(self.swapped.preferred)

    @property
    def flipped(self) -> bool | None:
        """Whether the two orders disagree (in the original names); None when either order
        got no verdict, so a flip rate counts only items judged both ways."""
        forward, swapped = self.preferred_forward, self.preferred_swapped
        if forward is None or swapped is None:
            return None
        return forward != swapped


class PairwiseJudge(PinnedModelJudge):
    """Compares two answers for the item's criterion; see the module."""

    def __init__(self, model: ChatModel, *, retries: int = 1) -> None:
        super().__init__(model, kind="pairwise", retries=retries, template=dict(PAIRWISE_TEMPLATE))

    def messages(self, item: JudgeItem, answer_a: str, answer_b: str) -> list[Message]:
        rendered = render_sections(
            [
                input_section(item.trace),
                *trajectory_sections(item.trace),
                declarations_section(item),
                Section("Answer A", "answer a", answer_a, "(empty)"),
                Section("Answer B", "answer b", answer_b, "(empty)"),
            ],
            seed=item.criterion,
        )
        system = PAIRWISE_TEMPLATE["system"].format(notice=untrusted_notice(rendered.boundary))
        user = PAIRWISE_TEMPLATE["user"].format(criterion=item.criterion, evidence=rendered.text)
        return [Message(role="system", content=system), Message(role="user", content=user)]

    async def compare(self, item: JudgeItem, answer_a: str, answer_b: str) -> PairwiseJudging:
        asked = await ask_structured(
            self._model,
            self.messages(item, answer_a, answer_b),
            PairwiseVerdict,
            retries=self._retries,
        )
        return PairwiseJudging(
            item_id=item.item_id,
            criterion=item.criterion,
            judge_version=self._version,
            status="unscorable" if asked.value is None else "judged",
            verdict=asked.value,
            raw=asked.raw,
            reason=asked.reason if asked.value is None else asked.value.reason,
            attempts=asked.attempts,
        )

    async def both_orders(self, item: JudgeItem, answer_a: str, answer_b: str) -> OrderCheck:
        forward, swapped = await asyncio.gather(
            self.compare(item, answer_a, answer_b), self.compare(item, answer_b, answer_a)
        )
        return OrderCheck(forward, swapped)


def _unswap(preference: Preference | None) -> Preference | None:
    if preference == "a":
        return "b"
    if preference == "b":
        return "a"
    return preference
