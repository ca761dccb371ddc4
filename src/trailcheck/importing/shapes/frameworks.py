"""What particular frameworks write inside the standard attributes, read as what it means.

The conventions say where a fact goes; some frameworks put a framework object there. Each shape
below was seen in traces recorded from the real library (``tests/fixtures/real/``), and each is
recognised by its own structure, never guessed from a name alone:

- **LangChain tool message** (OpenInference's LangChain instrumentation): a TOOL span's
  ``output.value`` is the serialised ``ToolMessage``, ``{"type": "tool", "data": {"content",
  "tool_call_id", "status", ...}}``. The result is ``content``, the call id ``tool_call_id``, and
  ``status: "error"`` marks a failed call.
- **LangGraph state** (the same instrumentation): the root span's ``input.value`` is the state
  the graph was invoked with, ``{"messages": [{"role": "user", "content": "..."}]}``, whose
  messages are the run's input; its ``output.value`` is the final state, ``{"messages": [...,
  {"type": "ai", "data": {"content": "..."}}]}``, whose last AI message's text is the answer.
- **ADK merged tools** (Google ADK): after parallel calls ADK adds an ``execute_tool`` span named
  for the tool ``(merged tools)`` that sums up the calls already recorded one span each; it is not
  a call.
- **ADK schema v1** (Google ADK's legacy telemetry, ``ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1``): a
  tool span records its arguments in ``gcp.vertex.agent.tool_call_args`` and its result in
  ``gcp.vertex.agent.tool_response``; the ``call_llm`` span, a model call, records the Gemini
  request in ``gcp.vertex.agent.llm_request`` (``config.system_instruction`` and ``contents``)
  and the reply in ``gcp.vertex.agent.llm_response`` (``content``). All are JSON text, ``{}``
  when content capture is off. Gemini content (``{"role": "user" | "model", "parts": [{"text"},
  {"function_call": {"id", "name", "args"}}, {"function_response": {"id", "name",
  "response"}}]}``) is read as GenAI parts: ``model`` is the assistant, and a user content of
  function responses only is a tool message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.genai_messages import (
    ROLES,
    json_kind,
    json_object,
    message_from_json,
)
from trailcheck.json_text import JsonValueError, loads_json
from trailcheck.trace import Message
from trailcheck.trace.semconv import PART_TEXT, PART_TOOL_CALL, PART_TOOL_CALL_RESPONSE

ADK_MERGED_TOOLS: Final = "(merged tools)"
ADK_TOOL_CALL_ARGS: Final = "gcp.vertex.agent.tool_call_args"
ADK_TOOL_RESPONSE: Final = "gcp.vertex.agent.tool_response"
ADK_LLM_REQUEST: Final = "gcp.vertex.agent.llm_request"
ADK_LLM_RESPONSE: Final = "gcp.vertex.agent.llm_response"
# What ADK writes as gen_ai.tool.call.id when it has none (a tool that raised).
ADK_UNSPECIFIED_CALL_ID: Final = "<not specified>"


@dataclass(frozen=True, slots=True)
class LangChainToolMessage:
    """A LangChain ``ToolMessage`` as a tool span's output records it."""

    content: Any
    tool_call_id: str | None
    failed: bool


def langchain_tool_message(value: Any) -> LangChainToolMessage | None:
    """The ToolMessage a TOOL span's ``output.value`` holds; ``None`` for any other value."""
    data = _typed_data(value, "tool")
    if data is None or "content" not in data:
        return None
    call_id = data.get("tool_call_id")
    return LangChainToolMessage(
        content=data["content"],
        tool_call_id=call_id if isinstance(call_id, str) else None,
        failed=data.get("status") == "error",
    )


def langgraph_answer(value: Any) -> str | None:
    """The text of the last AI message of a LangGraph state in a root's ``output.value``."""
    state = _json(value)
    if not isinstance(state, dict) or not isinstance(state.get("messages"), list):
        return None
    messages = state["messages"]
    if not messages:
        return None
    data = _typed_data(messages[-1], "ai")
    content = None if data is None else data.get("content")
    return content if isinstance(content, str) and content else None


def langgraph_input(value: str | None) -> list[Message] | None:
    """The messages of a LangGraph input state in a root's ``input.value``; ``None`` for any
    other value, and for a state whose messages are not all ``{"role", "content"}`` text."""
    state = _json(value)
    if not isinstance(state, dict) or set(state) != {"messages"}:
        return None
    items = state["messages"]
    if not isinstance(items, list) or not items:
        return None
    messages: list[Message] = []
    for item in items:
        if not isinstance(item, dict) or set(item) != {"role", "content"}:
            return None
        role, content = item["role"], item["content"]
        if role not in ROLES or not isinstance(content, str):
            return None
        messages.append(Message(role=role, content=content))
    return messages


def is_adk_merged_tools(attributes: Mapping[str, Any], tool_name_key: str) -> bool:
    """Whether a tool span is ADK's summary of parallel calls rather than a call."""
    return attributes.get(tool_name_key) == ADK_MERGED_TOOLS


def adk_tool_value(attributes: Mapping[str, Any], key: str) -> Any:
    """An ADK v1 tool attribute's value; ``None`` when absent or elided (``{}`` without content)."""
    value = attributes.get(key)
    if value is None or value == "{}" or value == "N/A":
        return None
    return value


def _typed_data(value: Any, expected_type: str) -> dict[str, Any] | None:
    message = _json(value)
    if not isinstance(message, dict) or message.get("type") != expected_type:
        return None
    data = message.get("data")
    return data if isinstance(data, dict) else None


def _json(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    if not value.startswith("{"):
        return None
    try:
        return loads_json(value)
    except (orjson.JSONDecodeError, JsonValueError):
        return None  # not this framework's message: the attribute is kept as it is


def adk_messages(
    attributes: Mapping[str, Any],
) -> tuple[list[Message] | None, list[Message] | None]:
    """The input and output messages of an ADK v1 ``call_llm`` span; ``(None, None)`` when it
    records none (not ADK, or content capture off)."""
    request = adk_tool_value(attributes, ADK_LLM_REQUEST)
    response = adk_tool_value(attributes, ADK_LLM_RESPONSE)
    inputs = None if request is None else _adk_request_messages(request)
    outputs = None if response is None else _adk_response_messages(response)
    return inputs, outputs


def _adk_request_messages(value: Any) -> list[Message] | None:
    field = f"attributes.{ADK_LLM_REQUEST}"
    request = json_object(value, field, "an ADK model request")
    messages: list[Message] = []
    config = request.get("config")
    instruction = config.get("system_instruction") if isinstance(config, dict) else None
    if isinstance(instruction, str) and instruction:
        messages.append(Message(role="system", content=instruction))
    contents = request.get("contents")
    if not isinstance(contents, list):
        return messages or None
    for index, content in enumerate(contents):
        messages.append(_gemini_message(content, f"{field}.contents[{index}]"))
    return messages


def _adk_response_messages(value: Any) -> list[Message] | None:
    field = f"attributes.{ADK_LLM_RESPONSE}"
    response = json_object(value, field, "an ADK model response")
    content = response.get("content")
    return None if content is None else [_gemini_message(content, f"{field}.content")]


def _gemini_message(content: Any, field: str) -> Message:
    if not isinstance(content, dict) or not isinstance(content.get("parts"), list):
        raise RecordError("a Gemini content must be an object with a parts array", field=field)
    parts = [_gemini_part(part, f"{field}.parts[{i}]") for i, part in enumerate(content["parts"])]
    role = "assistant" if content.get("role") == "model" else content.get("role")
    if role == "user" and parts and all(p["type"] == PART_TOOL_CALL_RESPONSE for p in parts):
        role = "tool"
    return message_from_json({"role": role, "parts": parts}, field)


def _gemini_part(part: Any, field: str) -> dict[str, Any]:
    if not isinstance(part, dict):
        raise RecordError(f"a Gemini part must be an object, not {json_kind(part)}", field=field)
    call = part.get("function_call")
    if isinstance(call, dict):
        return {
            "type": PART_TOOL_CALL,
            "id": call.get("id"),
            "name": call.get("name"),
            "arguments": call.get("args"),
        }
    answer = part.get("function_response")
    if isinstance(answer, dict):
        return {
            "type": PART_TOOL_CALL_RESPONSE,
            "id": answer.get("id"),
            "response": answer.get("response"),
        }
    if isinstance(part.get("text"), str):
        return {"type": PART_TEXT, "content": part["text"]}
    # Another kind of part (inline data, code): kept as it is, typed by its key.
    return {"type": next(iter(part), "unknown"), **part}
