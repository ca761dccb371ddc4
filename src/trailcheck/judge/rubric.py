"""The rubric judge: does one run meet one explicit criterion?

One criterion per judging, decomposed by the rubric's author ("did the agent verify identity
before the refund call?", not "was the trajectory good?"; :func:`~trailcheck.judge.lint_rubric`
flags the latter). The prompt shows the user's input, every tool call with its arguments and
result, the tool declarations and the final answer, each in an untrusted block; the criterion
is the dataset author's and stands outside them.

Templates are kept by version (``template_version``), so an old judge, and its calibration, can
be rebuilt exactly; the version of a judge hashes its kind, model, settings and template text.
"""

from __future__ import annotations

from typing import ClassVar

from trailcheck.errors import UsageError
from trailcheck.judge.pinning import PinnedModelJudge
from trailcheck.judge.render import render_evidence
from trailcheck.judge.structured import ask_verdict
from trailcheck.judge.untrusted import untrusted_notice
from trailcheck.judge.verdict import JudgeItem, Judging
from trailcheck.models.chat import ChatModel
from trailcheck.trace import Message

__all__ = ["RUBRIC_TEMPLATES", "RubricJudge", "TemplateJudge"]

RUBRIC_TEMPLATES: dict[str, dict[str, str]] = {
    "1": {
        "system": (
            "You evaluate one run of an AI agent against exactly one criterion. Judge only from"
            " the data shown: when the data does not show that the criterion is met, it is not"
            " met. Answer with a JSON object: evidence (short quotes from the data your verdict"
            " rests on), passed_criteria and failed_criteria (the criterion, in the list it"
            " belongs to), failure_mode (a short snake_case name of how the run failed, or"
            " null), passed (true only if the criterion is met). {notice}"
        ),
        "user": (
            "Criterion: {criterion}\n\n{evidence}\n\n"
            "Does the run meet the criterion? Answer with the JSON object only."
        ),
    },
}


class TemplateJudge(PinnedModelJudge):
    """A judge asking its model for a :class:`~trailcheck.judge.Verdict` on one item through a
    versioned prompt template (``system`` and ``user``, filled with the criterion and the item's
    evidence, each piece of the run fenced as untrusted). A subclass names its ``kind`` and
    ``templates``, and says when an item cannot be judged without asking (:meth:`unjudgeable`).
    """

    kind: ClassVar[str]
    templates: ClassVar[dict[str, dict[str, str]]]

    def __init__(self, model: ChatModel, *, template_version: str = "1", retries: int = 1):
        if template_version not in self.templates:
            known = ", ".join(sorted(self.templates))
            raise UsageError(f"no {self.kind} template {template_version!r} (known: {known})")
        self._template = self.templates[template_version]
        super().__init__(
            model,
            kind=self.kind,
            retries=retries,
            template_version=template_version,
            template=dict(self._template),
        )

    def criterion(self, item: JudgeItem) -> str:
        """The criterion the prompt states: the item's."""
        return item.criterion

    def unjudgeable(self, item: JudgeItem) -> str | None:
        """Why ``item`` cannot be judged without asking the model, or None when it can."""
        return None

    def messages(self, item: JudgeItem) -> list[Message]:
        """The prompt for ``item``, exactly as the model receives it."""
        rendered = render_evidence(item)
        system = self._template["system"].format(notice=untrusted_notice(rendered.boundary))
        user = self._template["user"].format(criterion=self.criterion(item), evidence=rendered.text)
        return [Message(role="system", content=system), Message(role="user", content=user)]

    async def judge(self, item: JudgeItem) -> Judging:
        reason = self.unjudgeable(item)
        if reason is not None:
            return Judging.unscorable(
                item_id=item.item_id,
                criterion=item.criterion,
                judge_version=self._version,
                reason=reason,
                attempts=0,
            )
        return await ask_verdict(
            self._model,
            self.messages(item),
            item_id=item.item_id,
            criterion=item.criterion,
            judge_version=self._version,
            retries=self._retries,
        )


class RubricJudge(TemplateJudge):
    """A :class:`~trailcheck.judge.Judge` of the item's criterion; see the module."""

    kind = "rubric"
    templates = RUBRIC_TEMPLATES

    def unjudgeable(self, item: JudgeItem) -> str | None:
        if not item.criterion.strip():
            return "no criterion to judge: the rubric is empty"
        return None
