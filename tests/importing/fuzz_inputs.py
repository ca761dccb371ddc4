"""Hypothesis strategies for structurally valid inputs of every format trailcheck reads.

An input is one or more :class:`InputFile`: a JSON document, JSON Lines, or an OTLP protobuf
message, kept as structure so :mod:`tests.importing.fuzz_mutations` can damage it at any path
before it is encoded. Agent runs (a root ``invoke_agent`` span with tool and model calls under
it) are drawn once and written in each format, so every reader sees the same kinds of values:
tool arguments and results that are JSON text inside JSON, token counts, nanosecond times,
hex ids, and GenAI log events joined to their model call.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Literal

import orjson
from hypothesis import strategies as st
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan

from tests.trace.strategies import traces as any_traces
from trailcheck.importing.formats import FORMAT_NAMES

Layout = Literal["json", "jsonl", "protobuf"]
START_NS = 1_700_000_000_000_000_000


@dataclass(frozen=True)
class InputFile:
    """One file of an input: its name, how it is written, and its content (a JSON value; a list
    of line records for ``jsonl``; an export request message for ``protobuf``)."""

    name: str
    layout: Layout
    content: Any


@dataclass(frozen=True)
class ToolStep:
    name: str
    call_id: str
    arguments: dict[str, Any]
    result: Any


@dataclass(frozen=True)
class ChatStep:
    model: str
    input_tokens: int
    output_tokens: int
    text: str


@dataclass(frozen=True)
class AgentRun:
    trace_id: str
    agent: str
    user_input: str
    steps: tuple[ToolStep | ChatStep, ...]
    answer: str

    def span_id(self, index: int) -> str:
        """The root is 0, step ``i`` is ``i + 1``: 16 hex digits, unique within the run."""
        return hashlib.sha256(f"{self.trace_id}/{index}".encode()).hexdigest()[:16]


# Text with any non-surrogate code point, so UTF-8 of every width reaches the readers.
texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
words = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10)
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=6,
)
tool_steps = st.builds(
    ToolStep,
    name=words,
    call_id=words.map(lambda word: f"call_{word}"),
    arguments=st.dictionaries(words, json_values, max_size=3),
    result=json_values,
)
chat_steps = st.builds(
    ChatStep,
    model=words,
    input_tokens=st.integers(0, 10**6),
    output_tokens=st.integers(0, 10**6),
    text=texts,
)
trace_ids = st.binary(min_size=16, max_size=16).filter(any).map(bytes.hex)


@st.composite
def agent_runs(draw: st.DrawFn, max_runs: int = 3) -> list[AgentRun]:
    ids = draw(st.lists(trace_ids, min_size=1, max_size=max_runs, unique=True))
    runs = []
    for trace_id in ids:
        steps = draw(st.lists(tool_steps | chat_steps, max_size=4))
        # A call id answers one call: the readers refuse two calls awaiting one id.
        unique = {s.call_id if isinstance(s, ToolStep) else id(s): s for s in steps}
        runs.append(
            AgentRun(trace_id, draw(words), draw(texts), tuple(unique.values()), draw(texts))
        )
    return runs


def _json_text(value: Any) -> str:
    return orjson.dumps(value).decode()


def _attributes(run: AgentRun, index: int) -> tuple[str, dict[str, Any]]:
    """The name and attributes of span ``index`` of ``run`` (0 is the root)."""
    if index == 0:
        return f"invoke_agent {run.agent}", {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": run.agent,
            "input.value": run.user_input,
            "app.steps": len(run.steps),  # a plain integer attribute, for huge integers
        }
    step = run.steps[index - 1]
    if isinstance(step, ToolStep):
        return f"execute_tool {step.name}", {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": step.name,
            "gen_ai.tool.call.id": step.call_id,
            "gen_ai.tool.call.arguments": _json_text(step.arguments),
            "gen_ai.tool.call.result": _json_text(step.result),
        }
    output = [{"role": "assistant", "parts": [{"type": "text", "content": step.text}]}]
    return f"chat {step.model}", {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": step.model,
        "gen_ai.usage.input_tokens": step.input_tokens,
        "gen_ai.usage.output_tokens": step.output_tokens,
        "gen_ai.output.messages": _json_text(output),
    }


def _times(run: AgentRun, index: int) -> tuple[int, int]:
    if index == 0:
        return START_NS, START_NS + 1000 * (len(run.steps) + 1)
    return START_NS + 1000 * index, START_NS + 1000 * index + 500


def _span_records(run: AgentRun) -> list[dict[str, Any]]:
    """The spans of ``run`` in the span JSONL format."""
    records = []
    for index in range(len(run.steps) + 1):
        name, attributes = _attributes(run, index)
        start, end = _times(run, index)
        records.append(
            {
                "trace_id": run.trace_id,
                "span_id": run.span_id(index),
                "parent_span_id": run.span_id(0) if index else None,
                "name": name,
                "start_ns": start,
                "end_ns": end,
                "status": "UNSET",
                "attributes": attributes,
            }
        )
    return records


def any_value_json(value: Any) -> dict[str, Any]:
    """An attribute value as OTLP/JSON writes it."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": value}


def _otlp_json_spans(run: AgentRun) -> dict[str, Any]:
    spans = []
    for record in _span_records(run):
        span = {
            "traceId": record["trace_id"],
            "spanId": record["span_id"],
            "name": record["name"],
            "kind": 1,
            "startTimeUnixNano": str(record["start_ns"]),
            "endTimeUnixNano": str(record["end_ns"]),
            "attributes": [
                {"key": key, "value": any_value_json(value)}
                for key, value in record["attributes"].items()
            ],
            "status": {},
        }
        if record["parent_span_id"]:
            span["parentSpanId"] = record["parent_span_id"]
        spans.append(span)
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "shop"}}]}
    return {"resource": resource, "scopeSpans": [{"scope": {"name": "fuzz"}, "spans": spans}]}


def _chat_events(run: AgentRun) -> list[tuple[str, int, str]]:
    """A GenAI user-message event for each model call: (span id, time, content)."""
    return [
        (run.span_id(index + 1), _times(run, index + 1)[0] + 1, run.user_input)
        for index, step in enumerate(run.steps)
        if isinstance(step, ChatStep)
    ]


def _otlp_json_logs(runs: list[AgentRun]) -> dict[str, Any]:
    records = [
        {
            "timeUnixNano": str(time),
            "eventName": "gen_ai.user.message",
            "traceId": run.trace_id,
            "spanId": span_id,
            "body": {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": c}}]}},
            "attributes": [{"key": "gen_ai.system", "value": {"stringValue": "openai"}}],
        }
        for run in runs
        for span_id, time, c in _chat_events(run)
    ]
    scope = {"scope": {"name": "fuzz"}, "logRecords": records}
    return {"resourceLogs": [{"resource": {}, "scopeLogs": [scope]}]}


def any_value_proto(value: Any) -> Any:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    return AnyValue(string_value=value)


def _proto_traces(runs: list[AgentRun]) -> Any:
    request = ExportTraceServiceRequest()
    for run in runs:
        entry = request.resource_spans.add()
        entry.resource.attributes.add(key="service.name", value=AnyValue(string_value="shop"))
        scope = entry.scope_spans.add()
        scope.scope.name = "fuzz"
        for record in _span_records(run):
            scope.spans.append(
                ProtoSpan(
                    trace_id=bytes.fromhex(record["trace_id"]),
                    span_id=bytes.fromhex(record["span_id"]),
                    parent_span_id=bytes.fromhex(record["parent_span_id"] or ""),
                    name=record["name"],
                    kind=ProtoSpan.SPAN_KIND_INTERNAL,
                    start_time_unix_nano=record["start_ns"],
                    end_time_unix_nano=record["end_ns"],
                    attributes=[
                        KeyValue(key=key, value=any_value_proto(value))
                        for key, value in record["attributes"].items()
                    ],
                )
            )
    return request


def _proto_logs(runs: list[AgentRun]) -> Any:
    request = ExportLogsServiceRequest()
    scope = request.resource_logs.add().scope_logs.add()
    scope.scope.name = "fuzz"
    for run in runs:
        for span_id, time, content in _chat_events(run):
            body = AnyValue()
            body.kvlist_value.values.add(key="content", value=AnyValue(string_value=content))
            scope.log_records.append(
                LogRecord(
                    time_unix_nano=time,
                    event_name="gen_ai.user.message",
                    trace_id=bytes.fromhex(run.trace_id),
                    span_id=bytes.fromhex(span_id),
                    body=body,
                    attributes=[KeyValue(key="gen_ai.system", value=any_value_proto("openai"))],
                )
            )
    return request


def _openai_messages(run: AgentRun) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": run.user_input}]
    for step in run.steps:
        if isinstance(step, ChatStep):
            messages.append({"role": "assistant", "content": step.text})
            continue
        call = {"name": step.name, "arguments": _json_text(step.arguments)}
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": step.call_id, "type": "function", "function": call}],
            }
        )
        result = _json_text(step.result)
        messages.append({"role": "tool", "tool_call_id": step.call_id, "content": result})
    messages.append({"role": "assistant", "content": run.answer})
    return messages


def _tau_bench_result(run: AgentRun, index: int) -> dict[str, Any]:
    actions = [
        {"name": s.name, "kwargs": s.arguments} for s in run.steps if isinstance(s, ToolStep)
    ]
    task = {"user_id": run.agent, "actions": actions, "instruction": run.user_input}
    return {
        "task_id": index,
        "reward": 1.0 if index % 2 else 0.0,
        "info": {"task": {**task, "outputs": [run.answer]}, "source": "user"},
        "traj": [{"role": "system", "content": "You are an agent."}, *_openai_messages(run)],
        "trial": 0,
    }


def _who_and_when_log(run: AgentRun) -> dict[str, Any]:
    """A Who&When log of ``run``: the agent's messages and a terminal's tool results."""
    history: list[dict[str, Any]] = [{"content": run.user_input, "role": "human"}]
    for step in run.steps:
        if isinstance(step, ChatStep):
            history.append({"content": step.text, "role": "assistant", "name": run.agent})
        else:
            result = _json_text(step.result)
            history.append({"content": result, "role": "user", "name": "Computer_terminal"})
    return {
        "question": run.user_input,
        "ground_truth": run.answer,
        "question_ID": run.trace_id,
        "history": history,
        "mistake_agent": run.agent,
        "mistake_step": str(len(history) - 1),
        "mistake_reason": "synthetic",
    }


def _files(fmt: str, runs: list[AgentRun], variant: bool) -> list[InputFile]:
    """``runs`` in format ``fmt``; ``variant`` picks the other layout a format allows (a JSON
    array instead of JSON Lines, a collector file instead of two documents)."""
    if fmt == "spans":
        return [InputFile("spans.jsonl", "jsonl", [r for run in runs for r in _span_records(run)])]
    if fmt == "otlp-json":
        documents = [{"resourceSpans": [_otlp_json_spans(run)]} for run in runs]
        if variant:  # the collector's file exporter: one export per line, logs among them
            return [InputFile("collector.jsonl", "jsonl", [*documents, _otlp_json_logs(runs)])]
        traces = {"resourceSpans": [_otlp_json_spans(run) for run in runs]}
        return [
            InputFile("traces.json", "json", traces),
            InputFile("logs.json", "json", _otlp_json_logs(runs)),
        ]
    if fmt == "otlp-proto":
        return [
            InputFile("traces.pb", "protobuf", _proto_traces(runs)),
            InputFile("logs.pb", "protobuf", _proto_logs(runs)),
        ]
    if fmt == "openai":
        records = [{"id": run.trace_id, "messages": _openai_messages(run)} for run in runs]
        if variant:
            return [InputFile("chats.json", "json", records)]
        return [InputFile("chats.jsonl", "jsonl", records)]
    if fmt == "who-and-when":
        logs = [_who_and_when_log(run) for run in runs]
        if variant:
            return [InputFile(f"{index}.json", "json", log) for index, log in enumerate(logs)]
        return [InputFile("logs.json", "json", logs)]
    assert fmt == "tau-bench", fmt
    results = [_tau_bench_result(run, index) for index, run in enumerate(runs)]
    return [InputFile("results.json", "json", results)]


@st.composite
def otlp_exports(draw: st.DrawFn, encoding: Literal["json", "protobuf"]) -> FuzzInput:
    """One traces export request and one logs export request, as an exporter posts them."""
    runs = draw(agent_runs())
    return FuzzInput(
        _files("otlp-json" if encoding == "json" else "otlp-proto", runs, False), len(runs)
    )


@dataclass(frozen=True)
class FuzzInput:
    """The files of one input, and how many traces a faithful import makes of them."""

    files: list[InputFile]
    traces: int


@st.composite
def valid_inputs(draw: st.DrawFn, fmt: str) -> FuzzInput:
    """A structurally valid input of format ``fmt``: what a faithful reader imports whole."""
    assert fmt in FORMAT_NAMES, fmt
    if fmt == "trailcheck":
        unique = {"unique_by": lambda trace: trace.trace_id}
        traces = draw(st.lists(any_traces(max_spans=4), min_size=1, max_size=3, **unique))
        lines = [trace.model_dump(mode="json", exclude_defaults=True) for trace in traces]
        return FuzzInput([InputFile("traces.jsonl", "jsonl", lines)], len(traces))
    runs = draw(agent_runs())
    return FuzzInput(_files(fmt, runs, draw(st.booleans())), len(runs))
