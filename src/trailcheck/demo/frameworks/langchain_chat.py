"""Any trailcheck :class:`~trailcheck.models.ChatModel` as a LangChain chat model.

::

    model = LangChainChatModel(chat=ScriptedModel(v2_brain, name="support-v2"))
    graph = create_agent(model, tools=tools, system_prompt=SYSTEM_PROMPT)

LangChain calls the model with its messages and, after ``bind_tools``, the tools' OpenAI
schemas; the bridge converts both to trailcheck's :class:`~trailcheck.trace.Message` and
:class:`~trailcheck.models.ToolDeclaration` (system, human, AI messages with their tool calls,
and tool messages with their call ids and content), asks the ChatModel, and turns its
:class:`~trailcheck.models.Reply` into an ``AIMessage`` with its tool calls and token usage. So
a scripted brain sees the conversation exactly as the native tool loop shows it, and the
framework's instrumentation records an ordinary LangChain model call.

The async path is the real one (``ainvoke``); the sync path (``invoke``) runs the same call on
an event loop of its own, so it works only where no loop is running in the calling thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from trailcheck.extras import missing_extra
from trailcheck.models import ChatModel, Reply, ToolDeclaration
from trailcheck.rate_limit import RateLimiter
from trailcheck.trace import Message, MessageToolCall

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForLLMRun,
        CallbackManagerForLLMRun,
    )
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )
    from langchain_core.messages.ai import UsageMetadata
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.utils.function_calling import convert_to_openai_tool
except ImportError as missing:  # pragma: no cover - the extra is installed in CI
    raise missing_extra("the LangChain chat model", "langgraph", missing) from None

__all__ = ["LangChainChatModel", "from_langchain", "to_ai_message"]


class LangChainChatModel(BaseChatModel):
    """A LangChain chat model that answers with ``chat`` (see the module docstring); each call
    first acquires ``rate_limiter`` when one is given (a run's shared limiter)."""

    chat: Any  # a trailcheck ChatModel (a Protocol, which pydantic cannot validate)
    rate_limiter: Any = None  # a trailcheck RateLimiter, or None

    @property
    def _llm_type(self) -> str:
        return "trailcheck-chat-model"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self._model.name}

    @property
    def _model(self) -> ChatModel:
        model: ChatModel = self.chat
        return model

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        """Send the tools' schemas with every call, as provider models do."""
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        limiter: RateLimiter | None = self.rate_limiter
        if limiter is not None:
            await limiter.acquire()
        declarations = [_declaration(tool) for tool in kwargs.get("tools") or []]
        reply = await self._model.complete(from_langchain(messages), declarations)
        message = to_ai_message(reply, self._model.name)
        return ChatResult(
            generations=[ChatGeneration(message=message)],
            llm_output={"model_name": reply.model or self._model.name},
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return asyncio.run(self._agenerate(messages, stop, None, **kwargs))


def _declaration(tool: dict[str, Any]) -> ToolDeclaration:
    function = tool.get("function", tool)
    return ToolDeclaration(
        name=function["name"],
        description=function.get("description") or "",
        parameters=function.get("parameters") or {"type": "object", "properties": {}},
    )


def _text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else message.text


def from_langchain(messages: Sequence[BaseMessage]) -> list[Message]:
    """LangChain's messages as trailcheck's: roles, text, tool calls and tool call ids."""
    converted: list[Message] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            converted.append(Message(role="system", content=_text(message)))
        elif isinstance(message, HumanMessage):
            converted.append(Message(role="user", content=_text(message)))
        elif isinstance(message, AIMessage):
            calls = [
                MessageToolCall(id=call.get("id"), name=call["name"], arguments=call["args"])
                for call in message.tool_calls
            ]
            converted.append(
                Message(role="assistant", content=_text(message) or None, tool_calls=calls)
            )
        elif isinstance(message, ToolMessage):
            converted.append(
                Message(role="tool", content=_text(message), tool_call_id=message.tool_call_id)
            )
    return converted


def to_ai_message(reply: Reply, model_name: str) -> AIMessage:
    """A trailcheck reply as LangChain's ``AIMessage``: text, tool calls, usage, model."""
    usage: UsageMetadata | None = None
    if reply.usage is not None:
        tokens_in = reply.usage.input_tokens or 0
        tokens_out = reply.usage.output_tokens or 0
        usage = UsageMetadata(
            input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out
        )
    return AIMessage(
        content=reply.text or "",
        tool_calls=[
            {"name": call.name, "args": call.arguments, "id": call.id, "type": "tool_call"}
            for call in reply.tool_calls
        ],
        usage_metadata=usage,
        response_metadata={"model_name": reply.model or model_name},
    )
