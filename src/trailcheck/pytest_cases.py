"""A dataset's cases as pytest items, for :mod:`trailcheck.pytest_plugin`.

A case's test runs its k trials through the real runner (:func:`trailcheck.run.runner.run` on
a one-case copy of the dataset, so each test's duration is its own and a selected subset runs
only what was selected) and passes when every trial passed: a release test holds on every
attempt, as pass^k asks. A failing test shows a heading, then one line per trial; a failed
trial gets one line per failed score with the score's own reason, so the arithmetic is in the
CI log rather than a traceback (``reschedule-friday trial 1 failed: arguments 1/2=0.500;
reschedule_delivery[0].new_date: expected 2026-06-19, got 2026-06-17``). A timeout, a crash or
an infra error is a failure with its reason; ``-v`` adds the stacks of the trials that raised.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from trailcheck.cases import Case, Dataset, load_dataset
from trailcheck.environment import EnvironmentFactory
from trailcheck.errors import TrailcheckError
from trailcheck.run.agent import AgentFactory
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import CaseResult, TrialResult
from trailcheck.run.runner import run
from trailcheck.specs.references import resolve_reference

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

__all__ = [
    "CaseFailedError",
    "CaseItem",
    "CasePlan",
    "DatasetCollector",
    "collect_cases",
    "configure_cases",
    "failure_lines",
]


@dataclass(frozen=True, slots=True)
class CasePlan:
    """What every case test of the session runs, resolved once when pytest is configured."""

    dataset: Dataset
    path: Path
    agent_factory: AgentFactory
    environment_factory: EnvironmentFactory | None
    options: RunOptions
    references: dict[str, str | None]
    marker: str  # the plugin's marker: every case item has it, and ``{marker}_{split}``


_PLAN = pytest.StashKey[CasePlan]()


def configure_cases(config: pytest.Config, marker: str) -> None:
    """Loads the dataset and resolves the factories; a problem is one pytest usage error. Case
    items are marked ``marker`` (the plugin names it, so this module does not import it)."""
    try:
        config.stash[_PLAN] = _plan(config, marker)
    except TrailcheckError as error:
        raise pytest.UsageError(str(error)) from None


def _plan(config: pytest.Config, marker: str) -> CasePlan:
    dataset_path = str(config.getoption("trailcheck"))
    agent = config.getoption("trailcheck_agent")
    if agent is None:
        raise pytest.UsageError(
            "--trailcheck needs --trailcheck-agent MODULE:FACTORY, the agent the cases run"
        )
    environment = config.getoption("trailcheck_env")
    settings: dict[str, Any] = {"k": config.getoption("trailcheck_k")}
    if (timeout := config.getoption("trailcheck_timeout")) is not None:
        settings["timeout_s"] = timeout
    if (concurrency := config.getoption("trailcheck_concurrency")) is not None:
        settings["concurrency"] = concurrency
    return CasePlan(
        dataset=load_dataset(dataset_path),
        path=Path(dataset_path).resolve(),
        agent_factory=resolve_reference(agent, what="--trailcheck-agent"),
        environment_factory=None
        if environment is None
        else resolve_reference(environment, what="--trailcheck-env"),
        options=RunOptions(**settings),
        references={"agent": agent, "environment": environment, "dataset": dataset_path},
        marker=marker,
    )


def collect_cases(session: pytest.Session) -> list[CaseItem]:
    """The dataset's case items, reported as collected like any collector's."""
    plan = session.config.stash[_PLAN]
    name = plan.dataset.name
    collector = DatasetCollector.from_parent(session, name=name, nodeid=name, plan=plan)
    items = list(collector.collect())
    collected: list[pytest.Item | pytest.Collector] = list(items)
    session.ihook.pytest_collectreport(
        report=pytest.CollectReport(collector.nodeid, "passed", None, collected)
    )
    return items


class DatasetCollector(pytest.Collector):
    """The dataset as a pytest node: its cases are its items."""

    def __init__(self, *, plan: CasePlan, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.plan = plan

    def collect(self) -> Iterator[CaseItem]:
        for case in self.plan.dataset.graded_cases():
            item = CaseItem.from_parent(self, name=case.id, case=case, plan=self.plan)
            item.add_marker(self.plan.marker)
            item.add_marker(f"{self.plan.marker}_{case.split}")
            yield item

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.plan.path, None, self.name


class CaseFailedError(Exception):
    """Not every trial of a case passed; ``lines`` say what each trial did."""

    def __init__(self, lines: list[str], stacks: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines
        self.stacks = stacks


class CaseItem(pytest.Item):
    """One case of the dataset: its k trials, run by the real runner."""

    def __init__(self, *, case: Case, plan: CasePlan, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.plan = plan

    def runtest(self) -> None:
        plan = self.plan
        result = run(
            plan.dataset.model_copy(update={"cases": [self.case]}),
            plan.agent_factory,
            plan.environment_factory,
            options=plan.options,
            references=plan.references,
        )
        [case_result] = result.report.cases
        if any(trial.status != "passed" for trial in case_result.trials):
            raise CaseFailedError(failure_lines(case_result), _stacks(case_result))

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        error = excinfo.value
        if isinstance(error, CaseFailedError):
            verbose = self.config.get_verbosity() > 0
            return "\n".join([*error.lines, *(error.stacks if verbose else [])])
        if isinstance(error, TrailcheckError):  # the case or agent used wrongly: one message
            return f"{self.case.id}: {type(error).__name__}: {error}"
        return super().repr_failure(excinfo, style)  # a bug: its traceback is the news

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.plan.path, None, f"{self.plan.dataset.name}::{self.case.id}"


def failure_lines(case: CaseResult) -> list[str]:
    """A heading with the count, then each trial: its status and why, one line per failed
    score (``reschedule-friday trial 1 failed: arguments 1/2=0.500; ...``)."""
    passed = sum(trial.status == "passed" for trial in case.trials)
    guards = f"; guards {', '.join(case.failure_modes)}" if case.failure_modes else ""
    lines = [f"{case.id}: {passed}/{len(case.trials)} trials passed ({case.split}{guards})"]
    for trial in case.trials:
        lines.extend(_trial_lines(case.id, trial))
    return lines


def _trial_lines(case_id: str, trial: TrialResult) -> list[str]:
    prefix = f"{case_id} trial {trial.attempt} {trial.status}"
    if trial.status == "passed":
        return [prefix]
    failed = [score for score in trial.scores if not score.passed]
    if trial.status == "failed" and failed:
        return [f"{prefix}: {_named(score.scorer, score.reason)}" for score in failed]
    return [f"{prefix}: {trial.reason}"] + [
        f"{prefix}: scorer {f.scorer} raised {f.error_type}: {f.message}"
        for f in trial.scorer_failures
    ]


def _named(scorer: str, reason: str) -> str:
    """The reason, led by its scorer's name where the reason does not start with it."""
    return reason if reason.startswith(scorer) else f"{scorer}: {reason}"


def _stacks(case: CaseResult) -> list[str]:
    return [
        f"--- {case.id} trial {trial.attempt} {trial.status}:\n{trial.error.traceback.rstrip()}"
        for trial in case.trials
        if trial.error is not None
    ]
