"""Component evals: each span scored by its kind (a tool's call, a sub-agent, a retrieval, a
model call), and per-component rates across traces (docs/components.md).

:func:`score_spans` scores one trace's spans, against a case when one is given (recall@k and
precision@k need its relevant chunks); the store keeps the scores it computes at ingest
(``span_scores``); :func:`component_rates` reads any number of scores into each component's
calls, success rate with its interval, error kinds, latency quantiles and windows."""

from trailcheck.components.declarations import (
    GEN_AI_TOOL_DEFINITIONS,
    GEN_AI_TOOL_JSON_SCHEMA,
    TOOL_DECLARATIONS_KEY,
    ToolContract,
    declared_tools,
    tool_contracts,
)
from trailcheck.components.json_schema import schema_problems
from trailcheck.components.rates import (
    ComponentRate,
    ComponentRates,
    WindowRate,
    component_rates,
    percentile,
)
from trailcheck.components.retrieval import (
    RetrievalScore,
    relevant_chunks_for,
    retrieval_score,
    retrieved_ids,
)
from trailcheck.components.scoring import score_spans
from trailcheck.components.span_score import (
    CHECK_KINDS,
    COMPONENT_KINDS,
    ComponentKind,
    Outcome,
    SpanScore,
)

__all__ = [
    "CHECK_KINDS",
    "COMPONENT_KINDS",
    "GEN_AI_TOOL_DEFINITIONS",
    "GEN_AI_TOOL_JSON_SCHEMA",
    "TOOL_DECLARATIONS_KEY",
    "ComponentKind",
    "ComponentRate",
    "ComponentRates",
    "Outcome",
    "RetrievalScore",
    "SpanScore",
    "ToolContract",
    "WindowRate",
    "component_rates",
    "declared_tools",
    "percentile",
    "relevant_chunks_for",
    "retrieval_score",
    "retrieved_ids",
    "schema_problems",
    "score_spans",
    "tool_contracts",
]
