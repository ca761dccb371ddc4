"""The attribution judge's prompts: versioned templates, and a run's steps as fenced evidence.

Each step (:func:`~trailcheck.scorers.steps.trace_steps`) is shown in an untrusted block of its
own, under a heading with its number (trailcheck's words); what the block holds is the run's:
the span's name and kind, the agent that took it, and what it did (a tool call's arguments and
result or error, a model's output and the tool calls it asked for, or the ``input.value`` and
``output.value`` other spans record). The user's input, the case's reference answer and
expected tools (when there is a case) and the final answer are fenced the same way: the
reference, though the dataset author's, is data to compare against, not instructions.

A template version holds the system prompt and one user prompt per question the strategies ask
(:mod:`trailcheck.judge.attribution` says which asks what). The version of a judge pins the
system prompt and the prompts of its strategy, so a change to one strategy's prompt leaves the
calibration of the others standing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import orjson

from trailcheck.cases import Case
from trailcheck.judge.render import Rendered, Section, answer_section, input_section
from trailcheck.judge.render import render_sections as render_fenced
from trailcheck.scorers.steps import step_agent
from trailcheck.trace import Span, ToolInvocation, Trace
from trailcheck.trace.semconv import INPUT_VALUE, OUTPUT_VALUE

__all__ = ["ATTRIBUTION_TEMPLATES", "CATEGORY_GUIDE", "render_steps", "step_text"]

CATEGORY_GUIDE: Final = (
    "wrong_tool (called a tool that does not fit the step), wrong_argument (a wrong or missing"
    " argument), tool_returned_wrong_data (a tool or another agent returned wrong data),"
    " misread_tool_result (a correct result read wrongly), unsupported_claim (stated something"
    " no result supports), policy_breach (broke a rule it was given), gave_up_or_looped"
    " (stopped early, or repeated itself without progress), simulated_user_error (the user's"
    " side erred), infrastructure (a timeout, crash or outage, not a decision)"
)

_SYSTEM_1: Final = (
    "You find where a failed run of an AI agent, or of a team of agents, first went wrong. The"
    " run is shown as numbered steps: each is one action (an agent's message, a model call, a"
    " tool call) with what it produced. The run failed. The decisive mistake is the first step"
    " whose output was already wrong in a way that led to the failure; the error that shows is"
    " often later than the mistake that caused it (a search that returned the wrong order,"
    " three steps before the refund that failed). Judge only from the data shown, and do not"
    " be overly critical: a step that merely could have been better is not the decisive"
    " mistake. Categories of mistake: " + CATEGORY_GUIDE + ". Answer with a JSON object that"
    " follows the required schema: every field present, no other fields. {notice}"
)

ATTRIBUTION_TEMPLATES: dict[str, dict[str, str]] = {
    "1": {
        "system": _SYSTEM_1,
        "step_by_step": (
            "{evidence}\n\nThe steps up to step {step} are shown; the run went on after it."
            " Is step {step} the decisive mistake: the first step whose output was wrong in a"
            " way that led the run to fail? Answer with a JSON object: evidence (short quotes"
            " from the data, and why), decisive_mistake (true or false), category (the"
            " category of the mistake when decisive_mistake is true, else null)."
        ),
        "binary_search": (
            "{evidence}\n\nThe decisive mistake is at one of steps {low} to {high}. Is it at"
            " {first_half} (the first half), or at {second_half} (the second half)? If no step"
            " is clearly wrong, choose the half holding the step most responsible for the"
            " failure. Answer with a JSON object: evidence (short quotes from the data, and"
            ' why), half ("first" or "second").'
        ),
        "binary_search_final": (
            "{evidence}\n\nThe decisive mistake was made at step {step}. Say what it was."
            " Answer with a JSON object: evidence (short quotes from the data, and why),"
            " category (the category of the mistake)."
        ),
        "all_at_once": (
            "{evidence}\n\nAt which step was the decisive mistake made, and by which agent?"
            " Answer with a JSON object: evidence (short quotes from the data, and why), step"
            " (its number, from 1 to {count}), agent (the agent that took that step, as the"
            " step names it, or null when the step names none), category (the category of the"
            " mistake)."
        ),
    },
}


def step_text(trace: Trace, span: Span) -> str:
    """What one step did, as the run recorded it (see the module)."""
    lines = [f"span: {span.name}", f"kind: {span.kind}"]
    agent = step_agent(trace, span)
    if agent is not None:
        lines.append(f"agent: {agent}")
    if span.tool is not None:
        lines += _tool_lines(span.tool)
    else:
        lines += _model_lines(span)
        for key, label in ((INPUT_VALUE, "input"), (OUTPUT_VALUE, "output")):
            value = span.attributes.get(key)
            if value is not None:
                lines.append(f"{label}: {value if isinstance(value, str) else _json(value)}")
        if span.status.code == "error":
            lines.append(f"status: error: {span.status.message or '(no message)'}")
    return "\n".join(lines)


def _tool_lines(tool: ToolInvocation) -> list[str]:
    lines = [f"tool: {tool.name}", f"arguments: {_json(tool.arguments)}"]
    if tool.error is not None:
        return [*lines, f"error: {tool.error}"]
    result = tool.result
    return [*lines, f"result: {result if isinstance(result, str) else _json(result)}"]


def _model_lines(span: Span) -> list[str]:
    lines: list[str] = []
    messages = span.llm.output_messages if span.llm is not None else None
    for message in messages or []:
        if message.text:
            lines.append(f"model output: {message.text}")
        lines += [f"asked for tool: {c.name} {_json(c.arguments)}" for c in message.tool_calls]
    return lines


def render_steps(trace: Trace, case: Case | None, steps: Sequence[Span], *, total: int) -> Rendered:
    """The run's input, the case's expectations, the numbered ``steps`` (the first ``len(steps)``
    of ``total``) and the final answer, each piece of data fenced."""
    sections = [input_section(trace), *_case_sections(case)]
    sections += [
        Section(f"Step {number} of {total}", f"step {number}", step_text(trace, span))
        for number, span in enumerate(steps, start=1)
    ]
    if not steps:
        sections.append(Section("Steps", "steps", None, "(the run recorded no steps)"))
    sections.append(answer_section(trace))
    return render_fenced(sections)


def _case_sections(case: Case | None) -> list[Section]:
    reference = case.reference_response if case is not None else None
    expected = case.expected_tools if case is not None else None
    return [
        Section(
            "Reference answer",
            "reference answer",
            reference or None,
            "(none: judge from the run alone)",
        ),
        Section(
            "Expected tool calls",
            "expected tool calls",
            None if expected is None else _json(expected),
            "(none given)",
        ),
    ]


def _json(value: Any) -> str:
    return orjson.dumps(value, default=str, option=orjson.OPT_SORT_KEYS).decode()
