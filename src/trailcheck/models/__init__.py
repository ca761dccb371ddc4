"""Language models behind one protocol: the OpenAI-compatible client and scripted models."""

from trailcheck.models.chat import ChatModel, Reply, ToolDeclaration

__all__ = ["ChatModel", "Reply", "ToolDeclaration"]
