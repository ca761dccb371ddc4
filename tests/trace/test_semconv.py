"""The convention names, pinned to how the GenAI and OpenInference specifications spell them."""

from __future__ import annotations

import pytest

from trailcheck.trace import semconv


@pytest.mark.parametrize(
    ("constant", "spelled"),
    [
        (semconv.GEN_AI_OPERATION_NAME, "gen_ai.operation.name"),
        (semconv.GEN_AI_TOOL_NAME, "gen_ai.tool.name"),
        (semconv.GEN_AI_TOOL_CALL_ID, "gen_ai.tool.call.id"),
        (semconv.GEN_AI_TOOL_CALL_ARGUMENTS, "gen_ai.tool.call.arguments"),
        (semconv.GEN_AI_TOOL_CALL_RESULT, "gen_ai.tool.call.result"),
        (semconv.GEN_AI_INPUT_MESSAGES, "gen_ai.input.messages"),
        (semconv.GEN_AI_OUTPUT_MESSAGES, "gen_ai.output.messages"),
        (semconv.GEN_AI_SYSTEM_INSTRUCTIONS, "gen_ai.system_instructions"),
        (semconv.GEN_AI_REQUEST_MODEL, "gen_ai.request.model"),
        (semconv.GEN_AI_RESPONSE_MODEL, "gen_ai.response.model"),
        (semconv.GEN_AI_PROVIDER_NAME, "gen_ai.provider.name"),
        (semconv.GEN_AI_SYSTEM, "gen_ai.system"),
        (semconv.GEN_AI_USAGE_INPUT_TOKENS, "gen_ai.usage.input_tokens"),
        (semconv.GEN_AI_USAGE_OUTPUT_TOKENS, "gen_ai.usage.output_tokens"),
        (semconv.GEN_AI_AGENT_NAME, "gen_ai.agent.name"),
        (semconv.GEN_AI_CONVERSATION_ID, "gen_ai.conversation.id"),
        (semconv.ERROR_TYPE, "error.type"),
        (semconv.OPENINFERENCE_SPAN_KIND, "openinference.span.kind"),
        (semconv.TOOL_NAME, "tool.name"),
        (semconv.TOOL_PARAMETERS, "tool.parameters"),
        (semconv.TOOL_CALL_ID, "tool_call.id"),
        (semconv.INPUT_VALUE, "input.value"),
        (semconv.INPUT_MIME_TYPE, "input.mime_type"),
        (semconv.OUTPUT_VALUE, "output.value"),
        (semconv.OUTPUT_MIME_TYPE, "output.mime_type"),
        (semconv.LLM_MODEL_NAME, "llm.model_name"),
        (semconv.LLM_PROVIDER, "llm.provider"),
        (semconv.LLM_TOKEN_COUNT_PROMPT, "llm.token_count.prompt"),
        (semconv.LLM_TOKEN_COUNT_COMPLETION, "llm.token_count.completion"),
        (semconv.SESSION_ID, "session.id"),
        (semconv.AGENT_NAME, "agent.name"),
        (semconv.TRAILCHECK_SEQUENCE, "trailcheck.sequence"),
    ],
)
def test_attribute_names_match_the_specifications(constant: str, spelled: str) -> None:
    assert constant == spelled


def test_flattened_message_keys_compose_as_openinference_writes_them() -> None:
    messages, message = semconv.LLM_INPUT_MESSAGES, semconv.MESSAGE_ROLE
    role = f"{messages}.0.{message}"
    calls, name = semconv.MESSAGE_TOOL_CALLS, semconv.TOOL_CALL_FUNCTION_NAME
    tool_name = f"{semconv.LLM_OUTPUT_MESSAGES}.1.{calls}.2.{name}"
    text = f"{messages}.0.{semconv.MESSAGE_CONTENTS}.3.{semconv.MESSAGE_CONTENT_TEXT}"
    assert role == "llm.input_messages.0.message.role"
    assert tool_name == "llm.output_messages.1.message.tool_calls.2.tool_call.function.name"
    assert text == "llm.input_messages.0.message.contents.3.message_content.text"


def test_operation_and_span_kind_values() -> None:
    operations = {value for name, value in vars(semconv).items() if name.startswith("OPERATION_")}
    kinds = {value for name, value in vars(semconv).items() if name.startswith("SPAN_KIND_")}
    assert operations == {
        "invoke_agent",
        "create_agent",
        "chat",
        "text_completion",
        "generate_content",
        "embeddings",
        "execute_tool",
        "retrieval",
    }
    assert kinds == {
        "AGENT",
        "CHAIN",
        "LLM",
        "TOOL",
        "RETRIEVER",
        "RERANKER",
        "EMBEDDING",
        "GUARDRAIL",
        "EVALUATOR",
    }


def test_every_name_is_a_plain_string_constant() -> None:
    public = {name: value for name, value in vars(semconv).items() if name.isupper()}
    assert public
    assert all(type(value) is str and value for value in public.values())
