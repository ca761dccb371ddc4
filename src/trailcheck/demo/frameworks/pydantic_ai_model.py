"""Any trailcheck :class:`~trailcheck.models.ChatModel` as a Pydantic AI model.

::

    model = chat_function_model(ScriptedModel(v2_brain, name="support-v2"))
    agent = Agent(model, instructions=PROMPT, tools=tools)

The bridge is Pydantic AI's own ``FunctionModel`` (a model whose answers come from a local
function) with a function that asks the ChatModel. Pydantic AI calls it with the run's messages
and an ``AgentInfo`` holding the instructions and the function tools; the bridge turns them
into trailcheck's :class:`~trailcheck.trace.Message` list (the instructions as the system
message, user prompts, the model's text and tool calls, and one ``tool`` message per tool
return, answering the call by its id) and :class:`~trailcheck.models.ToolDeclaration`\\ s. A
tool return that failed reads as Pydantic AI sends it to a model without an error channel,
``{"error": ...}``, which is how trailcheck's native loop reports a tool error too. The
ChatModel's :class:`~trailcheck.models.Reply` becomes a ``ModelResponse`` with its text, tool
calls and usage, named after the ChatModel.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from trailcheck.extras import missing_extra
from trailcheck.models import ChatModel, Reply, ToolDeclaration
from trailcheck.rate_limit import RateLimiter
from trailcheck.trace import Message, MessageToolCall

try:
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        ModelResponsePart,
        RetryFeedbackPart,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.usage import RequestUsage
except ImportError as missing:  # pragma: no cover - the extra is installed in CI
    raise missing_extra("the Pydantic AI model", "pydantic-ai", missing) from None

__all__ = ["chat_function_model", "from_pydantic_ai", "to_model_response"]


def chat_function_model(
    chat: ChatModel, *, rate_limiter: RateLimiter | None = None
) -> FunctionModel:
    """A ``FunctionModel`` named ``chat.name`` that answers with ``chat`` (see the module); each
    call first acquires ``rate_limiter`` when one is given (a run's shared limiter)."""

    async def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if rate_limiter is not None:
            await rate_limiter.acquire()
        reply = await chat.complete(
            from_pydantic_ai(messages, info.instructions), _declarations(info.function_tools)
        )
        return to_model_response(reply)

    return FunctionModel(answer, model_name=chat.name)


def _declarations(tools: Iterable[ToolDefinition]) -> list[ToolDeclaration]:
    return [
        ToolDeclaration(
            name=tool.name,
            description=tool.description or "",
            parameters=tool.parameters_json_schema,
        )
        for tool in tools
    ]


def _user_text(part: UserPromptPart) -> str:
    if isinstance(part.content, str):
        return part.content
    return "".join(item for item in part.content if isinstance(item, str))


def _request(request: ModelRequest) -> list[Message]:
    messages: list[Message] = []
    for part in request.parts:
        if isinstance(part, SystemPromptPart):
            messages.append(Message(role="system", content=part.content))
        elif isinstance(part, UserPromptPart):
            messages.append(Message(role="user", content=_user_text(part)))
        elif isinstance(part, ToolReturnPart):
            messages.append(
                Message(
                    role="tool", tool_call_id=part.tool_call_id, content=part.model_response_str()
                )
            )
        elif isinstance(part, RetryFeedbackPart):
            messages.append(Message(role="user", content=part.model_response()))
    return messages


def _response(response: ModelResponse) -> Message:
    text = "".join(part.content for part in response.parts if isinstance(part, TextPart))
    calls = [
        MessageToolCall(id=part.tool_call_id, name=part.tool_name, arguments=part.args_as_dict())
        for part in response.parts
        if isinstance(part, ToolCallPart)
    ]
    return Message(role="assistant", content=text or None, tool_calls=calls)


def from_pydantic_ai(messages: Sequence[ModelMessage], instructions: str | None) -> list[Message]:
    """The run's messages as trailcheck's: the instructions as the system message, then user
    prompts, the model's answers with their tool calls, and tool returns."""
    converted = [Message(role="system", content=instructions)] if instructions else []
    for message in messages:
        if isinstance(message, ModelRequest):
            converted.extend(_request(message))
        else:
            converted.append(_response(message))
    return converted


def to_model_response(reply: Reply) -> ModelResponse:
    """A trailcheck reply as Pydantic AI's ``ModelResponse``: its text, then its tool calls,
    with its usage, or marked as a response without usage (which ``FunctionModel`` would
    otherwise estimate). ``FunctionModel`` names the response after itself."""
    parts: list[ModelResponsePart] = [TextPart(reply.text)] if reply.text else []
    parts.extend(
        ToolCallPart(call.name, dict(call.arguments), tool_call_id=_call_id(call, index))
        for index, call in enumerate(reply.tool_calls, start=1)
    )
    usage = RequestUsage(unmeasured_requests=1)  # no usage: not to be estimated
    if reply.usage is not None:
        usage = RequestUsage(
            input_tokens=reply.usage.input_tokens or 0,
            output_tokens=reply.usage.output_tokens or 0,
        )
    return ModelResponse(parts=parts, usage=usage)


def _call_id(call: MessageToolCall, index: int) -> Any:
    return call.id or f"call_{index}"
