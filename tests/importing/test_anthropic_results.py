"""A failed tool result in an Anthropic request body
(:mod:`trailcheck.importing.shapes.anthropic_results`)."""

from __future__ import annotations

import json

from trailcheck.importing.shapes.anthropic_results import with_failed_results
from trailcheck.trace import Message

USER = Message(role="user", content="Where are B-2 and A-1?")


def request(*results: dict[str, object]) -> str:
    return json.dumps(
        {
            "model": "m",
            "messages": [
                {"role": "user", "content": "Where are B-2 and A-1?"},
                {"role": "user", "content": list(results)},
            ],
        }
    )


def tool(call_id: str, content: str) -> Message:
    return Message(role="tool", tool_call_id=call_id, content=content)


def test_the_tool_message_of_a_result_marked_is_error_becomes_a_failed_response() -> None:
    body = request(
        {"type": "tool_result", "tool_use_id": "t1", "content": "no B-2", "is_error": True},
        {"type": "tool_result", "tool_use_id": "t2", "content": "late"},
    )
    messages = [USER, tool("t1", "no B-2"), tool("t2", "late")]
    marked = with_failed_results(messages, body)
    assert marked[0] == USER
    assert marked[1].content == [
        {"type": "tool_call_response", "id": "t1", "response": "no B-2", "is_error": True}
    ]
    assert marked[2] == messages[2]


def test_a_request_without_a_failed_result_or_not_json_changes_nothing() -> None:
    messages = [USER, tool("t1", "no B-2")]
    ok = request({"type": "tool_result", "tool_use_id": "t1", "content": "x", "is_error": False})
    for body in (ok, '{"is_error": true', None, '"is_error": true'):
        assert with_failed_results(messages, body) is messages
