"""Failed tool results of an Anthropic Messages request.

Anthropic marks a failed tool call in the next request: the user message's ``tool_result`` block
carries ``is_error: true``. OpenInference's Anthropic instrumentation flattens that block into a
plain ``tool`` message and drops the flag; the request body it keeps in ``input.value`` still
holds it (anthropic-2.17.0-openinference-3.1.0 in the conformance corpus). A tool message that
answers such a block becomes a GenAI ``tool_call_response`` part marked ``is_error``, which the
trace reads as the call's error (:mod:`trailcheck.trace.message_calls`).
"""

from __future__ import annotations

from typing import Any

import orjson

from trailcheck.trace import Message

_FLAG = '"is_error"'


def with_failed_results(messages: list[Message], request: Any) -> list[Message]:
    """``messages`` with each tool message that answers a failed ``tool_result`` block of
    ``request`` (the recorded request body, JSON text) marked as failed."""
    failed = _failed_result_ids(request)
    if not failed:
        return messages
    return [
        _marked(message) if message.role == "tool" and message.tool_call_id in failed else message
        for message in messages
    ]


def _failed_result_ids(request: Any) -> frozenset[str]:
    if not isinstance(request, str) or _FLAG not in request:
        return frozenset()  # most requests: not worth parsing
    try:
        parsed = orjson.loads(request)
    except orjson.JSONDecodeError:
        return frozenset()
    turns = parsed.get("messages") if isinstance(parsed, dict) else None
    if not isinstance(turns, list):
        return frozenset()
    return frozenset(
        block["tool_use_id"]
        for turn in turns
        if isinstance(turn, dict) and isinstance(turn.get("content"), list)
        for block in turn["content"]
        if isinstance(block, dict)
        and block.get("type") == "tool_result"
        and block.get("is_error") is True
        and isinstance(block.get("tool_use_id"), str)
    )


def _marked(message: Message) -> Message:
    part = {
        "type": "tool_call_response",
        "id": message.tool_call_id,
        "response": message.content,
        "is_error": True,
    }
    return message.model_copy(update={"content": [part]})
