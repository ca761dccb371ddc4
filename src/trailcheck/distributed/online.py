"""``trailcheck online run --once --executor ray``: a backlog scored by several online workers
as Ray tasks, all on one store.

The queue already lets workers share a store without overlap (:mod:`trailcheck.online.queue`:
leases, ``FOR UPDATE SKIP LOCKED`` on PostgreSQL), so a Ray backfill is that many workers: the
command's process plans every trace first, then each task opens the store, makes its worker
(named after the command's worker and its index) and runs passes until one finds nothing to
run. A task's judges are made in the task, from the judge options, not sent to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from trailcheck.distributed.ordered import ray_ordered_map
from trailcheck.loop import Rule
from trailcheck.online.config import OnlineConfig
from trailcheck.online.judging import openai_judges
from trailcheck.online.worker import OnlineWorker, PassSummary, WorkerSettings
from trailcheck.store import Store

__all__ = ["JudgeOptions", "OnlineRecipe", "drain_on_ray"]


@dataclass(frozen=True, slots=True)
class JudgeOptions:
    """How the judges reach their models (see :func:`~trailcheck.online.judging.openai_judges`)."""

    judge_model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    rate: float | None = None


@dataclass(frozen=True, slots=True)
class OnlineRecipe:
    """What a task needs to make its worker: the store's URL (with its password), the file,
    the detection rules, the worker's settings and the judges' options."""

    db_url: str
    config: OnlineConfig
    rules: tuple[Rule, ...]
    settings: WorkerSettings
    judges: JudgeOptions


def _drain(recipe: OnlineRecipe, index: int) -> PassSummary:
    """One worker's passes until a pass runs nothing."""
    settings = replace(recipe.settings, worker_id=f"{recipe.settings.worker_id}/ray-{index}")
    options = recipe.judges
    judge = openai_judges(
        recipe.config,
        judge_model=options.judge_model,
        base_url=options.base_url,
        api_key_env=options.api_key_env,
        rate=options.rate,
    )
    total = PassSummary()
    with Store.open(recipe.db_url) as store:
        worker = OnlineWorker(
            store, recipe.config, rules=recipe.rules, judge=judge, settings=settings
        )
        while True:
            done = worker.run_once()
            total.add(done)
            if not done.executed:
                return total


def drain_on_ray(
    recipe: OnlineRecipe, *, workers: int, num_cpus: float = 1.0
) -> Sequence[PassSummary]:
    """``workers`` online workers as Ray tasks (``num_cpus`` each) draining what is due; what
    each did."""
    return list(
        ray_ordered_map(partial(_drain, recipe), range(workers), workers=workers, num_cpus=num_cpus)
    )
