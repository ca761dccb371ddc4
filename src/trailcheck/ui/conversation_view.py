"""Simulated users on the trace page: who said what in a conversation a simulator took part in.

The runner records each simulated user turn as a span with ``trailcheck.user.simulated = true``
and the turn's message, model and whether it was replayed from a baseline
(:func:`trailcheck.run.conversation.user_turn_attributes`). :func:`turn_note` marks such a span
in the waterfall as a "simulated user" turn with its message; :func:`conversation_section`
lays the conversation out: the simulated turns, and between them the agent's answers where the
trace has them (a model call's output that asks for no tool: the answer of that turn). Every
message is shown as escaped text.
"""

from __future__ import annotations

from typing import Any, Final

from trailcheck.report.html_markup import Html, el, join
from trailcheck.trace import Span, Trace

__all__ = ["conversation_section", "is_simulated_turn", "turn_note"]

_SIMULATED: Final = "trailcheck.user.simulated"
_MESSAGE: Final = "trailcheck.user.message"
_REPLAYED: Final = "trailcheck.user.replayed"
_MODEL: Final = "trailcheck.user.model"


def _true(value: Any) -> bool:
    # OTLP carries a bool as a bool; a store or a converter on the way may have made it text.
    return value is True or (isinstance(value, str) and value.lower() == "true")


def is_simulated_turn(span: Span) -> bool:
    """Whether ``span`` records a turn said by a simulated user."""
    return _true(span.attributes.get(_SIMULATED))


def _who(span: Span) -> str:
    return "simulated user" + (" (replayed)" if _true(span.attributes.get(_REPLAYED)) else "")


def turn_note(span: Span) -> Html | None:
    """The mark of a simulated user's turn in the waterfall: who, and what they said."""
    if not is_simulated_turn(span):
        return None
    return el(
        "div",
        el("span", _who(span), class_="label"),
        " ",
        el("q", str(span.attributes.get(_MESSAGE, ""))),
        data_testid="simulated-turn",
    )


def _answer(span: Span) -> str | None:
    """The text a model call answered with, when it asked for no tool (a turn's answer)."""
    if span.llm is None:
        return None
    said = [m for m in span.llm.output_messages or [] if m.role == "assistant"]
    if not said or said[-1].tool_calls or not said[-1].text:
        return None
    return said[-1].text


def _row(who: str, text: str, speaker: str, model: str | None = None) -> Html:
    return el(
        "tr",
        el("th", who, el("div", model, class_="meta") if model else None),
        el("td", el("pre", text)),
        data_testid="conversation-turn",
        data_speaker=speaker,
    )


def conversation_section(trace: Trace) -> Html | None:
    """The conversation of a trace with simulated user turns; ``None`` for any other trace."""
    spans = sorted(trace.spans, key=lambda span: (span.start_ns, span.span_id))
    if not any(is_simulated_turn(span) for span in spans):
        return None
    rows = []
    for span in spans:
        if is_simulated_turn(span):
            model = span.attributes.get(_MODEL)
            message = str(span.attributes.get(_MESSAGE, ""))
            rows.append(_row(_who(span), message, "user", str(model) if model else None))
        elif (answer := _answer(span)) is not None:
            rows.append(_row("agent", answer, "agent"))
    return el(
        "section",
        el("h2", "Conversation"),
        el(
            "p",
            "Who said what: the simulated user's turns and the agent's answers the trace"
            " recorded. A case's fixed turns come first; they are in the input above.",
            class_="meta",
        ),
        el("table", join(rows), class_="conversation"),
        id="conversation",
    )
