"""Bedrock Converse content blocks, as Strands Agents records a message's content (JSON text of
a list of blocks), read as the messages they stand for.

``[{"text": ...}]`` is text; ``[{"toolUse": {"toolUseId", "name", "input"}}]`` is a tool call
the assistant asks for; ``[{"toolResult": {"toolUseId", "status", "content": [{"text"} |
{"json"}]}}]`` is a tool's answer, which Converse sends as a user message and trailcheck reads as
one tool message per result. Other block kinds (images, documents, reasoning) are kept as
parts of the message, as recorded. Recorded in strands-agents-1.62.0 (``tests/fixtures/real/``).
"""

from __future__ import annotations

from typing import Any, Final

import orjson

_KNOWN_BLOCKS: Final = frozenset(
    {
        "text",
        "toolUse",
        "toolResult",
        "image",
        "document",
        "video",
        "reasoningContent",
        "cachePoint",
        "guardContent",
        "citationsContent",
    }
)


def converse_blocks(content: Any) -> list[dict[str, Any]] | None:
    """``content`` as a list of Converse blocks (decoded from JSON text when it is text), or
    ``None`` when it is not one: every item an object with one key, a block kind."""
    blocks = content
    if isinstance(content, str):
        if not content.startswith("["):
            return None
        try:
            blocks = orjson.loads(content)
        except orjson.JSONDecodeError:
            return None
    if not isinstance(blocks, list) or not blocks:
        return None
    if not all(isinstance(b, dict) and len(b) == 1 and set(b) <= _KNOWN_BLOCKS for b in blocks):
        return None
    return blocks


def converse_messages(role: str, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages (OpenAI's shape, as the older GenAI conventions write them) that a message of
    ``role`` holding ``blocks`` stands for: its text and tool calls as one message, then one
    ``tool`` message per tool result."""
    texts: list[str] = []
    others: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for block in blocks:
        if "text" in block and isinstance(block["text"], str):
            texts.append(block["text"])
        elif "toolUse" in block and isinstance(block["toolUse"], dict):
            use = block["toolUse"]
            function = {"name": use.get("name"), "arguments": use.get("input")}
            calls.append({"id": use.get("toolUseId"), "type": "function", "function": function})
        elif "toolResult" in block and isinstance(block["toolResult"], dict):
            results.append(_tool_message(block["toolResult"]))
        else:
            others.append(block)
    messages: list[dict[str, Any]] = []
    if texts or calls or others or not results:
        message: dict[str, Any] = {"role": role}
        if others:
            message["content"] = [*({"type": "text", "content": t} for t in texts), *others]
        elif texts:
            message["content"] = "".join(texts)
        if calls:
            message["tool_calls"] = calls
        messages.append(message)
    return [*messages, *results]


def _tool_message(result: dict[str, Any]) -> dict[str, Any]:
    """A tool result block as a tool message: its text, or the JSON it holds as text."""
    parts = result.get("content")
    texts: list[str] = []
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part, dict) and "json" in part:
            texts.append(orjson.dumps(part["json"]).decode())
    message: dict[str, Any] = {"role": "tool", "content": "".join(texts)}
    if isinstance(result.get("toolUseId"), str):
        message["tool_call_id"] = result["toolUseId"]
    return message
