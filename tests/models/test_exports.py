"""The public surface of trailcheck.models and trailcheck.testing changes only on purpose."""

from __future__ import annotations

import trailcheck.models
import trailcheck.testing


def test_models_exports() -> None:
    assert sorted(trailcheck.models.__all__) == [
        "ChatModel",
        "ChatOptions",
        "OpenAIChatModel",
        "RAW_ARGUMENTS_KEY",
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


def test_testing_exports() -> None:
    assert sorted(trailcheck.testing.__all__) == [
        "FakeJudge",
        "ScriptedModel",
        "TraceBuilder",
        "tool_call_reply",
    ]


def test_every_exported_name_exists() -> None:
    for module in (trailcheck.models, trailcheck.testing):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
