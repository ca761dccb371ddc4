"""Every component call of a trace scored, by span kind (docs/components.md):

- **tool** spans: success or error, latency, the arguments against the tool's declared schema
  (``arguments_valid``) and the result against its declared result schema (``result_valid``);
- **sub-agent** spans (an agent span under another agent span): the output against the schema
  its caller declared for it (``output_valid``), and its own tool calls: the tool spans it made
  (not those of an agent under it), how many, and the share that succeeded (``tool_calls``,
  ``tool_call_success``);
- **retriever** spans: the documents returned (``retrieved``) and, with a case that marks the
  relevant chunks, ``recall_at_k`` and ``precision_at_k`` (:mod:`.retrieval`);
- **model** (llm) spans: ``input_tokens``, ``output_tokens``, ``cost_usd`` as recorded, latency,
  and whether the output parsed (``output_parsed``): tool-call arguments that were JSON objects,
  and, where the span asked for JSON output (``gen_ai.output.type: json``), answer text that
  is JSON.

A value is present only when it was measured: no declared schema, no ``arguments_valid``. The
root agent is the run itself, graded by the scorers, and is not scored here; neither are guard
and other spans, nor a tool call that only the model's messages record (it has no span).
Scoring reads only the trace (and the case), never raises on what traffic holds, and is cheap
enough to run on every trace the store ingests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from trailcheck.cases import Case
from trailcheck.components.declarations import ToolContract, span_arguments_schema, tool_contracts
from trailcheck.components.json_schema import schema_problems
from trailcheck.components.retrieval import (
    relevant_chunks_for,
    retrieval_query,
    retrieval_score,
    retrieved_ids,
)
from trailcheck.components.span_score import (
    ComponentKind,
    Outcome,
    SpanScore,
    error_kind_of,
    latency_ms_of,
)
from trailcheck.guard import RAW_ARGUMENTS_KEY
from trailcheck.trace import Span, Trace, parse_json_text
from trailcheck.trace.semconv import AGENT_NAME as OPENINFERENCE_AGENT_NAME
from trailcheck.trace.semconv import (
    GEN_AI_AGENT_NAME,
    GEN_AI_REQUEST_MODEL,
    INVOKE_AGENT_SPAN_NAME_PREFIX,
    OUTPUT_VALUE,
    TRACELOOP_ENTITY_OUTPUT,
)

__all__ = ["GEN_AI_DATA_SOURCE_ID", "GEN_AI_OUTPUT_TYPE", "score_spans"]

GEN_AI_OUTPUT_TYPE: Final = "gen_ai.output.type"
GEN_AI_DATA_SOURCE_ID: Final = "gen_ai.data_source.id"


class _Checks:
    """What the checks on one span found: values, the reason's parts, the first failed check.
    (A plain class with slots: one is made for every span of every trace ingested.)"""

    __slots__ = ("failed", "notes", "values")

    def __init__(self) -> None:
        self.values: dict[str, float] = {}
        self.notes: list[str] = []
        self.failed: str | None = None

    def check(self, name: str, kind: str, problems: list[str], what: str) -> None:
        self.values[name] = 0.0 if problems else 1.0
        if problems:
            self.notes.append(f"{what}: {'; '.join(problems)}")
            self.failed = self.failed or kind
        else:
            self.notes.append(f"{what}: valid")

    def score(self, span: Span, kind: ComponentKind, component: str) -> SpanScore:
        outcome: Outcome = "ok"
        error_kind = None
        if span.failed:
            outcome, error_kind = "error", error_kind_of(span)
            self.notes.insert(0, f"failed ({error_kind})")
        elif self.failed is not None:
            outcome, error_kind = "invalid", self.failed
        return SpanScore(
            trace_id=span.trace_id,
            span_id=span.span_id,
            kind=kind,
            component=component,
            start_ns=span.start_ns,
            latency_ms=latency_ms_of(span),
            outcome=outcome,
            error_kind=error_kind,
            values=self.values,
            reason="; ".join(self.notes),
        )


def _arguments_problems(arguments: Mapping[str, Any], schema: Any) -> list[str]:
    if RAW_ARGUMENTS_KEY in arguments and len(arguments) == 1:
        return ["the arguments were not a JSON object"]
    return schema_problems(arguments, schema)


def _tool_score(span: Span, contracts: Mapping[str, ToolContract]) -> SpanScore:
    tool = span.tool
    assert tool is not None  # called for tool spans only
    checks = _Checks()
    contract = contracts.get(tool.name)
    schema = span_arguments_schema(span)
    if schema is None and contract is not None:
        schema = contract.arguments
    if schema is not None:
        problems = _arguments_problems(tool.arguments, schema)
        checks.check("arguments_valid", "invalid_arguments", problems, "arguments")
    if contract is not None and contract.result is not None and not span.failed:
        problems = schema_problems(parse_json_text(tool.result), contract.result)
        checks.check("result_valid", "invalid_result", problems, "result")
    return checks.score(span, "tool", tool.name)


def _model_name(span: Span) -> str:
    model = span.llm.model if span.llm is not None else None
    requested = span.attributes.get(GEN_AI_REQUEST_MODEL)
    return model or (requested if isinstance(requested, str) and requested else span.name)


def _output_problems(span: Span) -> list[str] | None:
    """Why the model's output did not parse; ``None`` when nothing in it had to."""
    outputs = span.llm.output_messages if span.llm is not None else None
    if not outputs:
        return None
    checked = False
    problems: list[str] = []
    for message in outputs:
        for call in message.tool_calls:
            checked = True
            if RAW_ARGUMENTS_KEY in call.arguments:
                problems.append(f"the arguments of {call.name} were not a JSON object")
    if span.attributes.get(GEN_AI_OUTPUT_TYPE) == "json":
        for message in outputs:
            text = message.text if message.role == "assistant" else ""
            if text:
                checked = True
                if parse_json_text(text) is text:
                    problems.append("the answer was asked for as JSON and is not JSON")
    return problems if checked else None


def _model_score(span: Span) -> SpanScore:
    checks = _Checks()
    usage = span.llm.usage if span.llm is not None else None
    if usage is not None:
        values = checks.values
        if usage.input_tokens is not None:
            values["input_tokens"] = usage.input_tokens
        if usage.output_tokens is not None:
            values["output_tokens"] = usage.output_tokens
        if usage.cost_usd is not None:
            values["cost_usd"] = usage.cost_usd
    problems = _output_problems(span)
    if problems is not None:
        checks.check("output_parsed", "unparsed_output", problems, "output")
    return checks.score(span, "llm", _model_name(span))


def _retriever_score(span: Span, step: int, case: Case | None) -> SpanScore:
    checks = _Checks()
    returned = retrieved_ids(span)
    if returned is not None:
        checks.values["retrieved"] = len(returned)
    relevant = None
    if case is not None and case.relevant_chunks:
        relevant = relevant_chunks_for(case, step, retrieval_query(span))
    if relevant is not None and returned is not None:
        scored = retrieval_score(returned, relevant)
        checks.values["recall_at_k"] = scored.recall
        if scored.precision is not None:
            checks.values["precision_at_k"] = scored.precision
        checks.notes.append(f"retrieval {step}: {scored.reason}")
    elif relevant is not None:
        checks.notes.append(f"retrieval {step}: the span records no document ids")
    source = span.attributes.get(GEN_AI_DATA_SOURCE_ID)
    name = source if isinstance(source, str) and source else span.name
    return checks.score(span, "retriever", name)


def _agent_name(span: Span) -> str:
    for key in (GEN_AI_AGENT_NAME, OPENINFERENCE_AGENT_NAME):
        found = span.attributes.get(key)
        if isinstance(found, str) and found:
            return found
    return span.name.removeprefix(INVOKE_AGENT_SPAN_NAME_PREFIX) or span.name


def _agent_output(span: Span) -> Any:
    for key in (OUTPUT_VALUE, TRACELOOP_ENTITY_OUTPUT):
        if key in span.attributes:
            return parse_json_text(span.attributes[key])
    return None


def _agent_score(
    span: Span, contracts: Mapping[str, ToolContract], own_calls: list[SpanScore]
) -> SpanScore:
    checks = _Checks()
    name = _agent_name(span)
    contract = contracts.get(name)
    if contract is not None and contract.result is not None and not span.failed:
        output = _agent_output(span)
        if output is None:
            checks.notes.append("output: none recorded to check against the declared schema")
        else:
            problems = schema_problems(output, contract.result)
            checks.check("output_valid", "invalid_output", problems, "output")
    if own_calls:
        succeeded = sum(call.succeeded for call in own_calls)
        checks.values["tool_calls"] = len(own_calls)
        checks.values["tool_call_success"] = succeeded / len(own_calls)
        checks.notes.append(f"its tool calls: {succeeded}/{len(own_calls)} succeeded")
    return checks.score(span, "agent", name)


def _nearest_agents(trace: Trace) -> dict[str, str | None]:
    """Span id → the id of its nearest agent ancestor (``None``: none)."""
    by_id = {span.span_id: span for span in trace.spans}
    nearest: dict[str, str | None] = {}

    def find(span: Span) -> str | None:
        path: list[str] = []
        parent = span.parent_id
        found: str | None = None
        while parent is not None:
            if parent in nearest:
                above = by_id[parent]
                found = parent if above.kind == "agent" else nearest[parent]
                break
            above = by_id[parent]
            if above.kind == "agent":
                found = parent
                break
            path.append(parent)
            parent = above.parent_id
        for visited in path:
            nearest[visited] = found
        return found

    for span in trace.spans:
        nearest[span.span_id] = find(span)
    return nearest


def score_spans(trace: Trace, case: Case | None = None) -> list[SpanScore]:
    """The component calls of ``trace`` scored (see the module), in the trace's span order; a
    case adds what needs a reference (recall@k and precision@k, its tool declarations)."""
    spans = trace.spans
    if not any(span.kind in ("tool", "llm", "retriever", "agent") for span in spans):
        return []
    contracts = tool_contracts(trace, case)
    steps = {
        span.span_id: index
        for index, span in enumerate(
            sorted(
                (s for s in spans if s.kind == "retriever"), key=lambda s: (s.start_ns, s.span_id)
            ),
            start=1,
        )
    }
    agents = [span for span in spans if span.kind == "agent"]
    nearest = _nearest_agents(trace) if len(agents) > 1 else {}
    scores: dict[str, SpanScore] = {}
    for span in spans:
        if span.tool is not None:
            scores[span.span_id] = _tool_score(span, contracts)
        elif span.kind == "llm":
            scores[span.span_id] = _model_score(span)
        elif span.kind == "retriever":
            scores[span.span_id] = _retriever_score(span, steps[span.span_id], case)
    for agent in agents:
        if nearest.get(agent.span_id) is None:
            continue  # the run's own agent: the scorers grade it
        own = [
            scores[span.span_id]
            for span in spans
            if span.tool is not None and nearest.get(span.span_id) == agent.span_id
        ]
        scores[agent.span_id] = _agent_score(agent, contracts, own)
    return [scores[span.span_id] for span in spans if span.span_id in scores]
