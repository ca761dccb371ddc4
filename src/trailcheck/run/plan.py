"""What every trial of a run shares (:class:`TrialPlan`), and where a trial can run besides this
event loop (:class:`TrialExecutor`: a Ray cluster, :mod:`trailcheck.distributed`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from pydantic import JsonValue

from trailcheck.cases import Case, Dataset, Split, TrialResources
from trailcheck.environment import EnvironmentFactory
from trailcheck.errors import UsageError
from trailcheck.judge.judge import Judge
from trailcheck.rate_limit import RateLimiter
from trailcheck.run.agent import AgentFactory
from trailcheck.run.otel_agent import OtelAgent
from trailcheck.run.results import TrialResult
from trailcheck.simulation import SimulatorReviewer, TurnCache, UserSimulator

__all__ = ["RunOptions", "TrialExecutor", "TrialPlan"]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How trials run. ``rate_limit_per_s`` bounds model calls across all trials."""

    k: int = 1
    concurrency: int = 4
    timeout_s: float | None = 300.0
    seed: int = 0
    rate_limit_per_s: float | None = None
    splits: tuple[Split, ...] | None = None
    network_allowed: bool = True

    def __post_init__(self) -> None:
        if self.k < 1:
            raise UsageError(f"k must be at least 1, not {self.k}")
        if self.concurrency < 1:
            raise UsageError(f"concurrency must be at least 1, not {self.concurrency}")
        if self.timeout_s is not None and self.timeout_s <= 0:
            raise UsageError(f"timeout must be positive, not {self.timeout_s}")


@dataclass(frozen=True, slots=True)
class TrialPlan:
    """What every trial of a run shares: the factories, the options, the dataset version, the
    rate limiter, the judge and the dataset's resource hints. An executor that runs trials
    elsewhere ships it to its workers."""

    agent_factory: AgentFactory | OtelAgent
    environment_factory: EnvironmentFactory | None
    options: RunOptions
    dataset_version: str
    rate_limiter: RateLimiter | None
    judge: Judge | None = None
    resources: TrialResources | None = None
    user_simulator: UserSimulator | None = None
    user_replay: TurnCache | None = None
    """The baseline's simulated turns, replayed where the transcript is the same."""
    user_reviewer: SimulatorReviewer | None = None
    """The judge that reviews each simulated conversation after the audit's rules."""

    @classmethod
    def for_run(
        cls,
        dataset: Dataset,
        agent_factory: AgentFactory | OtelAgent,
        environment_factory: EnvironmentFactory | None,
        options: RunOptions,
        judge: Judge | None,
        user_simulator: UserSimulator | None = None,
        user_replay: TurnCache | None = None,
        user_reviewer: SimulatorReviewer | None = None,
    ) -> TrialPlan:
        """The plan of a run of ``dataset``: its version and resource hints, and the run's one
        rate limiter when ``options`` set a rate."""
        rate = options.rate_limit_per_s
        limiter = RateLimiter(rate) if rate else None
        return cls(
            agent_factory,
            environment_factory,
            options,
            dataset.version,
            limiter,
            judge,
            dataset.resources,
            user_simulator,
            user_replay,
            user_reviewer,
        )


class TrialExecutor(Protocol):
    """Runs trials somewhere other than this event loop (:mod:`trailcheck.distributed`).

    ``run_trial`` does what :func:`trailcheck.run.runner.run_trial` does, wherever it runs, and
    returns the trial with its trace as a trailcheck JSONL line; like that, it never raises for
    what the agent, environment or scorers do, and a cancelled call stops the trial.
    """

    def describe(self) -> dict[str, JsonValue]: ...

    async def run_trial(
        self, case: Case, attempt: int, plan: TrialPlan
    ) -> tuple[TrialResult, bytes | None]: ...
