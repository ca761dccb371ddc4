"""pydantic-evals: ``TrajectoryMatch`` and ``ArgumentCorrectness`` over its own ``SpanTree``.

Per line: every span becomes a ``SpanNode`` carrying the attributes pydantic-evals reads (a tool
span named ``execute_tool NAME`` with ``gen_ai.tool.name`` and its arguments as JSON text in
``gen_ai.tool.call.arguments``, as OpenTelemetry records them), the nodes go into a ``SpanTree``
inside an ``EvaluatorContext``, and the case's evaluators are called on it directly
(``evaluator.evaluate(ctx)``, without the async dataset runner, which only adds cost).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

from peers.peer import LineGrader, Peer
from peers.records import Record, expected_calls, input_text, output_text
from trailcheck.cases import Case


def _evaluators(case: Case) -> list[Any]:
    from pydantic_evals.evaluators import ArgumentCorrectness, TrajectoryMatch

    # include_failed=True: trailcheck counts a call that errored, so the peer is asked to.
    found: list[Any] = [
        TrajectoryMatch(
            expected_trajectory=list(case.expected_tools or []),
            order=case.tool_match,  # the same three modes, by the same names
            include_failed=True,
        )
    ]
    seen: dict[str, int] = {}
    for name, arguments in expected_calls(case):
        occurrence = seen.get(name, 0)
        seen[name] = occurrence + 1
        if arguments:
            found.append(
                ArgumentCorrectness(
                    tool_name=name,
                    expected_arguments=arguments,
                    occurrence=occurrence,
                    include_failed=True,
                )
            )
    return found


def _timestamp(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, tz=UTC)


def _attributes(span: Record) -> dict[str, Any]:
    attributes = dict(span.get("attributes", {}))
    tool = span.get("tool")
    if tool is not None:
        attributes["gen_ai.tool.name"] = tool["name"]
        attributes["gen_ai.tool.call.arguments"] = orjson.dumps(tool.get("arguments", {})).decode()
        if isinstance(tool.get("result"), str):
            attributes["gen_ai.tool.call.result"] = tool["result"]
    llm = span.get("llm")
    if llm is not None and llm.get("model"):
        attributes["gen_ai.request.model"] = llm["model"]
    return attributes


def _span_tree(record: Record) -> Any:
    from pydantic_evals.otel.span_tree import SpanNode, SpanTree

    trace_id = int(record["trace_id"], 16)
    nodes = [
        SpanNode(
            name=span["name"],
            trace_id=trace_id,
            span_id=int(span["span_id"], 16),
            parent_span_id=int(span["parent_id"], 16) if span.get("parent_id") else None,
            start_timestamp=_timestamp(span["start_ns"]),
            end_timestamp=_timestamp(span.get("end_ns", span["start_ns"])),
            attributes=_attributes(span),
            status=span.get("status", {}).get("code", "unset"),
        )
        for span in record["spans"]
    ]
    tree = SpanTree()
    tree.add_spans(nodes)
    return tree


def build(cases: Mapping[str, Case]) -> LineGrader:
    from pydantic_evals.evaluators import EvaluatorContext

    evaluators = {case_id: _evaluators(case) for case_id, case in cases.items()}

    def grade_line(line: bytes) -> bool:
        record = orjson.loads(line)
        context = EvaluatorContext[Any, Any, Any](
            name=record["trace_id"],
            inputs=input_text(record),
            metadata=record.get("metadata"),
            expected_output=None,
            output=output_text(record),
            duration=0.0,
            _span_tree=_span_tree(record),
            attributes={},
            metrics={},
        )
        results = [e.evaluate(context) for e in evaluators[record["metadata"]["case_id"]]]
        # TrajectoryMatch is an F1 score, the others booleans: a pass is every one at 1 / True.
        return all(result.value is True or result.value == 1.0 for result in results)

    return grade_line


PEER = Peer(
    label="pydantic-evals",
    distribution="pydantic-evals",
    module="pydantic_evals",
    computes=(
        "TrajectoryMatch(order=case.tool_match, include_failed=True) + one"
        " ArgumentCorrectness(match_mode='subset', occurrence=k) per expected invocation,"
        " on a SpanTree of SpanNodes built from every span"
    ),
    build=build,
)
