"""The groundedness judge: is each sentence of the answer supported by what the tools said?

The final answer is split into sentences (:func:`~trailcheck.judge.sentences.split_sentences`),
and the model judges all of them in **one structured call**: one judgment per numbered sentence,
each supported or unsupported by the evidence (tool results and tool declarations; the user's
input only for sentences that restate the request). One call, not one per sentence, because
the evidence is the bulk of the prompt and would be sent n times; the answer is checked to
judge every sentence exactly once, and a wrong count gets the usual one retry.

The outcome is a :class:`Groundedness`: ``value = supported / total``, the unsupported sentences,
and a :class:`~trailcheck.judge.Judging` whose verdict passes iff every sentence is supported,
with the arithmetic in its reason (``supported 2/3=0.667; unsupported: [2] "..."``). An answer
with no sentence is unscorable, never a vacuous pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.judge.pinning import PinnedModelJudge
from trailcheck.judge.render import (
    Section,
    declarations_section,
    input_section,
    render_sections,
    trajectory_sections,
)
from trailcheck.judge.sentences import split_sentences
from trailcheck.judge.structured import ask_structured
from trailcheck.judge.untrusted import untrusted_notice
from trailcheck.judge.verdict import JudgeItem, Judging, Verdict
from trailcheck.models.chat import ChatModel
from trailcheck.trace import Message

__all__ = [
    "GROUNDEDNESS_TEMPLATE",
    "Groundedness",
    "GroundednessJudge",
    "SentenceJudgment",
    "SentenceJudgments",
]

GROUNDEDNESS_TEMPLATE = {
    "system": (
        "You check whether each numbered sentence of an AI agent's answer is supported by the"
        " evidence: the results of the tools the agent called and the tool declarations. A"
        " sentence is supported only if the evidence states or directly implies it; a"
        " sentence that restates the user's request is supported by the user input. Anything"
        " else, however plausible, is unsupported. Answer with a JSON object whose sentences"
        " list has one entry per numbered sentence: number, supported (true or false),"
        " evidence (short quotes from the evidence that support it; empty when unsupported)."
        " {notice}"
    ),
    "user": (
        "{evidence}\n\nJudge each of the {count} numbered sentences. Answer with the JSON"
        " object only."
    ),
}


class SentenceJudgment(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int = Field(description="The sentence's number, from 1.")
    supported: bool
    evidence: list[str] = Field(description="Quotes from the evidence that support it.")


class SentenceJudgments(BaseModel):
    """The structured answer of the groundedness call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sentences: list[SentenceJudgment]


@dataclass(frozen=True, slots=True)
class Groundedness:
    """The judging, and its figures: None when unscorable."""

    judging: Judging
    sentences: list[str] = field(default_factory=list)
    supported: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)

    @property
    def value(self) -> float | None:
        """``supported / total``; None when there was no valid judgment."""
        if self.judging.status != "judged" or not self.sentences:
            return None
        return len(self.supported) / len(self.sentences)


class GroundednessJudge(PinnedModelJudge):
    """A :class:`~trailcheck.judge.Judge` of the answer's support by the evidence."""

    def __init__(self, model: ChatModel, *, retries: int = 1) -> None:
        super().__init__(
            model,
            kind="groundedness",
            retries=retries,
            template=dict(GROUNDEDNESS_TEMPLATE),
            schema=SentenceJudgments.model_json_schema(),
        )

    def messages(self, item: JudgeItem, sentences: list[str]) -> list[Message]:
        numbered = "\n".join(f"[{n}] {s}" for n, s in enumerate(sentences, start=1))
        rendered = render_sections(
            [
                input_section(item.trace),
                *trajectory_sections(item.trace),
                declarations_section(item),
                Section("Answer sentences", "answer sentences", numbered),
            ]
        )
        system = GROUNDEDNESS_TEMPLATE["system"].format(notice=untrusted_notice(rendered.boundary))
        user = GROUNDEDNESS_TEMPLATE["user"].format(evidence=rendered.text, count=len(sentences))
        return [Message(role="system", content=system), Message(role="user", content=user)]

    async def judge(self, item: JudgeItem) -> Judging:
        return (await self.assess(item)).judging

    async def assess(self, item: JudgeItem) -> Groundedness:
        sentences = split_sentences(item.trace.final_text)
        if not sentences:
            return Groundedness(self._unscorable(item, "the final answer has no sentence to check"))
        asked = await ask_structured(
            self._model,
            self.messages(item, sentences),
            SentenceJudgments,
            check=lambda answer: _coverage_problem(answer, len(sentences)),
            retries=self._retries,
        )
        if asked.value is None:
            return Groundedness(self._unscorable(item, asked.reason, asked.raw, asked.attempts))
        by_number = {judgment.number: judgment for judgment in asked.value.sentences}
        judgments = [by_number[n] for n in range(1, len(sentences) + 1)]
        supported = [s for s, j in zip(sentences, judgments, strict=True) if j.supported]
        unsupported = [s for s, j in zip(sentences, judgments, strict=True) if not j.supported]
        verdict = _verdict(sentences, judgments)
        judging = Judging(
            item_id=item.item_id,
            criterion=item.criterion,
            judge_version=self._version,
            status="judged",
            verdict=verdict,
            raw=asked.raw,
            reason=_reason(sentences, judgments),
            attempts=asked.attempts,
        )
        return Groundedness(judging, sentences, supported, unsupported)

    def _unscorable(
        self, item: JudgeItem, reason: str, raw: str | None = None, attempts: int = 0
    ) -> Judging:
        return Judging.unscorable(
            item_id=item.item_id,
            criterion=item.criterion,
            judge_version=self._version,
            raw=raw,
            reason=reason,
            attempts=attempts,
        )


def _coverage_problem(answer: SentenceJudgments, count: int) -> str | None:
    numbers = sorted(judgment.number for judgment in answer.sentences)
    if numbers == list(range(1, count + 1)):
        return None
    return f"sentences 1 to {count} must each be judged once; the answer judged {numbers}"


def _verdict(sentences: list[str], judgments: list[SentenceJudgment]) -> Verdict:
    pairs = list(enumerate(zip(sentences, judgments, strict=True), start=1))
    return Verdict(
        evidence=[quote for judgment in judgments for quote in judgment.evidence],
        passed_criteria=[f"[{n}] supported: {s}" for n, (s, j) in pairs if j.supported],
        failed_criteria=[f"[{n}] unsupported: {s}" for n, (s, j) in pairs if not j.supported],
        failure_mode=None if all(j.supported for j in judgments) else "unsupported_claim",
        passed=all(j.supported for j in judgments),
    )


def _reason(sentences: list[str], judgments: list[SentenceJudgment]) -> str:
    supported = sum(judgment.supported for judgment in judgments)
    total = len(sentences)
    reason = f"supported {supported}/{total}={supported / total:.3f}"
    missing = [
        f'[{n}] "{s}"'
        for n, (s, j) in enumerate(zip(sentences, judgments, strict=True), start=1)
        if not j.supported
    ]
    return reason + (f"; unsupported: {', '.join(missing)}" if missing else "")
