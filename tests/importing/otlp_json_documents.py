"""OTLP/JSON documents to read, as the OTLP/JSON tests write them, and what is read split into
what was kept and what was rejected."""

from __future__ import annotations

from typing import Any

import orjson

from trailcheck.importing.records import Rejection

TRACE_A = "0af7651916cd43dd8448eb211c80319c"
TRACE_B = "5b8efff798038103d269b633813fc60c"


def span(
    trace_id: str = TRACE_A, span_id: str = "b7ad6b7169203331", **fields: Any
) -> dict[str, Any]:
    """An OTLP/JSON span; ``fields`` override or add (``None`` removes a field)."""
    result: dict[str, Any] = {
        "traceId": trace_id,
        "spanId": span_id,
        "name": "invoke_agent a",
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "2000",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}],
    }
    result.update(fields)
    return {k: v for k, v in result.items() if v is not None}


def document(*spans: dict[str, Any], resource: Any = None) -> bytes:
    """An OTLP/JSON export of ``spans`` in one scope, under ``resource`` when given."""
    entry: dict[str, Any] = {"scopeSpans": [{"scope": {"name": "agent"}, "spans": list(spans)}]}
    if resource is not None:
        entry["resource"] = resource
    return orjson.dumps({"resourceSpans": [entry]})


def split(items: list[Any]) -> tuple[list[Any], list[Rejection]]:
    """What a reader yielded: the items kept, and the rejections, each in order."""
    kept = [item for item in items if not isinstance(item, Rejection)]
    return kept, [item for item in items if isinstance(item, Rejection)]
