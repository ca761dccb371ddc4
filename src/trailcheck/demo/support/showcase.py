"""The ``trailcheck demo`` story: the same dataset, three configurations, one comparison.

v1 with prompt-only tools is the red run: its planted bugs fail the cases that guard them. v2
with prompt-only tools, and v2 with enforced tools, are the green runs; both are compared with
v1 on the same cases, so the report shows what the fix changed and how sure one can be of it.

With ``framework="langgraph"``, ``"openai-agents"`` or ``"pydantic-ai"`` the same three runs
use that framework's agents (:mod:`.langgraph_agent`, :mod:`.openai_agents_agent`,
:mod:`.pydantic_ai_agent`: the same brains under the framework, traced by its OpenTelemetry
instrumentation; each needs the extra of its name), run as otel agents.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from trailcheck.demo.support.agent import enforced_shop, prompt_only_shop, v1_agent, v2_agent
from trailcheck.demo.support.dataset import support_dataset
from trailcheck.environment import EnvironmentFactory
from trailcheck.run.agent import AgentFactory
from trailcheck.run.otel_agent import OtelAgent
from trailcheck.run.plan import RunOptions
from trailcheck.run.runner import RunObserver, RunResult, run

DEMO_K = 4
Framework = Literal["native", "langgraph", "openai-agents", "pydantic-ai"]
FRAMEWORKS: tuple[Framework, ...] = ("native", "langgraph", "openai-agents", "pydantic-ai")
FRAMEWORK_NAMES: dict[Framework, str] = {
    "langgraph": "LangGraph",
    "openai-agents": "OpenAI Agents SDK",
    "pydantic-ai": "Pydantic AI",
}
_AGENT_MODULES: dict[Framework, str] = {
    "langgraph": "trailcheck.demo.support.langgraph_agent",
    "openai-agents": "trailcheck.demo.support.openai_agents_agent",
    "pydantic-ai": "trailcheck.demo.support.pydantic_ai_agent",
}


@dataclass(frozen=True, slots=True)
class DemoRun:
    """One configuration of the demo: its file name, agent and environment."""

    name: str
    agent: AgentFactory | OtelAgent
    environment: EnvironmentFactory
    references: dict[str, str | None]


def _refs(
    agent: str, environment: str, agent_module: str = "trailcheck.demo.support"
) -> dict[str, str | None]:
    module = "trailcheck.demo.support"
    return {"agent": f"{agent_module}:{agent}", "environment": f"{module}:{environment}"}


DEMO_RUNS = (
    DemoRun("v1-prompt-only", v1_agent, prompt_only_shop, _refs("v1_agent", "prompt_only_shop")),
    DemoRun("v2-prompt-only", v2_agent, prompt_only_shop, _refs("v2_agent", "prompt_only_shop")),
    DemoRun("v2-enforced", v2_agent, enforced_shop, _refs("v2_agent", "enforced_shop")),
)


def demo_runs(framework: Framework = "native") -> tuple[DemoRun, ...]:
    """The three runs of ``framework``: the native agents, or a framework's (its module is
    imported here, so only this needs the framework's extra)."""
    if framework == "native":
        return DEMO_RUNS
    module = _AGENT_MODULES[framework]
    agents = importlib.import_module(module)
    v1, v2 = OtelAgent(agents.v1_agent), OtelAgent(agents.v2_agent)
    return (
        DemoRun(
            f"{framework}-v1-prompt-only",
            v1,
            prompt_only_shop,
            _refs("v1_agent", "prompt_only_shop", module),
        ),
        DemoRun(
            f"{framework}-v2-prompt-only",
            v2,
            prompt_only_shop,
            _refs("v2_agent", "prompt_only_shop", module),
        ),
        DemoRun(
            f"{framework}-v2-enforced",
            v2,
            enforced_shop,
            _refs("v2_agent", "enforced_shop", module),
        ),
    )


def run_demo(
    *,
    k: int = DEMO_K,
    observer: Callable[[str], RunObserver] | None = None,
    framework: Framework = "native",
) -> list[tuple[DemoRun, RunResult]]:
    """The three runs in order; the v2 runs carry a comparison with the v1 run."""
    dataset = support_dataset()
    results: list[tuple[DemoRun, RunResult]] = []
    baseline = None
    for demo in demo_runs(framework):
        result = run(
            dataset,
            demo.agent,
            demo.environment,
            options=RunOptions(k=k, concurrency=8),
            baseline=baseline,
            observer=observer(demo.name) if observer else None,
            references={**demo.references, "dataset": "trailcheck.demo.support:support.yaml"},
        )
        baseline = baseline or result.report
        results.append((demo, result))
    return results
