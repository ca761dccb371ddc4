"""What the gate saves: cost and latency against sending everything to the model.

The baseline sends every request to the model with every tool of the catalog in the prompt.
The gate answers a fast path locally, calls the model with one tool to execute, with the
candidates to confirm, not at all to abstain (a templated question), and hands a fallback to a
person. A model call costs ``(prompt_tokens + tools · tokens_per_tool) / 1000 · usd_per_1k``
and takes ``model_latency_ms + tokens / 1000 · prefill_ms_per_1k``; the gate adds its own
``gate_latency_ms`` to every request (measure it with ``benchmarks/route_speed.py``).

The prices are assumptions, stated in the output. A person's cost is not assumed: the
break-even cost of a human fallback is the price per fallback at which the gate costs as much
as the baseline, ``(baseline − gate without people) / fallbacks``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["CostModel", "Economics", "estimate_economics"]


@dataclass(frozen=True)
class CostModel:
    """Declared prices and latencies of one model call (assumptions, reported as such)."""

    usd_per_1k_tokens: float = 0.0025
    prompt_tokens: int = 600
    tokens_per_tool: int = 120
    model_latency_ms: float = 900.0
    prefill_ms_per_1k_tokens: float = 40.0
    gate_latency_ms: float = 2.0

    def call_tokens(self, tools: int) -> int:
        return self.prompt_tokens + tools * self.tokens_per_tool

    def call_cost(self, tools: int) -> float:
        return self.call_tokens(tools) / 1000 * self.usd_per_1k_tokens

    def call_latency(self, tools: int) -> float:
        prefill = self.call_tokens(tools) / 1000 * self.prefill_ms_per_1k_tokens
        return self.model_latency_ms + prefill


@dataclass(frozen=True)
class Economics:
    """Totals for the baseline and the gate over the same requests, with their arithmetic."""

    assumptions: dict[str, Any]
    requests: int
    catalog_tools: int
    baseline_cost_usd: float
    baseline_mean_latency_ms: float
    baseline_task_success: None
    gate_cost_usd: float
    gate_mean_latency_ms: float
    gate_task_success: float
    human_fallbacks: int
    break_even_human_cost_usd: float | None
    reason: str


def estimate_economics(
    tool_counts: Mapping[str, list[int]],
    catalog_tools: int,
    task_success: float,
    model: CostModel | None = None,
) -> Economics:
    """``tool_counts``: per action, the number of tools each such request sends the model.

    Actions are ``fast_path``, ``execute``, ``confirm``, ``abstain`` and ``human_fallback``;
    only ``execute`` and ``confirm`` call the model."""
    model = model or CostModel()
    requests = sum(len(v) for v in tool_counts.values())
    calls = [n for action in ("execute", "confirm") for n in tool_counts.get(action, [])]
    gate_cost = sum(model.call_cost(n) for n in calls)
    gate_latency = requests * model.gate_latency_ms + sum(model.call_latency(n) for n in calls)
    baseline_cost = requests * model.call_cost(catalog_tools)
    fallbacks = len(tool_counts.get("human_fallback", []))
    break_even = (baseline_cost - gate_cost) / fallbacks if fallbacks else None
    reason = (
        f"baseline {requests} × ({model.prompt_tokens} + {catalog_tools}×{model.tokens_per_tool})"
        f" tokens × ${model.usd_per_1k_tokens}/1k = ${baseline_cost:.4f}; gate {len(calls)} model"
        f" call(s) with {sum(calls)} tool(s) in all = ${gate_cost:.4f}"
        + (
            f"; break-even per fallback (${baseline_cost:.4f} − ${gate_cost:.4f}) / {fallbacks}"
            f" = ${break_even:.4f}"
            if break_even is not None
            else "; no fallback, so no break-even price"
        )
    )
    return Economics(
        assumptions=asdict(model),
        requests=requests,
        catalog_tools=catalog_tools,
        baseline_cost_usd=baseline_cost,
        baseline_mean_latency_ms=model.call_latency(catalog_tools) if requests else 0.0,
        baseline_task_success=None,
        gate_cost_usd=gate_cost,
        gate_mean_latency_ms=gate_latency / requests if requests else 0.0,
        gate_task_success=task_success,
        human_fallbacks=fallbacks,
        break_even_human_cost_usd=break_even,
        reason=reason,
    )
