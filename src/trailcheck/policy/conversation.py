"""What the user had said when the agent made a call: the conversation before a tool call.

A confirmation rule asks whether the user agreed *before* a write, so it needs the messages that
preceded the call, not the whole run. A trace records them in two places: an llm span's input
messages (the conversation the model saw) with its output messages (where it asked for the
call), and the trace's input when that is a message log (an imported OpenAI conversation). The
call is found in either by its call id, or, without one, as the n-th request of that tool.
A call found in neither was not made by a recorded model turn; what preceded it is then the
input the agent was given.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from trailcheck.trace import Message, ToolCall, Trace


def preceding_messages(trace: Trace, call: ToolCall) -> list[Message]:
    """The messages before the assistant message that requested ``call``."""
    ordinal = sum(1 for other in _calls_before(trace, call) if other.name == call.name)
    for conversation in _conversations(trace):
        position = _request_position(conversation, call, ordinal)
        if position is not None:
            return list(conversation[:position])
    return _input_messages(trace)


def user_confirmed(conversation: Sequence[Message], confirmation: str) -> bool:
    """Whether the user's latest message, sent after the agent last spoke, matches
    ``confirmation``. An agent message with text and no user reply after it voids an earlier
    yes: the user had not answered what the agent said last. Requests for tool calls without
    text, tool results and system messages do not count as either side speaking."""
    for message in reversed(conversation):
        if message.role == "user":
            return re.search(confirmation, message.text) is not None
        if message.role == "assistant" and message.text.strip():
            return False
    return False


def _calls_before(trace: Trace, call: ToolCall) -> Iterator[ToolCall]:
    for other in trace.tool_calls:
        if other.span_id == call.span_id:
            return
        yield other


def _conversations(trace: Trace) -> Iterator[Sequence[Message]]:
    # Later model turns saw more of the conversation, so the trace input (a log holds all of it)
    # comes first and the llm spans after it, latest first.
    if trace.input is not None and not isinstance(trace.input, str):
        yield trace.input
    model_spans = [span for span in trace.spans if span.llm is not None]
    for span in sorted(model_spans, key=lambda span: span.start_ns, reverse=True):
        assert span.llm is not None
        yield [*(span.llm.input_messages or ()), *(span.llm.output_messages or ())]


def _request_position(conversation: Sequence[Message], call: ToolCall, ordinal: int) -> int | None:
    """Where in ``conversation`` the assistant asked for ``call``: by its id when it has one,
    else the ``ordinal``-th (0-based) request of its tool."""
    seen = 0
    for position, message in enumerate(conversation):
        if message.role != "assistant":
            continue
        for requested in message.tool_calls:
            if call.call_id is not None:
                if requested.id == call.call_id:
                    return position
            elif requested.name == call.name:
                if seen == ordinal:
                    return position
                seen += 1
    return None


def _input_messages(trace: Trace) -> list[Message]:
    if isinstance(trace.input, str):
        return [Message(role="user", content=trace.input)]
    return list(trace.input or ())
