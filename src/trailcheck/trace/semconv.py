"""Attribute names of the semantic conventions trailcheck reads and writes on spans.

Four vocabularies: the OpenTelemetry GenAI semantic conventions (``gen_ai.*``), OpenInference
(Arize's conventions, used by Phoenix and many instrumentations), trailcheck's own
(``trailcheck.*``), and the reserved ``otel.*`` names under which the importers keep what OTLP
records beside a span's attributes. Names only; what they mean to a trace is decided in
:mod:`trailcheck.importing.spans`.
"""

from __future__ import annotations

from typing import Final

# --- OpenTelemetry GenAI --------------------------------------------------------------------

# The operation a GenAI span records, and its well-known values.
GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
OPERATION_INVOKE_AGENT = "invoke_agent"
OPERATION_CREATE_AGENT = "create_agent"
OPERATION_CHAT = "chat"
OPERATION_TEXT_COMPLETION = "text_completion"
OPERATION_GENERATE_CONTENT = "generate_content"
OPERATION_EMBEDDINGS = "embeddings"
OPERATION_EXECUTE_TOOL = "execute_tool"
# Read as a retriever span; newer GenAI conventions name retrieval operations so (tolerant
# reading: a value we do not know would still be kept, this one is also understood).
OPERATION_RETRIEVAL = "retrieval"

# A tool execution: the span is named "execute_tool {gen_ai.tool.name}".
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id"
GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
GEN_AI_TOOL_CALL_RESULT = "gen_ai.tool.call.result"
EXECUTE_TOOL_SPAN_NAME_PREFIX = "execute_tool "

# Content: JSON arrays of messages (each {"role", "parts"}, or the older {"role", "content"})
# and of system-instruction parts.
GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages"
GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages"
GEN_AI_SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"

# Message part types of the current content schema.
PART_TEXT = "text"
PART_TOOL_CALL = "tool_call"
PART_TOOL_CALL_RESPONSE = "tool_call_response"

# The model and who serves it; gen_ai.system is the deprecated name of gen_ai.provider.name.
GEN_AI_REQUEST_MODEL = "gen_ai.request.model"
GEN_AI_RESPONSE_MODEL = "gen_ai.response.model"
GEN_AI_PROVIDER_NAME = "gen_ai.provider.name"
GEN_AI_SYSTEM = "gen_ai.system"

# Token usage of one model call.
GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"

# Which agent ran (an invoke_agent span is named "invoke_agent {gen_ai.agent.name}"), and the
# conversation (session, thread) the run belongs to.
GEN_AI_AGENT_NAME = "gen_ai.agent.name"
INVOKE_AGENT_SPAN_NAME_PREFIX = "invoke_agent "
GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id"

# OpenTelemetry's general error attribute: the class of error an operation ended with.
ERROR_TYPE = "error.type"

# The span event OpenTelemetry records an exception as, and its attributes.
EXCEPTION_EVENT = "exception"
EXCEPTION_TYPE = "exception.type"
EXCEPTION_MESSAGE = "exception.message"

# --- OpenInference --------------------------------------------------------------------------

# The kind of an OpenInference span, and its values (upper case, as the spec writes them).
OPENINFERENCE_SPAN_KIND = "openinference.span.kind"
SPAN_KIND_AGENT = "AGENT"
SPAN_KIND_CHAIN = "CHAIN"
SPAN_KIND_LLM = "LLM"
SPAN_KIND_TOOL = "TOOL"
SPAN_KIND_RETRIEVER = "RETRIEVER"
SPAN_KIND_RERANKER = "RERANKER"
SPAN_KIND_EMBEDDING = "EMBEDDING"
SPAN_KIND_GUARDRAIL = "GUARDRAIL"
SPAN_KIND_EVALUATOR = "EVALUATOR"

# A TOOL span: its name and call id; tool.parameters is the tool's parameter JSON schema, while
# the call's arguments are the span's input.value.
TOOL_NAME = "tool.name"
TOOL_PARAMETERS = "tool.parameters"
TOOL_CALL_ID = "tool_call.id"

# Any span's input and output, with the MIME type of each value.
INPUT_VALUE = "input.value"
INPUT_MIME_TYPE = "input.mime_type"
OUTPUT_VALUE = "output.value"
OUTPUT_MIME_TYPE = "output.mime_type"
MIME_TYPE_JSON = "application/json"
MIME_TYPE_TEXT = "text/plain"

# --- OpenLLMetry (traceloop) ----------------------------------------------------------------

# OpenLLMetry's "entity" spans: their kind (workflow, task, agent, tool), the entity's name (a
# tool span's tool), and its input and output as JSON text.
TRACELOOP_SPAN_KIND = "traceloop.span.kind"
TRACELOOP_KIND_TOOL = "tool"
TRACELOOP_KIND_AGENT = "agent"
TRACELOOP_ENTITY_NAME = "traceloop.entity.name"
TRACELOOP_ENTITY_INPUT = "traceloop.entity.input"
TRACELOOP_ENTITY_OUTPUT = "traceloop.entity.output"

# An LLM span's model, provider and token counts.
LLM_MODEL_NAME = "llm.model_name"
LLM_PROVIDER = "llm.provider"
LLM_SYSTEM = "llm.system"
LLM_TOKEN_COUNT_PROMPT = "llm.token_count.prompt"
LLM_TOKEN_COUNT_COMPLETION = "llm.token_count.completion"

# Messages, flattened with zero-based indices: "llm.input_messages.0.message.role".
LLM_INPUT_MESSAGES = "llm.input_messages"
LLM_OUTPUT_MESSAGES = "llm.output_messages"

# The keys of one flattened message, after "llm.input_messages.{i}.".
MESSAGE_ROLE = "message.role"
MESSAGE_CONTENT = "message.content"
MESSAGE_NAME = "message.name"
MESSAGE_TOOL_CALL_ID = "message.tool_call_id"
MESSAGE_TOOL_CALLS = "message.tool_calls"
MESSAGE_CONTENTS = "message.contents"

# The keys of one flattened tool call, after "message.tool_calls.{j}.".
TOOL_CALL_FUNCTION_NAME = "tool_call.function.name"
TOOL_CALL_FUNCTION_ARGUMENTS = "tool_call.function.arguments"

# The keys of one flattened content item, after "message.contents.{k}.".
MESSAGE_CONTENT_TYPE = "message_content.type"
MESSAGE_CONTENT_TEXT = "message_content.text"

# The session a run belongs to, and the agent that ran.
SESSION_ID = "session.id"
AGENT_NAME = "agent.name"

# --- OTLP log records kept as span events ---------------------------------------------------

# A GenAI event log record joined to its span is kept as an event of that span: its attributes
# as they were, and these reserved names for what a log record has beside them.
OTEL_LOG_BODY = "otel.log.body"
OTEL_LOG_SEVERITY_NUMBER = "otel.log.severity_number"
OTEL_LOG_SEVERITY_TEXT = "otel.log.severity_text"
# Older producers name a log record's event in this attribute instead of the EventName field.
EVENT_NAME = "event.name"
GEN_AI_EVENT_PREFIX = "gen_ai."

# --- trailcheck -----------------------------------------------------------------------------

# Explicit order of a tool call, for calls whose start times tie.
TRAILCHECK_SEQUENCE = "trailcheck.sequence"

# On a span of a run whose every tool call was recorded as a tool span (trailcheck's Recorder):
# a tool call the model's messages ask for with no tool span did not run.
TRAILCHECK_TOOL_SPANS = "trailcheck.tool_spans"

# --- OTLP span fields kept as attributes ----------------------------------------------------

# What OTLP records beside a span's attributes, kept on the span under these reserved names
# (the ``otel.`` namespace is OpenTelemetry's; ``otel.scope.name`` and ``otel.scope.version``
# are its own names for the scope in non-OTLP formats). Each is set only when the source
# records it: a count only when it is not 0, text only when it is not empty.
OTEL_SPAN_KIND = "otel.span.kind"
OTEL_TRACE_STATE = "otel.trace_state"
OTEL_FLAGS = "otel.flags"
# A list of {"trace_id", "span_id", "trace_state", "attributes"}, with "flags" and
# "dropped_attributes_count" where they are not 0.
OTEL_LINKS = "otel.links"
OTEL_DROPPED_ATTRIBUTES_COUNT = "otel.dropped_attributes_count"
OTEL_DROPPED_EVENTS_COUNT = "otel.dropped_events_count"
OTEL_DROPPED_LINKS_COUNT = "otel.dropped_links_count"
OTEL_SCOPE_NAME = "otel.scope.name"
OTEL_SCOPE_VERSION = "otel.scope.version"
OTEL_SCOPE_ATTRIBUTES = "otel.scope.attributes"
OTEL_SCOPE_DROPPED_ATTRIBUTES_COUNT = "otel.scope.dropped_attributes_count"
OTEL_SCOPE_SCHEMA_URL = "otel.scope.schema_url"
OTEL_RESOURCE_DROPPED_ATTRIBUTES_COUNT = "otel.resource.dropped_attributes_count"
OTEL_RESOURCE_SCHEMA_URL = "otel.resource.schema_url"

# The OpenTelemetry span kinds, as OTEL_SPAN_KIND spells them (OTLP's SPAN_KIND_UNSPECIFIED is
# no kind, and sets nothing). Final, so their types are the literal values.
OTEL_SPAN_KIND_INTERNAL: Final = "internal"
OTEL_SPAN_KIND_SERVER: Final = "server"
OTEL_SPAN_KIND_CLIENT: Final = "client"
OTEL_SPAN_KIND_PRODUCER: Final = "producer"
OTEL_SPAN_KIND_CONSUMER: Final = "consumer"
