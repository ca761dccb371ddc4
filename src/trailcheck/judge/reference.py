"""The reference judge: does the answer say what the case's reference answer says?

The reference (``case.reference_response``) is the dataset author's; the agent's answer must
convey the same facts and conclusions. Information beyond the reference is accepted only when it
is correct and relevant, and a longer answer earns no credit for its length: judges left to
themselves favour long answers, so the prompt says so in as many words. The reference, though
written by the author, is fenced like the rest: it is data to compare against, not instructions.

A case without a reference answer (or an item without a case) is unscorable with that reason:
there is nothing to compare with, and a missing input is never a pass.
"""

from __future__ import annotations

from trailcheck.judge.pinning import PinnedModelJudge
from trailcheck.judge.render import Section, answer_section, input_section, render_sections
from trailcheck.judge.structured import ask_verdict
from trailcheck.judge.untrusted import untrusted_notice
from trailcheck.judge.verdict import JudgeItem, Judging
from trailcheck.models.chat import ChatModel
from trailcheck.trace import Message

__all__ = ["REFERENCE_TEMPLATE", "ReferenceJudge"]

REFERENCE_TEMPLATE = {
    "system": (
        "You compare an AI agent's answer with a reference answer written by a person. The"
        " answer passes if it conveys the facts and conclusions of the reference without"
        " contradicting it. Information beyond the reference is accepted only when it is"
        " correct and relevant to the user's request; incorrect or irrelevant additions fail"
        " the answer. Give no credit for length: a longer or more detailed answer is not"
        " better for being longer. Answer with a JSON object: evidence (short quotes from the"
        " answer and the reference), passed_criteria and failed_criteria (what matched and what"
        " did not), failure_mode (a short snake_case name, or null), passed. {notice}"
    ),
    "user": (
        "Criterion: {criterion}\n\n{evidence}\n\n"
        "Does the answer match the reference answer? Answer with the JSON object only."
    ),
}


class ReferenceJudge(PinnedModelJudge):
    """A :class:`~trailcheck.judge.Judge` of the answer against the reference; see the module."""

    def __init__(self, model: ChatModel, *, retries: int = 1) -> None:
        super().__init__(
            model, kind="reference", retries=retries, template=dict(REFERENCE_TEMPLATE)
        )

    def messages(self, item: JudgeItem, reference: str) -> list[Message]:
        rendered = render_sections(
            [
                input_section(item.trace),
                Section("Reference answer", "reference answer", reference),
                answer_section(item.trace, heading="Agent's answer"),
            ],
            seed=item.criterion,
        )
        system = REFERENCE_TEMPLATE["system"].format(notice=untrusted_notice(rendered.boundary))
        criterion = item.criterion or "the answer matches the reference answer"
        user = REFERENCE_TEMPLATE["user"].format(criterion=criterion, evidence=rendered.text)
        return [Message(role="system", content=system), Message(role="user", content=user)]

    async def judge(self, item: JudgeItem) -> Judging:
        reference = item.case.reference_response if item.case is not None else None
        if reference is None or not reference.strip():
            where = (
                "the item has no case"
                if item.case is None
                else f"case {item.case.id!r} has no reference_response"
            )
            return Judging.unscorable(
                item_id=item.item_id,
                criterion=item.criterion,
                judge_version=self._version,
                reason=f"no reference answer to compare with: {where}",
                attempts=0,
            )
        return await ask_verdict(
            self._model,
            self.messages(item, reference),
            item_id=item.item_id,
            criterion=item.criterion,
            judge_version=self._version,
            retries=self._retries,
        )
