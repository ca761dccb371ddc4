"""The conformance corpus: every recording in ``tests/fixtures/real/`` (made by the scripts in
its ``recorders/`` folder from the real libraries), and, for each, what its library records and
what trailcheck reads of it today.

Each column of :data:`~tests.conformance.truth.COLUMNS` is, per configuration, one of:

- read: trailcheck reads it right in every run (the default);
- ``absent``: the library does not record it in this configuration (content capture off, no
  model spans): trailcheck must show nothing there rather than something made up;
- ``gaps``: the library records it and trailcheck does not read it right yet, with why. The
  test of such a column is expected to fail (strictly: reading it right fails the test until
  the gap is struck from this table).

The compatibility matrix in docs/frameworks.md is generated from this table and the test's own
checks (``python -m tests.conformance.matrix``), never kept by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tests.conformance.truth import REAL, RUNS, Run
from trailcheck.importing import import_traces
from trailcheck.trace import Trace

CONTENT_OFF = ("arguments", "results", "answer", "input")


@dataclass(frozen=True)
class Configuration:
    fixture: str  # the recording's file name, without .traces.pb / .logs.pb
    framework: str
    configuration: str
    absent: tuple[str, ...] = ()
    gaps: dict[str, str] = field(default_factory=dict)

    @property
    def runs(self) -> list[Run]:
        return list(RUNS.values())

    def traces(self) -> list[Trace]:
        """The traces of the runs, in the order played: a trace that neither calls a model nor
        a tool (an MCP handshake, an agent being built) is not a run."""
        files = [REAL / f"{self.fixture}.traces.pb"]
        logs = REAL / f"{self.fixture}.logs.pb"
        if logs.exists():
            files.append(logs)
        found: list[Trace] = []
        summary = import_traces(files, found.append)
        assert summary.rejections == [], summary.rejections
        found.sort(key=lambda trace: min(span.start_ns for span in trace.spans))
        return [trace for trace in found if _is_run(trace)]


def _is_run(trace: Trace) -> bool:
    root = trace.tree.root
    building = root is not None and root.name.startswith("create_agent")
    return not building and (bool(trace.tool_calls) or any(s.kind == "llm" for s in trace.spans))


CREW_INPUTS = (
    "the run's input is the crew's kickoff inputs, kept as JSON: they fill the crew's own"
    " placeholders ({question}, {history}), and which one is the user's message only the crew"
    " knows"
)

CORPUS: Final[list[Configuration]] = [
    Configuration("strands-agents-1.62.0", "Strands Agents", "default telemetry"),
    Configuration(
        "strands-agents-1.62.0-latest-semconv", "Strands Agents", "gen_ai_latest_experimental"
    ),
    Configuration("smolagents-1.26.0-openinference-0.1.43", "smolagents", "OpenInference"),
    Configuration(
        "llama-index-0.14.25-openinference-4.6.1",
        "LlamaIndex FunctionAgent",
        "OpenInference (streamed, no usage asked for)",
        absent=("tokens",),
    ),
    Configuration(
        "llama-index-0.14.25-openinference-4.6.1-stream-usage",
        "LlamaIndex FunctionAgent",
        "OpenInference (streamed with usage)",
    ),
    Configuration("agno-3.1.10-openinference-1.0.15", "Agno", "OpenInference"),
    Configuration(
        "haystack-3.4.1-openinference-0.1.46",
        "Haystack Agent",
        "OpenInference",
    ),
    Configuration(
        "beeai-0.1.85-openinference-0.1.30",
        "BeeAI RequirementAgent",
        "OpenInference",
    ),
    Configuration(
        "autogen-agentchat-0.7.5-openinference-0.1.22",
        "AutoGen AgentChat",
        "OpenInference + autogen-core",
    ),
    Configuration(
        "autogen-agentchat-0.7.5-autogen-core-0.7.5",
        "AutoGen AgentChat",
        "autogen-core only",
        absent=("arguments", "results", "answer", "input", "tokens", "model", "session"),
    ),
    Configuration(
        "crewai-1.15.30-openinference-1.1.21",
        "CrewAI",
        "OpenInference",
        absent=("model",),
        gaps={
            "input": CREW_INPUTS,
            "tokens": "no model span is recorded, and the crew's token_usage in its kickoff"
            " output is the crew object's running total, not the run's (two_turns' second"
            " kickoff reports both turns: 800 in, 80 out)",
        },
    ),
    Configuration(
        "crewai-1.15.30-openinference-1.1.21-event-listener",
        "CrewAI",
        "OpenInference event listener",
        gaps={"input": CREW_INPUTS},
    ),
    Configuration(
        "dspy-3.4.1-openinference-0.1.48", "DSPy ReAct", "OpenInference", absent=("tokens",)
    ),
    Configuration(
        "dspy-3.4.1-openinference-0.1.48-litellm", "DSPy ReAct", "OpenInference + litellm"
    ),
    Configuration("langgraph-1.2.24-openinference-0.1.80", "LangGraph", "OpenInference"),
    Configuration("langgraph-1.2.24-traceloop-0.62.4", "LangGraph", "OpenLLMetry (traceloop)"),
    Configuration(
        "langgraph-1.2.24-traceloop-0.62.4-events",
        "LangGraph",
        "OpenLLMetry, content as log events",
    ),
    Configuration(
        "litellm-1.110.2-otel-agent-span",
        "litellm",
        "its OTel callback, under an app span",
        absent=("errors",),  # litellm runs no tool: a failure is only in the next request
    ),
    Configuration(
        "litellm-1.110.2-otel-agent-span-latest-semconv",
        "litellm",
        "its OTel callback, latest semconv",
        absent=("errors",),  # litellm runs no tool: a failure is only in the next request
    ),
    Configuration(
        "anthropic-2.17.0-openinference-3.1.0",
        "Anthropic SDK",
        "OpenInference, app agent span",
    ),
    Configuration("mcp-2.3.0-openinference-2.0.13", "MCP (mcp 2.x)", "OpenInference + mcp spans"),
    Configuration(
        "mcp-1.30.0-traceloop-0.62.4",
        "MCP (mcp 1.x)",
        "OpenLLMetry",
    ),
    Configuration("openai-agents-0.24.0-openinference-2.6.0", "OpenAI Agents SDK", "OpenInference"),
    Configuration("openai-agents-0.24.0-logfire-5.4.0", "OpenAI Agents SDK", "logfire"),
    Configuration("pydantic-ai-2.68.0", "Pydantic AI", "instrumentation (default)"),
    Configuration("pydantic-ai-2.68.0-v2", "Pydantic AI", "instrumentation version 2"),
    Configuration("pydantic-ai-2.68.0-v6", "Pydantic AI", "instrumentation version 6"),
    Configuration(
        "pydantic-ai-2.68.0-no-content", "Pydantic AI", "content off", absent=CONTENT_OFF
    ),
    Configuration(
        "pydantic-ai-1.107.10-v1",
        "Pydantic AI",
        "instrumentation version 1 (pydantic-ai 1.107.10)",
    ),
    Configuration(
        "pydantic-ai-1.107.10-v1-logs",
        "Pydantic AI",
        "instrumentation version 1, event_mode='logs' (pydantic-ai 1.107.10)",
    ),
    Configuration("adk-2.13.0", "Google ADK", "default (no content)", absent=CONTENT_OFF),
    Configuration("adk-2.13.0-content", "Google ADK", "content on"),
    Configuration("adk-2.13.0-schema-v1", "Google ADK", "schema v1"),
    Configuration("adk-2.13.0-schema-v1-latest-semconv", "Google ADK", "schema v1, latest semconv"),
    Configuration(
        "adk-2.13.0-schema-v1-no-content",
        "Google ADK",
        "schema v1, content off",
        absent=CONTENT_OFF,
    ),
    Configuration(
        "openai-v2-2.4b0-span-only",
        "openai SDK",
        "opentelemetry-instrumentation-openai-v2, span content",
        absent=("errors",),
    ),
    Configuration(
        "openai-v2-2.4b0-event-only",
        "openai SDK",
        "opentelemetry-instrumentation-openai-v2, event content",
        absent=("errors",),
    ),
    Configuration(
        "openai-v2-2.4b0-legacy-events",
        "openai SDK",
        "opentelemetry-instrumentation-openai-v2, legacy events",
        absent=("errors",),
    ),
    Configuration(
        "openai-v2-2.4b0-no-content",
        "openai SDK",
        "opentelemetry-instrumentation-openai-v2, content off",
        absent=(*CONTENT_OFF, "errors"),
    ),
    Configuration(
        "openinference-openai-0.1.66",
        "openai SDK",
        "OpenInference",
        absent=("errors",),
    ),
]

# Recorded, but with no run to hold a trace to: the library writes one trace per model call.
PER_MODEL_CALL: Final = (
    "litellm-1.110.2-otel",
    "anthropic-2.17.0-openinference-3.1.0-bare",
    "openai-v2-2.4b0-span-only-bare",
    "openinference-openai-0.1.66-bare",
)
# Runs that end in an exception the agent does not catch (the library's default): read by
# tests/importing/test_real_instrumentations.py.
NOT_A_CONVERSATION: Final = (
    "langgraph-1.2.24-openinference-0.1.80-default-tool-error",
    "adk-2.13.0-tool-raises",
)


def recorded_fixtures() -> set[str]:
    """Every recording in the corpus folder, by name."""
    return {path.name.removesuffix(".traces.pb") for path in Path(REAL).glob("*.traces.pb")}
