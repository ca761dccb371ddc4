"""How frameworks shape what the conventions leave open: one row per instrumentation, keyed by
its scope name, each naming the conformance corpus recording it was read from
(``tests/fixtures/real/``).

A :class:`ToolShape` row says, for that instrumentation's tool spans:

- ``arguments_in``: the key of the envelope the arguments are recorded in (smolagents records
  ``{"args": [], "sanitize_inputs_outputs": true, "kwargs": {...}}``), and ``envelope``, every
  key such an envelope may hold: arguments are unwrapped only from a JSON object holding the
  argument key and nothing outside the envelope, so a tool whose own parameter is called
  ``kwargs`` is still read as it was called;
- ``name_suffix``: the tool's name is the span's name without it (DSPy: ``lookup_order.__call__``);
- ``result``: how to take the data the tool returned out of what was recorded (a LlamaIndex
  ``ToolOutput``, Bedrock content blocks, a Python ``repr`` of a dict);
- ``arguments_attribute`` / ``result_attribute``: attributes of the instrumentation's own
  that hold the call's arguments and result where no convention's attribute does (Pydantic AI's
  instrumentation version 2: ``tool_arguments``, ``tool_response``);
- ``not_calls``: tools that are the framework's way to end a run, not a call of the agent's
  (smolagents' ``final_answer``, DSPy ReAct's ``finish``): their spans are read as the
  framework's own steps (kind ``other``), and the answer comes from the run's output.

A :data:`VALUE_MESSAGES` row says that a model span's messages are the framework's own objects
in ``input.value`` / ``output.value`` (Haystack's ``ChatMessage`` reprs), and which reader reads
them, where the instrumentation's flattened messages drop call ids and results.

An :data:`EVENTS_ATTRIBUTES` row names the attribute in which an instrumentation records a model
call's GenAI events as one JSON array (Pydantic AI's instrumentation version 1), read as the
span events they would have been.

A :class:`RunShape` row says how the root span of a run records what the user asked and what the
agent answered, where ``input.value`` and ``output.value`` hold a framework object rather than
text: the field of a JSON object that holds it (smolagents' ``{"task": ...}``, CrewAI's
``{"raw": ...}``), or that the root's values are the workflow's own state and the run's text is
the model's (LlamaIndex), read from the model calls instead.

Adding a framework is adding a row (and its recording); nothing else in the importers changes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from trailcheck.importing.shapes.haystack_messages import haystack_messages
from trailcheck.trace import Message, Span, Status, ToolInvocation

Unwrap = Callable[[Any], Any]

# A repr longer than this stays text: parsing it is not worth the time it could take.
_LITERAL_LIMIT: Final = 1_000_000


@dataclass(frozen=True)
class ToolShape:
    """What one instrumentation does with its tool spans (see the module docstring)."""

    arguments_in: str | None = None
    envelope: frozenset[str] = frozenset()
    name_suffix: str | None = None
    result: Unwrap | None = None
    not_calls: frozenset[str] = field(default_factory=frozenset)
    arguments_attribute: str | None = None
    result_attribute: str | None = None

    def arguments(self, recorded: dict[str, Any]) -> dict[str, Any]:
        """The arguments the tool received, out of the envelope when they are in one."""
        if self.arguments_in is None or self.arguments_in not in recorded:
            return recorded
        inner = recorded[self.arguments_in]
        if not isinstance(inner, dict) or not set(recorded) <= self.envelope:
            return recorded
        if recorded.get("args"):  # positional arguments: no names to give them
            return recorded
        return inner

    def name(self, span_name: str) -> str | None:
        """The tool's name read from the span's name, when this instrumentation puts it there."""
        if self.name_suffix is None or not span_name.endswith(self.name_suffix):
            return None
        return span_name.removesuffix(self.name_suffix) or None


def _json(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return value


def python_literal(value: Any) -> Any:
    """A dict or list recorded as its Python ``repr`` (``{'order_id': 'A-1'}``), read back as
    the data; anything else as recorded. ``ast.literal_eval`` evaluates literals only."""
    if not isinstance(value, str) or not value.startswith(("{", "[")):
        return value
    if len(value) > _LITERAL_LIMIT:
        return value
    if isinstance(_json(value), dict | list):
        return value  # JSON already: the call's result parses it
    try:
        data = ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return value
    return data if isinstance(data, dict | list) else value


def text_blocks(value: Any) -> Any:
    """Content blocks that hold only text (``[{"text": "..."}]``, as Strands records a tool's
    result): their text, joined; anything else as recorded."""
    blocks = _json(value)
    if not isinstance(blocks, list) or not blocks:
        return value
    if not all(isinstance(block, dict) and set(block) == {"text"} for block in blocks):
        return value
    texts = [block["text"] for block in blocks]
    return "".join(texts) if all(isinstance(text, str) for text in texts) else value


def llama_index_output(value: Any) -> Any:
    """A LlamaIndex ``ToolOutput`` (``{"blocks", "tool_name", "raw_input", "raw_output",
    "is_error"}``): the tool's own return value, ``raw_output``."""
    output = _json(value)
    if isinstance(output, dict) and {"raw_output", "tool_name", "raw_input"} <= set(output):
        return output["raw_output"]
    return value


def langchain_serialized_tool_message(value: Any) -> Any:
    """OpenLLMetry's record of a LangChain tool's output, ``{"output": {"lc": 1, "type":
    "constructor", "id": [..., "ToolMessage"], "kwargs": {"content": ...}}, ...}``: the
    message's content."""
    recorded = _json(value)
    output = recorded.get("output") if isinstance(recorded, dict) else None
    if not isinstance(output, dict) or output.get("type") != "constructor":
        return value
    identity = output.get("id")
    kwargs = output.get("kwargs")
    is_tool_message = isinstance(identity, list) and identity and identity[-1] == "ToolMessage"
    if not is_tool_message or not isinstance(kwargs, dict) or "content" not in kwargs:
        return value
    return kwargs["content"]


def traceloop_mcp_result(value: Any) -> Any:
    """OpenLLMetry's record of an MCP tool's output, ``{"result": ..., "is_error": ...}``: the
    result (the error's text, for a failed call, is the span's status)."""
    recorded = _json(value)
    if (
        isinstance(recorded, dict)
        and "result" in recorded
        and set(recorded)
        <= {
            "result",
            "is_error",
        }
    ):
        return recorded["result"]
    return value


# One row per instrumentation scope; the fixture each was read from is named beside it.
TOOL_SHAPES: Final[Mapping[str, ToolShape]] = {
    # smolagents-1.26.0-openinference-0.1.43
    "openinference.instrumentation.smolagents": ToolShape(
        arguments_in="kwargs",
        envelope=frozenset({"args", "kwargs", "sanitize_inputs_outputs"}),
        not_calls=frozenset({"final_answer"}),
    ),
    # llama-index-0.14.25-openinference-4.6.1
    "openinference.instrumentation.llama_index": ToolShape(
        arguments_in="kwargs",
        envelope=frozenset({"args", "kwargs"}),
        result=llama_index_output,
    ),
    # dspy-3.4.1-openinference-0.1.48
    "openinference.instrumentation.dspy": ToolShape(
        arguments_in="kwargs",
        envelope=frozenset({"args", "kwargs"}),
        name_suffix=".__call__",
        not_calls=frozenset({"finish"}),
    ),
    # pydantic-ai-2.68.0-v2 (later versions write the GenAI attributes, which come first)
    "pydantic-ai": ToolShape(
        arguments_attribute="tool_arguments", result_attribute="tool_response"
    ),
    # agno-3.1.10-openinference-1.0.15
    "openinference.instrumentation.agno": ToolShape(result=python_literal),
    # beeai-0.1.85-openinference-0.1.30: {"input": {...}, "options": null}; results as str()
    "openinference.instrumentation.beeai": ToolShape(
        arguments_in="input",
        envelope=frozenset({"input", "options"}),
        result=python_literal,
        not_calls=frozenset({"final_answer"}),
    ),
    # autogen-agentchat-0.7.5-openinference-0.1.22
    "openinference.instrumentation.autogen_agentchat": ToolShape(result=python_literal),
    # crewai-1.15.30-openinference-1.1.21-event-listener (its event listener's own scope)
    "openinference.instrumentation.crewai._event_listener": ToolShape(result=python_literal),
    # strands-agents-1.62.0-latest-semconv
    "strands.telemetry.tracer": ToolShape(result=text_blocks),
    # mcp-1.30.0-traceloop-0.62.4: traceloop.entity.input {"tool_name", "arguments"}
    "opentelemetry.instrumentation.mcp.instrumentation": ToolShape(
        arguments_in="arguments",
        envelope=frozenset({"tool_name", "arguments"}),
        result=traceloop_mcp_result,
    ),
    # langgraph-1.2.24-traceloop-0.62.4
    "opentelemetry.instrumentation.langchain": ToolShape(
        arguments_in="inputs",
        envelope=frozenset({"input_str", "tags", "metadata", "inputs", "kwargs"}),
        result=langchain_serialized_tool_message,
    ),
}

NO_TOOL_SHAPE: Final = ToolShape()


def tool_shape(scope_name: str | None) -> ToolShape:
    """The row of the instrumentation named ``scope_name``; a row that changes nothing for an
    instrumentation that follows the conventions as they are."""
    return TOOL_SHAPES.get(scope_name or "", NO_TOOL_SHAPE)


@dataclass(frozen=True)
class RunShape:
    """How an instrumentation's root span records a run's input and answer (see the module
    docstring). ``input_in`` / ``answer_in``: keys tried in order in the JSON object the root's
    ``input.value`` / ``output.value`` holds; ``model_speaks``: those values are the
    framework's state, and the model calls give the run's text."""

    input_in: tuple[str, ...] = ()
    answer_in: tuple[str, ...] = ()
    model_speaks: bool = False

    def input(self, recorded: str) -> str | None:
        """The user's text out of the root's ``input.value``; ``None`` when it is not there."""
        return _field_text(recorded, self.input_in)

    def answer(self, recorded: Any) -> str | None:
        """The agent's answer out of the root's ``output.value``; ``None`` when not there."""
        return _field_text(recorded, self.answer_in)


def _field_text(recorded: Any, keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` that holds text, following a path of keys (``input_args.question``)
    into the JSON object ``recorded`` holds."""
    data = _json(recorded)
    for key in keys:
        found: Any = data
        for step in key.split("."):
            found = found.get(step) if isinstance(found, dict) else None
        if isinstance(found, str):
            return found
    return None


RUN_SHAPES: Final[Mapping[str, RunShape]] = {
    # smolagents-1.26.0-openinference-0.1.43: input.value = {"task": ..., "stream": ..., ...}
    "openinference.instrumentation.smolagents": RunShape(input_in=("task",)),
    # beeai-0.1.85-openinference-0.1.30: input.value = {"input": ...}
    "openinference.instrumentation.beeai": RunShape(input_in=("input",)),
    # dspy-3.4.1-openinference-0.1.48: {"input_args": {"question": ...}} and the Prediction
    "openinference.instrumentation.dspy": RunShape(
        input_in=("input_args.question",), answer_in=("answer",)
    ),
    # crewai-1.15.30-openinference-1.1.21: the CrewOutput / TaskOutput, whose text is "raw"
    "openinference.instrumentation.crewai": RunShape(answer_in=("raw",)),
    "openinference.instrumentation.crewai._event_listener": RunShape(answer_in=("raw",)),
    # llama-index-0.14.25-openinference-4.6.1: the workflow's start state and its StopEvent repr
    "openinference.instrumentation.llama_index": RunShape(model_speaks=True),
    # haystack-3.4.1-openinference-0.1.46: {"messages": [<ChatMessage reprs>]} on both sides
    "openinference.instrumentation.haystack": RunShape(model_speaks=True),
}

NO_RUN_SHAPE: Final = RunShape()


def run_shape(scope_name: Any) -> RunShape:
    """The row of the instrumentation named ``scope_name`` (a root span's ``otel.scope.name``)."""
    return RUN_SHAPES.get(scope_name if isinstance(scope_name, str) else "", NO_RUN_SHAPE)


@dataclass(frozen=True)
class ValueMessages:
    """Where a model span records its messages as the framework's own objects: the lists under
    ``input_key`` of ``input.value`` and ``output_key`` of ``output.value``, and the reader of
    them (``read(value, key, field)``)."""

    read: Callable[[Any, str, str], list[Message] | None]
    input_key: str
    output_key: str


# Instrumentations whose model spans' flattened messages drop what a grader needs (a tool
# message's result, every call id) and whose input.value / output.value keep it.
VALUE_MESSAGES: Final[Mapping[str, ValueMessages]] = {
    # haystack-3.4.1-openinference-0.1.46: ChatMessage reprs; no tool spans
    "openinference.instrumentation.haystack": ValueMessages(
        haystack_messages, "messages", "replies"
    ),
}


# Instrumentations that record a model call's GenAI events as one JSON array attribute of its
# span instead of span events or log records; the attribute, by scope.
EVENTS_ATTRIBUTES: Final[Mapping[str, str]] = {
    # pydantic-ai-1.107.10-v1: instrumentation version 1, event_mode="attributes"
    "pydantic-ai": "events",
}


def one_call_per_tool(spans: list[Span]) -> list[Span]:
    """A call recorded twice, by two instrumentations nested one in the other (AutoGen's
    OpenInference TOOL span around autogen-core's own ``execute_tool`` span, in
    autogen-agentchat-0.7.5-openinference-0.1.22), as one: the outer span keeps the call, taking
    what only the inner one recorded (its call id, its error, its arguments or result where the
    outer has none), and the inner becomes a step of it (kind ``other``)."""
    by_id = {span.span_id: span for span in spans}
    merged: dict[str, Span] = {}
    inner_ids: set[str] = set()
    for span in spans:
        outer = by_id.get(span.parent_id or "")
        if span.tool is None or outer is None or outer.tool is None:
            continue
        if span.tool.name != outer.tool.name:
            continue
        base = merged.get(outer.span_id, outer)
        assert base.tool is not None
        merged[outer.span_id] = base.model_copy(
            update={"tool": _merged_call(base.tool, span.tool), "status": _worse(base, span)}
        )
        inner_ids.add(span.span_id)
    if not inner_ids:
        return spans
    return [
        span.model_copy(update={"kind": "other", "tool": None})
        if span.span_id in inner_ids
        else merged.get(span.span_id, span)
        for span in spans
    ]


def _merged_call(outer: ToolInvocation, inner: ToolInvocation) -> ToolInvocation:
    failed = inner.error is not None or outer.error is not None
    return outer.model_copy(
        update={
            "call_id": outer.call_id or inner.call_id,
            "arguments": outer.arguments or inner.arguments,
            # A failed call's "result" is the error's text the outer wrapper saw: not data.
            "result": None
            if failed
            else (outer.result if outer.result is not None else inner.result),
            "error": outer.error or inner.error,
            "sequence": outer.sequence if outer.sequence is not None else inner.sequence,
        }
    )


def _worse(outer: Span, inner: Span) -> Status:
    return inner.status if inner.status.code == "error" else outer.status
