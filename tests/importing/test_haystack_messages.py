"""Haystack's ChatMessage reprs read as messages
(:mod:`trailcheck.importing.shapes.haystack_messages`),
shaped as haystack-3.4.1-openinference-0.1.46 records them."""

from __future__ import annotations

import json

import pytest

from trailcheck.errors import RecordError
from trailcheck.importing.shapes.haystack_messages import haystack_messages

USER = (
    "ChatMessage(_role=<ChatRole.USER: 'user'>, _content=[TextContent(text=\"I'm Ana\")],"
    " _name=None, _meta={})"
)
ASKS = (
    "ChatMessage(_role=<ChatRole.ASSISTANT: 'assistant'>, _content=[ToolCall("
    "tool_name='lookup_order', arguments={'order_id': 'B-2'}, id='call_1', extra=None)],"
    " _name=None, _meta={'model': 'm', 'usage': {'prompt_tokens': 3}})"
)
FAILED = (
    "ChatMessage(_role=<ChatRole.TOOL: 'tool'>, _content=[ToolCallResult(result='Failed to"
    " invoke Tool `lookup_order`. Error: order B-2 not found', origin=ToolCall("
    "tool_name='lookup_order', arguments={'order_id': 'B-2'}, id='call_1', extra=None),"
    " error=True)], _name=None, _meta={})"
)
FIELD = "attributes.input.value"


def value(*reprs: str, key: str = "messages") -> str:
    return json.dumps({key: list(reprs), "tools": ["Tool(name='x', function=<function x>)"]})


def test_text_calls_and_a_failed_result_are_read_from_the_reprs() -> None:
    messages = haystack_messages(value(USER, ASKS, FAILED), "messages", FIELD)
    assert messages is not None
    user, asks, failed = messages
    assert (user.role, user.content) == ("user", "I'm Ana")
    [call] = asks.tool_calls
    assert (asks.role, call.id, call.name, call.arguments) == (
        "assistant",
        "call_1",
        "lookup_order",
        {"order_id": "B-2"},
    )
    assert failed.role == "tool"
    assert failed.tool_call_id == "call_1"
    assert failed.content == [
        {
            "type": "tool_call_response",
            "id": "call_1",
            "response": "Failed to invoke Tool `lookup_order`. Error: order B-2 not found",
            "is_error": True,
        }
    ]


def test_values_without_chat_messages_are_not_haystacks() -> None:
    assert haystack_messages('{"messages": ["hi"]}', "messages", FIELD) is None
    assert haystack_messages(value(USER, key="replies"), "messages", FIELD) is None
    assert haystack_messages(None, "messages", FIELD) is None


@pytest.mark.parametrize(
    "broken",
    [
        USER.replace("TextContent", "ImageContent"),  # a part no reader knows
        "ChatMessage(_role=<ChatRole.USER: 'user'>, _content=[TextContent(text=__import__('os'))])",
        "ChatMessage(_role=<ChatRole.ROBOT: 'robot'>, _content=[])",
        "ChatMessage(",
    ],
)
def test_a_repr_of_another_shape_is_not_understood_and_nothing_is_evaluated(broken: str) -> None:
    with pytest.raises(RecordError) as raised:
        haystack_messages(value(USER, broken), "messages", FIELD)
    assert raised.value.field == f"{FIELD}.messages[1]"
