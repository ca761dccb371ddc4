"""Messages: the GenAI shapes (current parts, older content) and OpenInference's flattened keys."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.genai_messages import (
    flattened_messages,
    messages_from_json,
    system_instructions_message,
)
from trailcheck.trace import Message, MessageToolCall

FIELD = "attributes.gen_ai.input.messages"


def parsed(messages: Any) -> list[Message]:
    return messages_from_json(orjson.dumps(messages).decode(), FIELD)


def failure(messages: Any) -> RecordError:
    with pytest.raises(RecordError) as caught:
        messages_from_json(
            messages if isinstance(messages, str) else orjson.dumps(messages).decode(), FIELD
        )
    return caught.value


# --- the current shape: role + parts ---------------------------------------------------------


def test_parts_become_text_tool_calls_and_tool_responses() -> None:
    messages = parsed(
        [
            {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]},
            {
                "role": "assistant",
                "parts": [
                    {
                        "type": "tool_call",
                        "id": "c1",
                        "name": "weather",
                        "arguments": {"city": "Paris"},
                    },
                    {"type": "tool_call", "id": "c2", "name": "time", "arguments": '{"tz": "CET"}'},
                ],
            },
            {
                "role": "tool",
                "parts": [{"type": "tool_call_response", "id": "c1", "response": "rainy"}],
            },
            {
                "role": "assistant",
                "parts": [{"type": "text", "content": "Rainy."}],
                "finish_reason": "stop",
            },
        ]
    )
    assert messages == [
        Message(role="user", content="Weather in Paris?"),
        Message(
            role="assistant",
            tool_calls=[
                MessageToolCall(id="c1", name="weather", arguments={"city": "Paris"}),
                MessageToolCall(id="c2", name="time", arguments={"tz": "CET"}),
            ],
        ),
        Message(role="tool", content="rainy", tool_call_id="c1"),
        Message(role="assistant", content="Rainy."),
    ]


def test_a_structured_response_and_mixed_parts_are_kept_as_recorded() -> None:
    response = {"type": "tool_call_response", "id": "c1", "response": {"temp": 18}}
    text = {"type": "text", "content": "Here is the photo."}
    blob = {"type": "blob", "modality": "image", "mime_type": "image/png", "content": "iVBO"}
    tool_message, user_message = parsed(
        [{"role": "tool", "parts": [response]}, {"role": "user", "parts": [text, blob]}]
    )
    assert tool_message == Message(role="tool", content=[response], tool_call_id="c1")
    assert user_message.content == [text, blob]


def test_the_text_of_mixed_parts_is_their_text_parts_only() -> None:
    text = {"type": "text", "content": "Here is the photo."}
    blob = {"type": "blob", "modality": "image", "mime_type": "image/png", "content": "iVBO"}
    (message,) = parsed([{"role": "user", "parts": [text, blob]}])
    assert message.text == "Here is the photo."


def test_the_older_result_key_of_a_tool_response_is_read_too() -> None:
    (message,) = parsed(
        [{"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "result": "57F"}]}]
    )
    assert (message.content, message.tool_call_id) == ("57F", "c1")


def test_a_message_answering_several_calls_keeps_each_id_in_its_part() -> None:
    parts = [
        {"type": "tool_call_response", "id": "c1", "response": "a"},
        {"type": "tool_call_response", "id": "c2", "response": "b"},
    ]
    (message,) = parsed([{"role": "tool", "parts": parts}])
    assert message.tool_call_id is None
    assert message.content == parts


def test_null_tool_call_arguments_mean_none_were_passed() -> None:
    (message,) = parsed(
        [{"role": "assistant", "parts": [{"type": "tool_call", "name": "now", "arguments": None}]}]
    )
    assert message.tool_calls == [MessageToolCall(name="now")]


def test_structured_messages_parse_like_their_json_text() -> None:
    value = [{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]
    assert messages_from_json(value, FIELD) == parsed(value)


# --- the older shape: role + content ---------------------------------------------------------


def test_content_messages_with_openai_and_flat_tool_calls() -> None:
    messages = parsed(
        [
            {"role": "system", "content": "Be brief."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "refund", "arguments": '{"id": "A-1"}'},
                    },
                    {"id": "c2", "name": "notify", "arguments": {"to": "alice"}},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "name": "refund", "content": '{"ok": true}'},
            {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
        ]
    )
    assert messages == [
        Message(role="system", content="Be brief."),
        Message(
            role="assistant",
            tool_calls=[
                MessageToolCall(id="c1", name="refund", arguments={"id": "A-1"}),
                MessageToolCall(id="c2", name="notify", arguments={"to": "alice"}),
            ],
        ),
        Message(role="tool", content='{"ok": true}', tool_call_id="c1", name="refund"),
        Message(role="user", content=[{"type": "text", "text": "Thanks"}]),
    ]
    assert messages[3].text == "Thanks"


# --- what is rejected ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("messages", "field", "expected"),
    [
        ("[{", FIELD, "not valid JSON"),
        ({"role": "user"}, FIELD, "must be a JSON array, not an object"),
        (["hi"], f"{FIELD}[0]", "a message must be a JSON object, not a string"),
        ([{"role": "robot", "content": "x"}], f"{FIELD}[0].role", "role 'robot' is not one of"),
        ([{"content": "x"}], f"{FIELD}[0].role", "role None"),
        ([{"role": "user", "parts": "hi"}], f"{FIELD}[0].parts", "parts must be a JSON array"),
        ([{"role": "user", "parts": [{"content": "x"}]}], f"{FIELD}[0].parts[0]", "string type"),
        (
            [{"role": "user", "parts": [{"type": "text", "content": 3}]}],
            f"{FIELD}[0].parts[0].content",
            "text part's content must be a string",
        ),
        (
            [{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "arguments": {}}]}],
            f"{FIELD}[0].parts[0].name",
            "non-empty string name",
        ),
        (
            [
                {
                    "role": "assistant",
                    "parts": [{"type": "tool_call", "name": "t", "arguments": "[1]"}],
                }
            ],
            f"{FIELD}[0].parts[0].arguments",
            "must be a JSON object, not an array",
        ),
        (
            [
                {
                    "role": "assistant",
                    "parts": [{"type": "tool_call", "name": "t", "arguments": "{x"}],
                }
            ],
            f"{FIELD}[0].parts[0].arguments",
            "not valid JSON",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"function": {"name": "t", "arguments": "7"}}]}],
            f"{FIELD}[0].tool_calls[0].function.arguments",
            "must be a JSON object, not a number",
        ),
        ([{"role": "user", "content": 5}], f"{FIELD}[0].content", "content must be text"),
        (
            [{"role": "tool", "content": "x", "tool_call_id": 5}],
            f"{FIELD}[0].tool_call_id",
            "string",
        ),
    ],
)
def test_bad_messages_are_rejected_naming_the_field(
    messages: Any, field: str, expected: str
) -> None:
    error = failure(messages)
    assert error.field == field
    assert expected in error.message


# --- system instructions ---------------------------------------------------------------------


def test_system_instructions_become_one_system_message() -> None:
    one = system_instructions_message('[{"type": "text", "content": "Be brief."}]', "f")
    two = system_instructions_message(
        [{"type": "text", "content": "Translate."}, {"type": "text", "content": "Into French."}],
        "f",
    )
    assert one == Message(role="system", content="Be brief.")
    assert two.role == "system"
    assert two.text == "Translate.\nInto French."


def test_system_instructions_as_plain_text_are_the_instructions() -> None:
    # As OpenLLMetry writes them (langgraph-1.2.24-traceloop-0.62.4's create_agent span).
    assert system_instructions_message(
        "You are helpful.", "attributes.gen_ai.system_instructions"
    ) == Message(role="system", content="You are helpful.")


def test_system_instructions_that_are_not_an_array_of_parts_are_not_understood() -> None:
    with pytest.raises(RecordError) as caught:
        system_instructions_message('{"text": "x"}', "attributes.gen_ai.system_instructions")
    assert caught.value.field == "attributes.gen_ai.system_instructions"


# --- OpenInference, flattened ----------------------------------------------------------------


def test_flattened_messages_come_in_index_order_with_tool_calls_and_contents() -> None:
    attributes = {
        "llm.input_messages.10.message.role": "user",
        "llm.input_messages.10.message.content": "eleventh",
        "llm.input_messages.2.message.role": "assistant",
        "llm.input_messages.2.message.tool_calls.1.tool_call.function.name": "second",
        "llm.input_messages.2.message.tool_calls.0.tool_call.function.name": "first",
        "llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments": '{"a": 1}',
        "llm.input_messages.2.message.tool_calls.0.tool_call.id": "c1",
        "llm.input_messages.3.message.role": "tool",
        "llm.input_messages.3.message.tool_call_id": "c1",
        "llm.input_messages.3.message.name": "first",
        "llm.input_messages.3.message.contents.1.message_content.type": "image",
        "llm.input_messages.3.message.contents.1.message_content.image.image.url": "https://x/y.png",
        "llm.input_messages.3.message.contents.0.message_content.type": "text",
        "llm.input_messages.3.message.contents.0.message_content.text": "done",
        "llm.input_messages_extra": "not a message",
        "llm.output_messages.0.message.role": "assistant",
    }
    messages = flattened_messages(attributes, "llm.input_messages")
    assert messages == [
        Message(
            role="assistant",
            tool_calls=[
                MessageToolCall(id="c1", name="first", arguments={"a": 1}),
                MessageToolCall(name="second"),
            ],
        ),
        Message(
            role="tool",
            content=[
                {"type": "text", "text": "done"},
                {"type": "image", "image.image.url": "https://x/y.png"},
            ],
            tool_call_id="c1",
            name="first",
        ),
        Message(role="user", content="eleventh"),
    ]
    assert messages[1].text == "done"


def test_no_flattened_keys_means_no_messages() -> None:
    assert flattened_messages({"input.value": "hi"}, "llm.input_messages") is None


@pytest.mark.parametrize(
    ("attributes", "field"),
    [
        (
            {"llm.input_messages.0.message.content": "hi"},
            "attributes.llm.input_messages.0.message.role",
        ),
        (
            {"llm.input_messages.0.message.role": "robot"},
            "attributes.llm.input_messages.0.message.role",
        ),
        (
            {
                "llm.input_messages.0.message.role": "assistant",
                "llm.input_messages.0.message.tool_calls.0.tool_call.function.name": "t",
                "llm.input_messages.0.message.tool_calls.0.tool_call.function.arguments": "{x",
            },
            "attributes.llm.input_messages.0.message.tool_calls.0.tool_call.function.arguments",
        ),
        (
            {
                "llm.input_messages.0.message.role": "assistant",
                "llm.input_messages.0.message.tool_calls.0.tool_call.id": "c1",
            },
            "attributes.llm.input_messages.0.message.tool_calls.0.tool_call.function.name",
        ),
    ],
)
def test_bad_flattened_messages_are_rejected_naming_the_key(
    attributes: dict[str, Any], field: str
) -> None:
    with pytest.raises(RecordError) as caught:
        flattened_messages(attributes, "llm.input_messages")
    assert caught.value.field == field


def test_a_text_part_without_content_is_content_not_captured_not_an_error() -> None:
    # What a source with content capture off records (Pydantic AI's include_content=False).
    [message] = messages_from_json([{"role": "user", "parts": [{"type": "text"}]}], FIELD)
    assert message.role == "user"
    assert message.content == [{"type": "text"}]
    assert message.text == ""
