"""The ``trailcheck demo pitwall`` story: one brain, two versions of a tool, two datasets.

Each dataset runs on v1's archive, then on v2's, compared with v1 on the same cases. The
``pitwall`` runs are graded with the groundedness judge as well as the deterministic scorers,
so the v1 report names the sentence no tool supported; the guardrails runs need no judge.

With ``framework="adk"`` the agent is the same brain as a Google ADK agent
(:mod:`.adk_agent`, the ``adk`` extra), run as an otel agent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from trailcheck.demo.pitwall.agent import scripted_agent, v1_archive, v2_archive
from trailcheck.demo.pitwall.dataset import GUARDRAILS_FILE, PITWALL_FILE, shipped_dataset
from trailcheck.demo.pitwall.judging import scripted_judge
from trailcheck.environment import EnvironmentFactory
from trailcheck.judge.judge import Judge
from trailcheck.run.agent import AgentFactory
from trailcheck.run.otel_agent import OtelAgent
from trailcheck.run.plan import RunOptions
from trailcheck.run.runner import RunObserver, RunResult, run

__all__ = ["DEMO_K", "DEMO_RUNS", "FRAMEWORKS", "Framework", "PitWallRun", "run_pitwall_demo"]

DEMO_K = 3
Framework = Literal["native", "adk"]
FRAMEWORKS: tuple[Framework, ...] = ("native", "adk")
_MODULE = "trailcheck.demo.pitwall"
_ARCHIVES: dict[str, EnvironmentFactory] = {"v1_archive": v1_archive, "v2_archive": v2_archive}


@dataclass(frozen=True, slots=True)
class PitWallRun:
    """One run of the demo: its file name, the shipped dataset file, the archive factory's
    name (in :mod:`trailcheck.demo.pitwall`) and whether the groundedness judge grades it."""

    name: str
    dataset_file: str
    archive: str
    judged: bool


DEMO_RUNS = (
    PitWallRun("pitwall-v1", PITWALL_FILE, "v1_archive", judged=True),
    PitWallRun("pitwall-v2", PITWALL_FILE, "v2_archive", judged=True),
    PitWallRun("guardrails-v1", GUARDRAILS_FILE, "v1_archive", judged=False),
    PitWallRun("guardrails-v2", GUARDRAILS_FILE, "v2_archive", judged=False),
)


def _agent(framework: Framework) -> tuple[AgentFactory | OtelAgent, str]:
    """The agent of ``framework`` and its reference; ADK's is imported only here."""
    if framework == "native":
        return scripted_agent, f"{_MODULE}:scripted_agent"
    from trailcheck.demo.pitwall import adk_agent

    return OtelAgent(adk_agent.scripted_agent), f"{adk_agent.__name__}:scripted_agent"


def run_pitwall_demo(
    *,
    k: int = DEMO_K,
    judge: Callable[[], Judge] = scripted_judge,
    observer: Callable[[str], RunObserver] | None = None,
    framework: Framework = "native",
) -> list[tuple[PitWallRun, RunResult]]:
    """The four runs in order; each v2 run carries a comparison with the v1 run before it."""
    agent, reference = _agent(framework)
    results: list[tuple[PitWallRun, RunResult]] = []
    baselines: dict[str, RunResult] = {}
    datasets = {name: shipped_dataset(name) for name in (PITWALL_FILE, GUARDRAILS_FILE)}
    for demo in DEMO_RUNS:
        baseline = baselines.get(demo.dataset_file)
        result = run(
            datasets[demo.dataset_file],
            agent,
            _ARCHIVES[demo.archive],
            options=RunOptions(k=k, concurrency=4),
            baseline=baseline.report if baseline else None,
            observer=observer(demo.name) if observer else None,
            references={
                "agent": reference,
                "environment": f"{_MODULE}:{demo.archive}",
                "dataset": f"{_MODULE}:{demo.dataset_file}",
            },
            judge=judge() if demo.judged else None,
        )
        baselines.setdefault(demo.dataset_file, result)
        results.append((demo, result))
    return results
