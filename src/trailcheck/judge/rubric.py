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

from trailcheck.errors import UsageError
from trailcheck.judge.pinning import PinnedModelJudge
from trailcheck.judge.render import render_evidence
from trailcheck.judge.structured import ask_verdict
from trailcheck.judge.untrusted import untrusted_notice
from trailcheck.judge.verdict import JudgeItem, Judging
from trailcheck.models.chat import ChatModel
from trailcheck.trace import Message

__all__ = ["RUBRIC_TEMPLATES", "RubricJudge"]

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


class RubricJudge(PinnedModelJudge):
    """A :class:`~trailcheck.judge.Judge` of the item's criterion; see the module."""

    def __init__(self, model: ChatModel, *, template_version: str = "1", retries: int = 1):
        if template_version not in RUBRIC_TEMPLATES:
            known = ", ".join(sorted(RUBRIC_TEMPLATES))
            raise UsageError(f"no rubric template {template_version!r} (known: {known})")
        self._template = RUBRIC_TEMPLATES[template_version]
        super().__init__(
            model,
            kind="rubric",
            retries=retries,
            template_version=template_version,
            template=dict(self._template),
        )

    def messages(self, item: JudgeItem) -> list[Message]:
        """The prompt for ``item``, exactly as the model receives it."""
        rendered = render_evidence(item)
        system = self._template["system"].format(notice=untrusted_notice(rendered.boundary))
        user = self._template["user"].format(criterion=item.criterion, evidence=rendered.text)
        return [Message(role="system", content=system), Message(role="user", content=user)]

    async def judge(self, item: JudgeItem) -> Judging:
        if not item.criterion.strip():
            return Judging.unscorable(
                item_id=item.item_id,
                criterion=item.criterion,
                judge_version=self._version,
                reason="no criterion to judge: the rubric is empty",
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
