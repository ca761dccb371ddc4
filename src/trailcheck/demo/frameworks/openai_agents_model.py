"""Any trailcheck :class:`~trailcheck.models.ChatModel` as an OpenAI Agents SDK model.

::

    model = AgentsChatModel(ScriptedModel(v2_brain, name="support-v2"))
    agent = Agent(name="support", instructions=PROMPT, model=model, tools=tools)

The SDK calls the model with its system instructions, the run's input items in the Responses
API's format (user and assistant messages, ``function_call`` and ``function_call_output``
items) and its tools. The bridge turns them into trailcheck's
:class:`~trailcheck.trace.Message` list (a function call joins the assistant message before it;
its output becomes a ``tool`` message answering the call by its id) and
:class:`~trailcheck.models.ToolDeclaration`\\ s, asks the ChatModel, and answers with a
Responses API ``Response`` built from its :class:`~trailcheck.models.Reply` (function calls,
then the text, and usage). It records the ``response`` span the SDK's own Responses model
records, with the response and the input when the run traces data, so the SDK's trace
processors see an ordinary model call. Nothing is sent anywhere: no client, no key.

Streaming (``Runner.run_streamed``) is not bridged: it is a :class:`~trailcheck.errors.UsageError`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

import orjson

from trailcheck.errors import UsageError
from trailcheck.extras import missing_extra
from trailcheck.guard.tools import RAW_ARGUMENTS_KEY
from trailcheck.models import ChatModel, Reply, ToolDeclaration
from trailcheck.rate_limit import RateLimiter
from trailcheck.trace import Message, MessageToolCall

try:
    from agents import FunctionTool, Model, ModelResponse, ModelSettings, ModelTracing, Usage
    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.items import TResponseInputItem, TResponseStreamEvent
    from agents.tool import Tool
    from agents.tracing import SpanError, response_span
    from openai.types.responses import Response
    from openai.types.responses.response_prompt_param import ResponsePromptParam
except ImportError as missing:  # pragma: no cover - the extra is installed in CI
    raise missing_extra("the OpenAI Agents model", "openai-agents", missing) from None

__all__ = ["AgentsChatModel", "from_agents_input", "to_response"]


class AgentsChatModel(Model):
    """An OpenAI Agents SDK model that answers with ``chat`` (see the module docstring); each
    call first acquires ``rate_limiter`` when one is given (a run's shared limiter)."""

    def __init__(self, chat: ChatModel, *, rate_limiter: RateLimiter | None = None) -> None:
        self.chat = chat
        self.rate_limiter = rate_limiter
        self._responses = 0

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        if self.rate_limiter is not None:
            await self.rate_limiter.acquire()
        with response_span(disabled=tracing.is_disabled()) as span:
            try:
                declared = _declarations(tools)
                reply = await self.chat.complete(
                    from_agents_input(system_instructions, input), declared
                )
            except Exception as error:
                span.set_error(
                    SpanError(message="Error getting response", data={"error": str(error)})
                )
                raise
            self._responses += 1
            response = to_response(
                reply,
                response_id=f"resp_{self._responses}",
                model=self.chat.name,
                instructions=system_instructions,
                tools=declared,
            )
            if tracing.include_data():
                span.span_data.response = response
                span.span_data.input = input
        usage = response.usage
        return ModelResponse(
            output=list(response.output),
            usage=Usage(
                requests=1,
                input_tokens=usage.input_tokens if usage else 0,
                output_tokens=usage.output_tokens if usage else 0,
                total_tokens=usage.total_tokens if usage else 0,
            ),
            response_id=response.id,
        )

    def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        raise UsageError(
            "the trailcheck model bridge answers whole responses: use Runner.run, not"
            " Runner.run_streamed"
        )


def _declarations(tools: Iterable[Tool]) -> list[ToolDeclaration]:
    return [
        ToolDeclaration(
            name=tool.name, description=tool.description, parameters=tool.params_json_schema
        )
        for tool in tools
        if isinstance(tool, FunctionTool)
    ]


def _text(content: Any) -> str:
    """A message's content: a text, or the texts of its parts."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "".join(str(part.get("text") or "") for part in parts if isinstance(part, Mapping))


def _item(raw: Any) -> Mapping[str, Any]:
    if isinstance(raw, Mapping):
        return raw
    dump = getattr(raw, "model_dump", None)
    return dump(exclude_unset=True) if callable(dump) else {}


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = orjson.loads(text or "{}")
    except orjson.JSONDecodeError:
        value = None
    return value if isinstance(value, dict) else {RAW_ARGUMENTS_KEY: text}


def from_agents_input(system_instructions: str | None, input: str | Iterable[Any]) -> list[Message]:
    """The instructions and input items as trailcheck's messages: system, user, assistant (with
    its function calls) and one ``tool`` message per function call output."""
    messages = [Message(role="system", content=system_instructions)] if system_instructions else []
    if isinstance(input, str):
        return [*messages, Message(role="user", content=input)]
    for raw in input:
        item = _item(raw)
        kind = item.get("type", "message")
        if kind == "function_call":
            call = MessageToolCall(
                id=item.get("call_id"),
                name=str(item.get("name") or ""),
                arguments=_arguments(str(item.get("arguments") or "")),
            )
            last = messages[-1] if messages else None
            if last is not None and last.role == "assistant":
                messages[-1] = last.model_copy(update={"tool_calls": [*last.tool_calls, call]})
            else:
                messages.append(Message(role="assistant", tool_calls=[call]))
        elif kind == "function_call_output":
            messages.append(
                Message(
                    role="tool",
                    tool_call_id=item.get("call_id"),
                    content=_text(item.get("output")),
                )
            )
        elif kind == "message" and item.get("role") in ("user", "system", "developer"):
            messages.append(Message(role=item["role"], content=_text(item.get("content"))))
        elif kind == "message" and item.get("role") == "assistant":
            messages.append(Message(role="assistant", content=_text(item.get("content")) or None))
    return messages


def to_response(
    reply: Reply,
    *,
    response_id: str,
    model: str,
    instructions: str | None = None,
    tools: Iterable[ToolDeclaration] = (),
) -> Response:
    """A trailcheck reply as the Responses API's ``Response``: its function calls, then its
    text, with its usage (when it has one), and the model, instructions and tools echoed as
    the API does."""
    output: list[dict[str, Any]] = [
        {
            "type": "function_call",
            "id": f"fc_{call.id or index}",
            "call_id": call.id or f"call_{response_id}_{index}",
            "name": call.name,
            "arguments": orjson.dumps(call.arguments).decode(),
            "status": "completed",
        }
        for index, call in enumerate(reply.tool_calls, start=1)
    ]
    if reply.text:
        output.append(
            {
                "type": "message",
                "id": f"msg_{response_id}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    return Response.model_validate(
        {
            "id": response_id,
            "object": "response",
            "created_at": time.time(),
            "status": "completed",
            "model": reply.model or model,
            "instructions": instructions,
            "tools": [
                {
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                    "strict": False,
                }
                for tool in tools
            ],
            "tool_choice": "auto",
            "parallel_tool_calls": True,
            "output": output,
            "usage": _usage(reply),
        }
    )


def _usage(reply: Reply) -> dict[str, Any] | None:
    """The reply's usage as the Responses API reports it; None when the model gave none."""
    if reply.usage is None:
        return None
    tokens_in = reply.usage.input_tokens or 0
    tokens_out = reply.usage.output_tokens or 0
    return {
        "input_tokens": tokens_in,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": tokens_out,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": tokens_in + tokens_out,
    }
