"""The tools an agent was given, as it or its dataset declared them, and each tool's contract:
the JSON Schema of its arguments and, when declared, of its result.

Where declarations are found, the first that names a tool supplying its contract:

1. the tool span itself: ``gen_ai.tool.json_schema`` or OpenInference's ``tool.parameters``
   (the schema of that tool's arguments, an object or its JSON text);
2. the trace's metadata: ``tool_declarations`` (or ``tools``), a list of declarations;
3. the trace's spans: ``gen_ai.tool.definitions`` (GenAI; a list or its JSON text), and
   OpenInference's ``llm.tools.{i}.tool.json_schema`` on model spans;
4. the case's metadata: ``tool_declarations``.

A declaration is read in the shapes providers write: ``{name, description, parameters}`` (GenAI,
OpenAI Responses), ``{type: function, function: {name, parameters}}`` (OpenAI Chat),
``{name, input_schema}`` (Anthropic) and ``{name, inputSchema, outputSchema}`` (MCP). Its
result's schema is ``result_schema``, ``output_schema`` or ``outputSchema``; a sub-agent that
its caller calls as a tool is declared the same way, under the sub-agent's name, and its output
is checked against that result schema. Anything else in the list is passed over.

The judges show the same declarations to a model (:func:`declared_tools`, used by
:mod:`trailcheck.judge.render`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from trailcheck.cases import Case
from trailcheck.trace import Span, Trace
from trailcheck.trace.semconv import TOOL_PARAMETERS

__all__ = [
    "GEN_AI_TOOL_DEFINITIONS",
    "GEN_AI_TOOL_JSON_SCHEMA",
    "TOOL_DECLARATIONS_KEY",
    "ToolContract",
    "contract_of",
    "declared_tools",
    "span_arguments_schema",
    "tool_contracts",
]

TOOL_DECLARATIONS_KEY: Final = "tool_declarations"
GEN_AI_TOOL_DEFINITIONS: Final = "gen_ai.tool.definitions"
GEN_AI_TOOL_JSON_SCHEMA: Final = "gen_ai.tool.json_schema"
_TRACE_KEYS: Final = (TOOL_DECLARATIONS_KEY, "tools")
_FIRST_OPENINFERENCE_TOOL: Final = "llm.tools.0.tool.json_schema"
_RESULT_KEYS: Final = ("result_schema", "output_schema", "outputSchema")
_ARGUMENT_KEYS: Final = ("parameters", "input_schema", "inputSchema")


@dataclass(frozen=True, slots=True)
class ToolContract:
    """A declared tool: the schema of its arguments and of its result (``None``: not
    declared, not checked)."""

    name: str
    arguments: Any = None
    result: Any = None


def declared_tools(trace: Trace, case: Case | None = None) -> list[Any] | None:
    """The declarations in the trace's metadata (``tool_declarations``, else ``tools``), else in
    the case's (``tool_declarations``), as written; ``None`` when neither records any."""
    for key in _TRACE_KEYS:
        found = trace.metadata.get(key)
        if isinstance(found, list) and found:
            return found
    return None if case is None else _case_declarations(case)


def _case_declarations(case: Case) -> list[Any] | None:
    found = case.metadata.get(TOOL_DECLARATIONS_KEY)
    return list(found) if isinstance(found, list) and found else None


def _decoded(value: Any) -> Any:
    """An attribute's value, its JSON text decoded; ``None`` for text that is not JSON."""
    if not isinstance(value, str):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


def contract_of(declaration: Any) -> ToolContract | None:
    """The contract one declaration states (see the module), or ``None`` when it names no tool."""
    if not isinstance(declaration, Mapping):
        return None
    inner = declaration.get("function")
    source = inner if isinstance(inner, Mapping) else declaration
    name = source.get("name")
    if not isinstance(name, str) or not name:
        return None
    arguments = next((source[key] for key in _ARGUMENT_KEYS if key in source), None)
    result = next((source[key] for key in _RESULT_KEYS if key in source), None)
    return ToolContract(name, _decoded(arguments), _decoded(result))


def _span_declarations(trace: Trace) -> Iterator[Any]:
    for span in trace.spans:
        attributes = span.attributes
        if GEN_AI_TOOL_DEFINITIONS in attributes:
            listed = _decoded(attributes[GEN_AI_TOOL_DEFINITIONS])
            if isinstance(listed, list):
                yield from listed
        if _FIRST_OPENINFERENCE_TOOL in attributes:
            index = 0
            while (found := attributes.get(f"llm.tools.{index}.tool.json_schema")) is not None:
                yield _decoded(found)
                index += 1


def tool_contracts(trace: Trace, case: Case | None = None) -> dict[str, ToolContract]:
    """Tool name → its contract, from the trace and the case (see the module for the order;
    the span's own schema is :func:`span_arguments_schema`'s)."""
    contracts: dict[str, ToolContract] = {}
    sources: list[Any] = [*(declared_tools(trace) or ()), *_span_declarations(trace)]
    if case is not None:
        sources.extend(_case_declarations(case) or ())
    for declaration in sources:
        contract = contract_of(declaration)
        if contract is not None and contract.name not in contracts:
            contracts[contract.name] = contract
    return contracts


def span_arguments_schema(span: Span) -> Any:
    """The schema of its arguments a tool span records itself (``gen_ai.tool.json_schema``,
    ``tool.parameters``); ``None`` when it records none."""
    attributes = span.attributes
    for key in (GEN_AI_TOOL_JSON_SCHEMA, TOOL_PARAMETERS):
        if key in attributes:
            found = _decoded(attributes[key])
            if isinstance(found, dict | bool):
                return found
    return None
