"""Haystack's chat messages as OpenInference records them: Python reprs.

OpenInference's Haystack instrumentation keeps a chat generator's messages in ``input.value``
(``{"messages": [...]}``) and ``output.value`` (``{"replies": [...]}``) as the ``repr`` of each
``ChatMessage``; its flattened ``llm.input_messages`` drop what a grader needs (a tool message's
result, every call id) and no span is made per tool call, which the ``Agent`` runs itself
(haystack-3.4.1-openinference-0.1.46 in the conformance corpus). A repr such as

    ChatMessage(_role=<ChatRole.TOOL: 'tool'>, _content=[ToolCallResult(result='{"ok": 1}',
    origin=ToolCall(tool_name='lookup_order', arguments={'order_id': 'A-1'}, id='call_1',
    extra=None), error=False)], _name=None, _meta={})

is parsed, never evaluated: its role token becomes a string, ``ast`` parses the expression, and
only literals are taken from it (``ast.literal_eval`` of each field). A failed tool result
(``error=True``) is a ``tool_call_response`` part marked ``is_error``
(:mod:`trailcheck.trace.message_calls`). A message of another shape makes the whole list
unreadable (a RecordError, which the reading report names); the span keeps its attributes.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Final

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.genai_messages import decode_json
from trailcheck.trace import Message, MessageToolCall

_ROLE_TOKEN: Final = re.compile(r"<ChatRole\.\w+: ('\w+')>")
_ROLES: Final = {"system", "user", "assistant", "tool"}
# A repr longer than this stays unread: parsing it is not worth the time it could take.
_REPR_LIMIT: Final = 1_000_000


def haystack_messages(value: Any, key: str, field: str) -> list[Message] | None:
    """The messages of ``value`` (a chat generator's ``input.value`` or ``output.value``, JSON)
    under ``key`` (``messages``, ``replies``); ``None`` when it holds no such list."""
    if not isinstance(value, str) or "ChatMessage(" not in value:
        return None
    decoded = decode_json(value, field)
    reprs = decoded.get(key) if isinstance(decoded, dict) else None
    if not isinstance(reprs, list):
        return None
    return [_message(text, f"{field}.{key}[{index}]") for index, text in enumerate(reprs)]


def _message(text: Any, field: str) -> Message:
    if not isinstance(text, str) or len(text) > _REPR_LIMIT:
        raise RecordError("a Haystack ChatMessage repr must be text", field=field)
    fields = _call(_parse(_ROLE_TOKEN.sub(r"\1", text), field), "ChatMessage", field)
    role = _literal(fields.get("_role"), field)
    if role not in _ROLES:
        raise RecordError(f"a Haystack message role {role!r} is not known", field=field)
    content = fields.get("_content")
    if not isinstance(content, ast.List):
        raise RecordError("a Haystack message's _content must be a list", field=field)
    texts: list[str] = []
    calls: list[MessageToolCall] = []
    results: list[tuple[str | None, Any, bool]] = []
    for part in content.elts:
        name = (
            part.func.id if isinstance(part, ast.Call) and isinstance(part.func, ast.Name) else ""
        )
        if name == "TextContent":
            texts.append(_literal(_call(part, name, field).get("text"), field))
        elif name == "ToolCall":
            calls.append(_tool_call(part, field))
        elif name == "ToolCallResult":
            result = _call(part, name, field)
            origin = _tool_call(result["origin"], field) if "origin" in result else None
            results.append(
                (
                    origin.id if origin is not None else None,
                    _literal(result.get("result"), field),
                    _literal(result.get("error"), field) is True,
                )
            )
        else:
            raise RecordError(f"a Haystack content part {name or '?'} is not read", field=field)
    if role == "tool":
        return _tool_message(results, field)
    return Message(role=role, content="\n".join(texts) or None, tool_calls=calls)


def _tool_message(results: list[tuple[str | None, Any, bool]], field: str) -> Message:
    if len(results) != 1:
        raise RecordError("a Haystack tool message holds one ToolCallResult", field=field)
    call_id, result, failed = results[0]
    if not failed:
        return Message(role="tool", tool_call_id=call_id, content=result)
    part = {"type": "tool_call_response", "id": call_id, "response": result, "is_error": True}
    return Message(role="tool", tool_call_id=call_id, content=[part])


def _tool_call(node: ast.expr, field: str) -> MessageToolCall:
    fields = _call(node, "ToolCall", field)
    arguments = _literal(fields.get("arguments"), field)
    return MessageToolCall(
        id=_literal(fields.get("id"), field),
        name=_literal(fields.get("tool_name"), field),
        arguments=arguments if isinstance(arguments, dict) else {},
    )


def _parse(text: str, field: str) -> ast.expr:
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise RecordError("a Haystack ChatMessage repr that does not parse", field=field) from None


def _call(node: Any, name: str, field: str) -> dict[str, ast.expr]:
    """The keyword fields of ``name(...)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise RecordError(f"expected a Haystack {name}(...)", field=field)
    if node.func.id != name or node.args:
        raise RecordError(f"expected a Haystack {name}(...) with keyword fields", field=field)
    return {keyword.arg: keyword.value for keyword in node.keywords if keyword.arg}


def _literal(node: ast.expr | None, field: str) -> Any:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise RecordError("a Haystack field that is not a literal", field=field) from None
