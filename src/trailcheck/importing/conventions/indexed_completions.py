"""OpenLLMetry's indexed attributes for what a model answered, read where the GenAI output
messages leave the tool calls out: ``gen_ai.completion.{i}.function_call.{name,arguments}``
(OpenAI's legacy single call, as litellm's OpenTelemetry callback writes every call:
litellm-1.110.2-otel-agent-span in ``tests/fixtures/real/``) and
``gen_ai.completion.{i}.tool_calls.{j}.{id,name,arguments}``.

They hold no call ids in litellm's case; the calls are still the model's requests, in order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from trailcheck.importing.conventions.genai_messages import tool_arguments
from trailcheck.trace import Message, MessageToolCall

_PREFIX: Final = "gen_ai.completion."
_FUNCTION_CALL: Final = re.compile(r"gen_ai\.completion\.(\d+)\.function_call\.(name|arguments)")
_TOOL_CALL: Final = re.compile(r"gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.(id|name|arguments)")


def indexed_tool_calls(attributes: Mapping[str, Any]) -> list[MessageToolCall]:
    """The tool calls the indexed completion attributes hold, in index order; none when the span
    has no such attribute."""
    found: dict[tuple[int, int], dict[str, tuple[str, Any]]] = {}
    for key, value in attributes.items():
        if not key.startswith(_PREFIX):
            continue
        if match := _FUNCTION_CALL.fullmatch(key):
            found.setdefault((int(match[1]), 0), {})[match[2]] = (key, value)
        elif match := _TOOL_CALL.fullmatch(key):
            found.setdefault((int(match[1]), int(match[2])), {})[match[3]] = (key, value)
    calls = []
    for position in sorted(found):
        fields = found[position]
        name = fields.get("name", ("", None))[1]
        if not isinstance(name, str) or not name:
            continue
        key, arguments = fields.get("arguments", ("", None))
        call_id = fields.get("id", ("", None))[1]
        calls.append(
            MessageToolCall(
                id=call_id if isinstance(call_id, str) else None,
                name=name,
                arguments=tool_arguments(arguments, f"attributes.{key}"),
            )
        )
    return calls


def with_indexed_calls(
    attributes: Mapping[str, Any], outputs: list[Message] | None
) -> list[Message] | None:
    """``outputs``, with the indexed completion's tool calls on its assistant message when no
    output message records any (a message is made for them when there is none)."""
    if outputs is not None and any(message.tool_calls for message in outputs):
        return outputs
    calls = indexed_tool_calls(attributes)
    if not calls:
        return outputs
    messages = list(outputs or [])
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "assistant":
            messages[index] = messages[index].model_copy(update={"tool_calls": calls})
            return messages
    return [*messages, Message(role="assistant", tool_calls=calls)]
