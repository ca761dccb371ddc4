"""A judged item's evidence as prompt text, every piece from the trace in an untrusted block.

The judges show the same things the same way: the user's input, the trajectory (each tool call
in order, with its arguments and its result or error), the tool declarations, and the final
answer. A :class:`Section` is one heading (trailcheck's words) and one piece of data (the run's
words); :func:`render_sections` derives the prompt's boundary from all of the data and fences
each piece with it (see :mod:`trailcheck.judge.untrusted`). A piece that is absent is said to
be absent, outside any block, rather than left out: a judge told nothing about tool declarations
might assume there were none.

Tool declarations come from ``trace.metadata["tool_declarations"]`` (or ``["tools"]``), else
``case.metadata["tool_declarations"]``: a list of ``{name, description, parameters}`` objects
as :class:`~trailcheck.models.ToolDeclaration` dumps them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from trailcheck.components import TOOL_DECLARATIONS_KEY, declared_tools
from trailcheck.judge.untrusted import delimit, new_boundary
from trailcheck.judge.verdict import JudgeItem
from trailcheck.trace import ToolCall, Trace

__all__ = [
    "TOOL_DECLARATIONS_KEY",
    "Rendered",
    "Section",
    "answer_section",
    "declarations_section",
    "input_section",
    "render_evidence",
    "render_sections",
    "tool_declarations",
    "trajectory_sections",
]


@dataclass(frozen=True, slots=True)
class Section:
    """A heading and the data under it; ``data`` None shows ``absent`` instead of a block."""

    heading: str
    label: str
    data: str | None
    absent: str = "(none)"


@dataclass(frozen=True, slots=True)
class Rendered:
    """Prompt text and the boundary its blocks use (the system prompt names it)."""

    text: str
    boundary: str


def render_sections(sections: Sequence[Section], *, seed: str = "") -> Rendered:
    """The sections as text, fenced with a boundary derived from ``seed`` and all their data."""
    pieces = [seed, *(section.data or "" for section in sections)]
    boundary = new_boundary("\x00".join(pieces))
    parts = []
    for section in sections:
        body = (
            section.absent
            if section.data is None
            else delimit(section.label, section.data, boundary)
        )
        parts.append(f"## {section.heading}\n{body}")
    return Rendered("\n\n".join(parts), boundary)


def input_section(trace: Trace) -> Section:
    text = trace.input_text
    return Section("User input", "user input", text or None, "(the trace records no user input)")


def trajectory_sections(trace: Trace) -> list[Section]:
    """One section per tool call, in order; one saying so when the agent called none."""
    calls = trace.tool_calls
    if not calls:
        return [Section("Trajectory", "trajectory", None, "(the agent called no tools)")]
    return [
        Section(f"Tool call {number} of {len(calls)}", f"tool call {number}", _call_text(call))
        for number, call in enumerate(calls, start=1)
    ]


def declarations_section(item: JudgeItem) -> Section:
    declarations = tool_declarations(item)
    return Section(
        "Tool declarations",
        "tool declarations",
        None if declarations is None else _json(declarations),
        "(not available: the trace and the case record no tool declarations)",
    )


def answer_section(trace: Trace, *, heading: str = "Final answer") -> Section:
    text = trace.final_text
    return Section(heading, "final answer", text or None, "(the agent gave no final answer)")


def render_evidence(item: JudgeItem) -> Rendered:
    """User input, trajectory, tool declarations and final answer of the item."""
    sections = [
        input_section(item.trace),
        *trajectory_sections(item.trace),
        declarations_section(item),
        answer_section(item.trace),
    ]
    return render_sections(sections, seed=item.criterion)


def tool_declarations(item: JudgeItem) -> list[Any] | None:
    """The tools the agent was given, from the trace's metadata or the case's; None when
    neither records them (:func:`~trailcheck.components.declared_tools`)."""
    return declared_tools(item.trace, item.case)


def _call_text(call: ToolCall) -> str:
    lines = [f"name: {call.name}", f"arguments: {_json(call.arguments)}"]
    if call.error is not None:
        lines.append(f"error: {call.error}")
    else:
        result = call.recorded_result
        lines.append(f"result: {result if isinstance(result, str) else _json(result)}")
    return "\n".join(lines)


def _json(value: Any) -> str:
    return orjson.dumps(value, default=str, option=orjson.OPT_SORT_KEYS).decode()
