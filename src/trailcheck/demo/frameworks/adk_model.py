"""Any trailcheck :class:`~trailcheck.models.ChatModel` as a Google ADK model (``BaseLlm``).

::

    model = AdkChatModel(model="pitwall-scripted", chat=ScriptedModel(pit_wall_brain))
    agent = LlmAgent(name="pit_wall", model=model, instruction=PROMPT, tools=tools)

ADK calls the model with an ``LlmRequest``: its system instruction, its contents (the user's
text, the model's function calls, the function responses, each a part of a ``Content``) and
its tools' declarations. The bridge turns them into trailcheck's
:class:`~trailcheck.trace.Message` list (a function response becomes a ``tool`` message whose
content is the response as JSON, answering the call with its id) and
:class:`~trailcheck.models.ToolDeclaration`\\ s, asks the ChatModel, and yields its
:class:`~trailcheck.models.Reply` as one ``LlmResponse`` with text, function calls and usage.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import orjson
from pydantic import ConfigDict

from trailcheck.extras import missing_extra
from trailcheck.models import ChatModel, Reply, ToolDeclaration
from trailcheck.rate_limit import RateLimiter
from trailcheck.trace import Message, MessageToolCall

try:
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.genai import types
except ImportError as missing:  # pragma: no cover - the extra is installed in CI
    raise missing_extra("the ADK model", "adk", missing) from None

__all__ = ["AdkChatModel", "from_adk", "to_llm_response"]


class AdkChatModel(BaseLlm):
    """An ADK model that answers with ``chat`` (see the module docstring); each call first
    acquires ``rate_limiter`` when one is given (a run's shared limiter)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    chat: Any  # a trailcheck ChatModel (a Protocol, which pydantic cannot validate)
    rate_limiter: Any = None  # a trailcheck RateLimiter, or None

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        limiter: RateLimiter | None = self.rate_limiter
        if limiter is not None:
            await limiter.acquire()
        chat: ChatModel = self.chat
        reply = await chat.complete(from_adk(llm_request), _declarations(llm_request))
        yield to_llm_response(reply, self.model)


def _declarations(request: LlmRequest) -> list[ToolDeclaration]:
    declared: list[ToolDeclaration] = []
    for tool in (request.config.tools if request.config else None) or []:
        for function in getattr(tool, "function_declarations", None) or []:
            schema = function.parameters_json_schema
            declared.append(
                ToolDeclaration(
                    name=function.name or "",
                    description=function.description or "",
                    parameters=schema if isinstance(schema, dict) else {"type": "object"},
                )
            )
    return declared


def _system(request: LlmRequest) -> list[Message]:
    instruction = request.config.system_instruction if request.config else None
    if isinstance(instruction, str) and instruction:
        return [Message(role="system", content=instruction)]
    if isinstance(instruction, types.Content):
        text = "".join(part.text or "" for part in instruction.parts or [])
        return [Message(role="system", content=text)] if text else []
    return []


def from_adk(request: LlmRequest) -> list[Message]:
    """The request as trailcheck's messages: system, user, assistant (with its function calls)
    and one ``tool`` message per function response."""
    messages = _system(request)
    for content in request.contents:
        parts = content.parts or []
        text = "".join(part.text or "" for part in parts if not part.thought)
        if content.role == "model":
            calls = [
                MessageToolCall(id=call.id, name=call.name or "", arguments=dict(call.args or {}))
                for part in parts
                if (call := part.function_call) is not None
            ]
            messages.append(Message(role="assistant", content=text or None, tool_calls=calls))
            continue
        for part in parts:
            response = part.function_response
            if response is not None:
                messages.append(
                    Message(
                        role="tool",
                        tool_call_id=response.id,
                        content=orjson.dumps(response.response).decode(),
                    )
                )
        if text:
            messages.append(Message(role="user", content=text))
    return messages


def to_llm_response(reply: Reply, model_name: str) -> LlmResponse:
    """A trailcheck reply as one ADK ``LlmResponse``: function calls, text, usage, model."""
    parts = [
        types.Part(
            function_call=types.FunctionCall(id=call.id, name=call.name, args=call.arguments)
        )
        for call in reply.tool_calls
    ]
    if reply.text:
        parts.append(types.Part(text=reply.text))
    usage = None
    if reply.usage is not None:
        tokens_in = reply.usage.input_tokens or 0
        tokens_out = reply.usage.output_tokens or 0
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=tokens_in,
            candidates_token_count=tokens_out,
            total_token_count=tokens_in + tokens_out,
        )
    return LlmResponse(
        content=types.Content(role="model", parts=parts),
        model_version=reply.model or model_name,
        finish_reason=types.FinishReason.STOP,
        usage_metadata=usage,
    )
