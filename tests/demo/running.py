"""Running a support agent on one case through the real runner, so the demo tests exercise the
runner's path itself: a fresh shop reset from its fixture, the case's faults injected, every
user turn played inside one recorded run, and the trace graded."""

from __future__ import annotations

from trailcheck.cases import Case, Dataset
from trailcheck.demo.support import SupportShop
from trailcheck.run import Agent
from trailcheck.run.results import TrialResult
from trailcheck.run.runner import RunResult, run
from trailcheck.trace import Trace


def _one_trial(agent: Agent, shop: SupportShop, case: Case) -> RunResult:
    """One trial of ``case`` by ``agent`` on ``shop`` (reset by the runner before the trial)."""
    dataset = Dataset(name="support-demo", cases=[case])
    return run(dataset, lambda: agent, lambda: shop)


def run_case(agent: Agent, shop: SupportShop, case: Case) -> Trace:
    """The trace of one trial; a trial that stopped before its trace was recorded fails here."""
    result = _one_trial(agent, shop, case)
    [trial] = result.report.trials()
    assert result.traces, f"{case.id}: no trace: {trial.status}: {trial.reason}"
    return result.traces[0]


def graded(agent: Agent, shop: SupportShop, case: Case) -> TrialResult:
    """The graded trial: its status, reason and scores."""
    [trial] = _one_trial(agent, shop, case).report.trials()
    return trial
