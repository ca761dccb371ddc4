"""Tool calls that the model's messages record, joined with the tool spans that record the same
calls: one :class:`~trailcheck.trace.ToolCall` per call, however many places record it.

The most common auto-instrumentations (the official OpenTelemetry OpenAI instrumentation,
OpenInference's) make no tool span at all: a call lives only in the llm spans' messages, asked
for in an assistant message (name, id, arguments) and answered by a later ``role: tool`` message
with its ``tool_call_id``. Other sources record both. The rule, over the llm spans in start order
(an llm span under another llm span that records messages is the same model call instrumented
twice, and is skipped):

- **Requests.** Each assistant tool call in a span's *output* messages is a call, placed at that
  span's end, then by position. A call met first in a later span's *input* messages (the history
  it was sent; its requesting span is not in this trace) is placed at that span's start, then by
  position; only the user's latest turn of a history counts (what precedes its last user
  message that is not only tool results is an earlier turn of the conversation, whose calls
  another trace holds). Calls are the same call when their ids are equal; calls without an id
  are matched by occurrence: the n-th history request of one tool with the same arguments is
  the n-th call of it already known (and the n-th id-less answer of a tool in a history, the
  n-th answer).
- **Answers.** A ``tool`` message answers the call its ``tool_call_id`` (or, for a message of
  GenAI parts, each ``tool_call_response`` part's ``id``) names; without an id, the earliest
  unanswered call of the tool the message names; naming neither, the call in its place among
  the calls of the assistant message before it (tool messages follow their calls in order),
  or, where that message records no calls (litellm), the earliest unanswered call of any
  tool. The answer is kept as recorded (text, or the response value). A call never answered
  has no result; it is still a call. A response part marked ``is_error`` (a failed Anthropic
  ``tool_result`` block, as the importers record it) is the call's error, its text the
  error's; it has no result.
- **Pairing with tool spans.** A request whose id is a tool span's call id is that span's call;
  a tool span without a call id takes the earliest unpaired request of its tool, asked for no
  later than the span started, whose arguments are the span's (or the span recorded none). The
  span wins for timing, error and whatever it recorded; arguments and result it did not record
  come from the messages, and ``ToolCall.from_messages`` names them. In a trace with no tool
  span, each request is a call with ``source="message"`` and the requesting llm span's id as
  ``span_id``; in a trace with tool spans, a request no span answers did not run
  (:mod:`trailcheck.trace.tool_calls`).

Otherwise messages record no failure: OpenAI's tool message has no error flag, so a failed
call there is a call whose result is the error's text.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trailcheck.trace.canonical import canonical_json
from trailcheck.trace.derived import message_text
from trailcheck.trace.messages import Message, MessageToolCall
from trailcheck.trace.span import Span

_TOOL_CALL_RESPONSE = "tool_call_response"
_TOOL_RESULT_TYPES = frozenset({_TOOL_CALL_RESPONSE, "tool_result", "toolResult"})

# Order keys share one shape: (time, explicit sequence missing, sequence, position, span id).
OrderKey = tuple[int, bool, int, int, str]


@dataclass(slots=True)
class RequestedCall:
    """A tool call as the messages record it, with its answer once one is found."""

    call_id: str | None
    name: str
    arguments: dict[str, Any]
    span: Span
    order: OrderKey
    signature: tuple[str, Hashable]  # tool name and canonical arguments
    answered: bool = False
    result: Any = None
    error: str | None = None
    paired: bool = field(default=False)


def speaking_model_spans(spans: Sequence[Span]) -> list[Span]:
    """The llm spans whose messages count, in start order: not those under an llm span that
    records messages (one model call instrumented twice)."""
    by_id = {span.span_id: span for span in spans}

    def under_recording_llm(span: Span) -> bool:
        parent = span.parent_id
        while parent is not None and parent in by_id:
            above = by_id[parent]
            if above.llm is not None and (above.llm.input_messages or above.llm.output_messages):
                return True
            parent = above.parent_id
        return False

    model_spans = [span for span in spans if span.llm is not None]
    model_spans.sort(key=lambda span: (span.start_ns, span.span_id))
    return [span for span in model_spans if not under_recording_llm(span)]


def requested_calls(spans: Sequence[Span]) -> list[RequestedCall]:
    """Every tool call the messages of ``spans`` ask for, answered where they are answered."""
    ledger = _Ledger()
    for span in speaking_model_spans(spans):
        assert span.llm is not None  # speaking_model_spans keeps llm spans only
        history = span.llm.input_messages or ()
        ledger.read(span, history[_this_turn(history) :], span.start_ns, history=True)
        end = span.end_ns if span.end_ns is not None else span.start_ns
        ledger.read(span, span.llm.output_messages or (), end, history=False)
    return ledger.calls


def _this_turn(history: Sequence[Message]) -> int:
    """Where the user's latest turn starts in a model call's history: what comes before it
    belongs to earlier turns of the conversation, whose calls are not this trace's."""
    for position in range(len(history) - 1, -1, -1):
        if history[position].role == "user" and not _only_tool_results(history[position]):
            return position
    return 0


def _only_tool_results(message: Message) -> bool:
    """A user message that only carries tool results (as some providers send them), not a
    user's turn. A message whose content was not captured is a turn all the same."""
    content = message.content
    return (
        isinstance(content, list)
        and bool(content)
        and all(part.get("type") in _TOOL_RESULT_TYPES for part in content)
    )


class _Ledger:
    def __init__(self) -> None:
        self.calls: list[RequestedCall] = []
        self._by_id: dict[str, RequestedCall] = {}
        self._idless: dict[Hashable, list[RequestedCall]] = {}  # by signature, in order
        self._idless_answers: dict[str | None, int] = {}  # id-less answers settled, by tool

    def read(self, span: Span, messages: Sequence[Message], time: int, *, history: bool) -> None:
        seen_in_history: dict[Hashable, int] = {}
        answers_in_history: dict[str | None, int] = {}
        asked: list[RequestedCall] = []  # the latest assistant message's calls, in order
        nameless = 0  # tool messages naming nothing since that message
        for position, message in enumerate(messages):
            if message.role == "assistant":
                asked, nameless = [], 0
                for offset, requested in enumerate(message.tool_calls):
                    order = (time, True, 0, position * 1000 + offset, span.span_id)
                    asked.append(self._request(requested, span, order, history, seen_in_history))
            elif message.role == "tool":
                if not _names_nothing(message):
                    self._answer(message, answers_in_history if history else None)
                elif asked:
                    if nameless < len(asked) and not asked[nameless].answered:
                        asked[nameless].answered = True
                        asked[nameless].result = message.content
                    nameless += 1
                else:
                    self._settle(None, None, message.content, answers_in_history)

    def _request(
        self,
        requested: MessageToolCall,
        span: Span,
        order: OrderKey,
        history: bool,
        seen_in_history: dict[Hashable, int],
    ) -> RequestedCall:
        signature = (requested.name, canonical_json(requested.arguments))
        if requested.id is not None:
            if requested.id in self._by_id:
                return self._by_id[requested.id]
        elif history:
            occurrence = seen_in_history.get(signature, 0)
            seen_in_history[signature] = occurrence + 1
            known = self._idless.get(signature, [])
            if occurrence < len(known):
                return known[occurrence]
        call = RequestedCall(
            requested.id, requested.name, requested.arguments, span, order, signature
        )
        self.calls.append(call)
        if requested.id is not None:
            self._by_id[requested.id] = call
        else:
            self._idless.setdefault(signature, []).append(call)
        return call

    def _answer(self, message: Message, answers_in_history: dict[str | None, int] | None) -> None:
        if isinstance(message.content, list):
            responses = [p for p in message.content if p.get("type") == _TOOL_CALL_RESPONSE]
            if responses:
                for part in responses:
                    result = part["response"] if "response" in part else part.get("result")
                    self._settle(
                        part.get("id"), message.name, result, answers_in_history, _failure(part)
                    )
                return
        self._settle(message.tool_call_id, message.name, message.content, answers_in_history)

    def _settle(
        self,
        call_id: Any,
        tool_name: str | None,
        result: Any,
        answers_in_history: dict[str | None, int] | None,
        error: str | None = None,
    ) -> None:
        if isinstance(call_id, str):
            call = self._by_id.get(call_id)
        else:
            if answers_in_history is not None:
                # The n-th id-less answer of a tool in a history is the n-th one already read
                # when there are that many: a later span sent the same conversation again.
                occurrence = answers_in_history.get(tool_name, 0)
                answers_in_history[tool_name] = occurrence + 1
                if occurrence < self._idless_answers.get(tool_name, 0):
                    return
            call = next(
                (
                    c
                    for c in self.calls
                    if not c.answered and (tool_name is None or c.name == tool_name)
                ),
                None,
            )
        if call is not None and not call.answered:
            call.answered = True
            call.result = None if error is not None else result
            call.error = error
            if not isinstance(call_id, str):
                self._idless_answers[tool_name] = self._idless_answers.get(tool_name, 0) + 1


def _names_nothing(message: Message) -> bool:
    """A tool message that names neither the call it answers nor its tool."""
    if message.tool_call_id is not None or message.name is not None:
        return False
    content = message.content
    return not (
        isinstance(content, list)
        and any(part.get("type") == _TOOL_CALL_RESPONSE for part in content)
    )


def _failure(part: dict[str, Any]) -> str | None:
    """The error a tool response part reports: its text when it is marked ``is_error``."""
    if part.get("is_error") is not True:
        return None
    response = part.get("response")
    if isinstance(response, list):  # content blocks: their text
        response = message_text([block for block in response if isinstance(block, dict)])
    text = response if isinstance(response, str) else json.dumps(response, default=str)
    return text or "the tool reported an error"
