"""Language models behind one protocol: the OpenAI-compatible client and scripted models, and
tool declarations made from typed functions."""

from trailcheck.models.chat import ChatModel, Reply, ToolDeclaration
from trailcheck.models.declarations import (
    RAW_ARGUMENTS_KEY,
    ToolSchema,
    declare_tool,
    declare_tools,
    tool_schema,
    tool_schemas,
)
from trailcheck.models.openai_client import ChatOptions, OpenAIChatModel
from trailcheck.models.scripted import ScriptedCall, ScriptedModel, tool_call_reply

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "ChatModel",
    "ChatOptions",
    "OpenAIChatModel",
    "Reply",
    "ScriptedCall",
    "ScriptedModel",
    "ToolDeclaration",
    "ToolSchema",
    "declare_tool",
    "declare_tools",
    "tool_call_reply",
    "tool_schema",
    "tool_schemas",
]
