"""Span scores of traces as the importers read them: retrieval documents where GenAI and
OpenInference record them, and tool declarations from ``gen_ai.tool.definitions``."""

from __future__ import annotations

from pathlib import Path

import orjson

from trailcheck.cases import Case, RelevantChunks
from trailcheck.components import score_spans
from trailcheck.importing.importer import ImportSummary, iter_import

ORIGIN = 1_700_000_000_000_000_000
TRACE = "2cf7651916cd43dd8448eb211c80319e"
DEFINITIONS = [
    {
        "type": "function",
        "name": "lookup_order",
        "parameters": {"type": "object", "required": ["order_id"]},
    }
]


def _span(span_id: str, parent: str | None, name: str, offset: int, **attributes: object) -> bytes:
    return orjson.dumps(
        {
            "trace_id": TRACE,
            "span_id": span_id,
            "parent_span_id": parent,
            "name": name,
            "start_ns": ORIGIN + offset,
            "end_ns": ORIGIN + offset + 5_000_000,
            "status": "UNSET",
            "attributes": attributes,
        }
    )


def test_retrievals_and_declared_tools_of_imported_spans(tmp_path: Path) -> None:
    documents = [{"id": "kb-1", "score": 0.9}, {"id": "kb-4", "score": 0.4}]
    lines = [
        _span(
            "f000000000000001",
            None,
            "invoke_agent support",
            0,
            **{
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.tool.definitions": orjson.dumps(DEFINITIONS).decode(),
            },
        ),
        _span(
            "f000000000000002",
            "f000000000000001",
            "retrieval",
            1_000,
            **{
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.query.text": "refund policy",
                "gen_ai.retrieval.documents": orjson.dumps(documents).decode(),
            },
        ),
        _span(
            "f000000000000003",
            "f000000000000001",
            "vector-search",
            2_000,
            **{
                "openinference.span.kind": "RETRIEVER",
                "input.value": "gift returns",
                "retrieval.documents.0.document.id": "kb-9",
                "retrieval.documents.1.document.id": "kb-2",
            },
        ),
        _span(
            "f000000000000004",
            "f000000000000001",
            "execute_tool lookup_order",
            3_000,
            **{
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup_order",
                "gen_ai.tool.call.arguments": '{"id": "A-1"}',
            },
        ),
    ]
    path = tmp_path / "spans.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    summary = ImportSummary()
    [trace] = list(iter_import([path], summary=summary))
    assert summary.rejections == []
    case = Case(
        id="c",
        input="x",
        relevant_chunks=[
            RelevantChunks(query="refund policy", chunks=["kb-1", "kb-2"]),
            RelevantChunks(query="gift returns", chunks=["kb-9"]),
        ],
    )
    genai, openinference, lookup = score_spans(trace, case)
    assert (genai.kind, genai.component, genai.values) == (
        "retriever",
        "retrieval",
        {"retrieved": 2, "recall_at_k": 0.5, "precision_at_k": 0.5},
    )
    assert (openinference.component, openinference.values) == (
        "vector-search",
        {"retrieved": 2, "recall_at_k": 1.0, "precision_at_k": 0.5},
    )
    assert (lookup.outcome, lookup.error_kind) == ("invalid", "invalid_arguments")
    assert "$: 'order_id' is required" in lookup.reason
