"""The task-completion judge: reading the conversation alone, was the user's request met?

Reference-free: there is no case and no expected answer, so the judge reads what the trace
holds (the user's input, every tool call with its arguments and its result or error, the tool
declarations when recorded, and the final answer, each in an untrusted block) and decides
whether the agent did what was asked. Online traffic has nothing else to compare with.

What counts as met is spelled out in the prompt, because a judge left to itself is lenient: an
answer that only promises to act, asks the user to do the work, answers another question, or
claims an action the tool results do not show has not met the request; a refusal meets it only
when the request is one the agent should refuse. When the data does not show the request met,
it is not met.

A trace with no user input is unscorable without asking the model: there is no request to
judge, and a missing input is never a pass. An agent that gave no answer is judged (and fails,
unless its tool calls did what was asked): that is a failure of the agent, not of the data.

Templates are kept by version (``template_version``), as the rubric judge's are.
"""

from __future__ import annotations

from typing import Final

from trailcheck.judge.rubric import TemplateJudge
from trailcheck.judge.verdict import JudgeItem

__all__ = ["TASK_COMPLETION_CRITERION", "TASK_COMPLETION_TEMPLATES", "TaskCompletionJudge"]

TASK_COMPLETION_CRITERION: Final = "The agent met the user's request."
"""The criterion shown when the item brings none (online items carry this one)."""

TASK_COMPLETION_TEMPLATES: dict[str, dict[str, str]] = {
    "1": {
        "system": (
            "You judge whether an AI agent met its user's request, reading only the"
            " conversation: the user's input, the tool calls the agent made with their results,"
            " and the agent's final answer. There is no reference answer. The request is met"
            " when the agent did what the user asked, or answered what the user asked, fully"
            " and correctly as far as the data shows. It is not met when the agent only"
            " promises to act, asks the user to do the work, answers a different question,"
            " stops part way, or claims an action or a fact that the tool results do not show;"
            " a refusal meets the request only when the request is one the agent should"
            " refuse. When the data does not show that the request was met, it was not met."
            " Answer with a JSON object: evidence (short quotes from the data your verdict"
            " rests on), passed_criteria and failed_criteria (the parts of the request met"
            " and not met), failure_mode (a short snake_case name of how the agent fell short,"
            " or null), passed (true only if the whole request was met). {notice}"
        ),
        "user": (
            "Criterion: {criterion}\n\n{evidence}\n\n"
            "Was the user's request met? Answer with the JSON object only."
        ),
    },
}


class TaskCompletionJudge(TemplateJudge):
    """A :class:`~trailcheck.judge.Judge` of whether the user's request was met; see the
    module."""

    kind = "task_completion"
    templates = TASK_COMPLETION_TEMPLATES

    def criterion(self, item: JudgeItem) -> str:
        return item.criterion.strip() or TASK_COMPLETION_CRITERION

    def unjudgeable(self, item: JudgeItem) -> str | None:
        if not item.trace.input_text.strip():
            return "no request to judge: the trace records no user input"
        return None
