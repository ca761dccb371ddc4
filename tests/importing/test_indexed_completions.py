"""OpenLLMetry's indexed completion attributes give the calls the output messages leave out."""

from __future__ import annotations

import pytest

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.indexed_completions import (
    indexed_tool_calls,
    with_indexed_calls,
)
from trailcheck.trace import Message, MessageToolCall

LITELLM = {
    "gen_ai.completion.1.function_call.name": "verify_identity",
    "gen_ai.completion.1.function_call.arguments": '{"email": "ana@example.com"}',
    "gen_ai.completion.0.function_call.name": "lookup_order",
    "gen_ai.completion.0.function_call.arguments": '{"order_id": "A-1"}',
}


def test_function_calls_come_in_index_order_without_ids() -> None:
    assert indexed_tool_calls(LITELLM) == [
        MessageToolCall(name="lookup_order", arguments={"order_id": "A-1"}),
        MessageToolCall(name="verify_identity", arguments={"email": "ana@example.com"}),
    ]


def test_tool_calls_keep_their_ids() -> None:
    attributes = {
        "gen_ai.completion.0.tool_calls.1.name": "b",
        "gen_ai.completion.0.tool_calls.0.name": "a",
        "gen_ai.completion.0.tool_calls.0.id": "call_a",
        "gen_ai.completion.0.tool_calls.0.arguments": "{}",
    }
    assert [(c.id, c.name) for c in indexed_tool_calls(attributes)] == [
        ("call_a", "a"),
        (None, "b"),
    ]


def test_the_calls_join_the_assistant_message_that_left_them_out() -> None:
    outputs = [Message(role="assistant", content=None)]
    [answer] = with_indexed_calls(LITELLM, outputs) or []
    assert [call.name for call in answer.tool_calls] == ["lookup_order", "verify_identity"]
    assert with_indexed_calls(LITELLM, None) == [
        Message(role="assistant", tool_calls=indexed_tool_calls(LITELLM))
    ]


def test_calls_the_messages_record_are_not_doubled() -> None:
    asked = MessageToolCall(id="c1", name="lookup_order", arguments={"order_id": "A-1"})
    outputs = [Message(role="assistant", tool_calls=[asked])]
    assert with_indexed_calls(LITELLM, outputs) == outputs
    assert with_indexed_calls({}, None) is None


def test_arguments_that_are_not_an_object_are_named() -> None:
    bad = {**LITELLM, "gen_ai.completion.0.function_call.arguments": "[1]"}
    with pytest.raises(RecordError) as caught:
        indexed_tool_calls(bad)
    assert caught.value.field == "attributes.gen_ai.completion.0.function_call.arguments"
