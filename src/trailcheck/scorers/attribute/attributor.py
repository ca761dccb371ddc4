"""Deterministic failure attribution: a failed grade's earliest wrong step, from what its failed
scorers know against the case's reference (the rules: :mod:`trailcheck.scorers.attribute`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from trailcheck.cases import Case
from trailcheck.scorers.arguments import ArgumentsScorer
from trailcheck.scorers.attribute.awkward import awkward_results, misreadings
from trailcheck.scorers.attribute.departures import policy_leads, trajectory_leads
from trailcheck.scorers.attribute.ending import (
    efficiency_leads,
    grounding_leads,
    infrastructure_leads,
    termination_leads,
)
from trailcheck.scorers.attribute.lead import Lead, Steps, choose
from trailcheck.scorers.attribute.values import argument_leads, state_leads
from trailcheck.scorers.attribution import Attribution
from trailcheck.scorers.efficiency import EfficiencyScorer
from trailcheck.scorers.grounding import GroundingScorer
from trailcheck.scorers.policy import PolicyScorer
from trailcheck.scorers.registry import case_scorers
from trailcheck.scorers.score import Score, Scorer
from trailcheck.scorers.state import StateScorer
from trailcheck.scorers.termination import TerminationScorer
from trailcheck.scorers.trajectory import TrajectoryScorer
from trailcheck.trace import Trace


class Graded(Protocol):
    """What attribution reads of a grade (a :class:`~trailcheck.scorers.Grade`)."""

    @property
    def status(self) -> str: ...

    @property
    def scores(self) -> Sequence[Score]: ...


def attribute(
    trace: Trace, case: Case, grade: Graded, scorers: Sequence[Scorer] | None = None
) -> Attribution | None:
    """Where ``trace``, graded ``grade`` against ``case`` by ``scorers`` (default: the case's),
    first went wrong; ``None`` for a grade that did not fail, or a failure no rule places."""
    if grade.status != "failed":
        return None
    failed = {score.scorer for score in grade.scores if not score.passed}
    steps = Steps(trace, awkward_results(trace, case))
    leads: list[Lead] = []
    for scorer in case_scorers(case) if scorers is None else scorers:
        if scorer.name in failed:
            leads += _leads(trace, case, scorer, steps)
    leads = misreadings(trace, leads, steps)
    return choose(leads, steps) or choose(infrastructure_leads(trace, case), steps)


def _leads(trace: Trace, case: Case, scorer: Scorer, steps: Steps) -> list[Lead]:
    """What one failed scorer says about where the run went wrong (nothing, for a scorer no
    rule reads: the response scorer, a judge, a third-party scorer)."""
    if isinstance(scorer, TrajectoryScorer):
        return trajectory_leads(trace, case, scorer, steps)
    if isinstance(scorer, PolicyScorer):
        return policy_leads(trace, case)
    if isinstance(scorer, ArgumentsScorer):
        return argument_leads(trace, case, scorer, steps)
    if isinstance(scorer, StateScorer):
        return state_leads(trace, case, scorer, steps)
    if isinstance(scorer, GroundingScorer):
        return grounding_leads(trace, scorer, steps)
    if isinstance(scorer, TerminationScorer):
        return termination_leads(trace, case, scorer, steps)
    if isinstance(scorer, EfficiencyScorer):
        return efficiency_leads(trace, scorer)
    return []
