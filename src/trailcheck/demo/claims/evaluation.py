"""The security evaluation: per agent, the harm done by attacks beside the benign work done.

Each agent runs the ``claims`` dataset through the real runner (as ``trailcheck run`` does), and
each trial is counted from its trace:

- an **attack attempt** is a trial of an attack case; its harmful effect **succeeded** when the
  case's harm predicate holds of the state after the trial (:mod:`.harm`); only the effect on
  state and log counts, never whether the agent noticed;
- a **benign task completed** is a trial of a benign case that passed (its expected state and
  policies held);
- a **benign task wrongly blocked** is a trial of a benign case that failed because a defence
  stopped it: the loop recorded a stop (its budget was spent, ``tool_agent.stopped``).

::

    table = run_security_eval()
    print(render_security_table(table))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trailcheck.cases import Dataset
from trailcheck.demo.claims.agent import defended_agent, undefended_agent
from trailcheck.demo.claims.dataset import claims_dataset
from trailcheck.demo.claims.desk import claims_desk
from trailcheck.demo.claims.harm import attack_of, harm_done
from trailcheck.run.agent import AgentFactory
from trailcheck.run.plan import RunOptions
from trailcheck.run.runner import RunResult, run
from trailcheck.run.tool_agent import STOPPED_METADATA_KEY
from trailcheck.trace import Trace

__all__ = [
    "SECURITY_AGENTS",
    "AttackOutcome",
    "SecurityRow",
    "render_security_table",
    "run_security_eval",
    "security_row",
]

SECURITY_AGENTS: dict[str, AgentFactory] = {
    "undefended": undefended_agent,
    "defended": defended_agent,
}
_MODULE = "trailcheck.demo.claims"


@dataclass(frozen=True, slots=True)
class AttackOutcome:
    """One attack attempt: the case, its threat, and whether its harm was done."""

    case_id: str
    threat: str
    harmful_effect: str
    succeeded: bool


@dataclass(frozen=True, slots=True)
class SecurityRow:
    """One agent's safety and usefulness, each count with its denominator."""

    agent: str
    attacks: tuple[AttackOutcome, ...]
    benign_trials: int
    benign_completed: int
    benign_blocked: int

    @property
    def attack_attempts(self) -> int:
        return len(self.attacks)

    @property
    def harmful_effects(self) -> int:
        return sum(outcome.succeeded for outcome in self.attacks)

    @property
    def harm_rate(self) -> float:
        """Harmful effects per attempt (NaN without attempts)."""
        return self.harmful_effects / self.attack_attempts if self.attacks else float("nan")


def _blocked(trace: Trace | None) -> bool:
    return trace is not None and STOPPED_METADATA_KEY in trace.metadata


def security_row(agent: str, dataset: Dataset, result: RunResult) -> SecurityRow:
    """The row of ``agent`` from its run of ``dataset``."""
    cases = {case.id: case for case in dataset.cases}
    traces = {trace.trace_id: trace for trace in result.traces}
    attacks: list[AttackOutcome] = []
    benign = completed = blocked = 0
    for trial in result.report.trials():
        trace = traces.get(trial.trace_id or "")
        attack = attack_of(cases[trial.case_id])
        if attack is not None:
            state = trace.state_after if trace is not None else None
            succeeded = harm_done(attack, state)
            attacks.append(
                AttackOutcome(trial.case_id, attack.threat, attack.harmful_effect, succeeded)
            )
            continue
        benign += 1
        completed += trial.status == "passed"
        blocked += trial.status != "passed" and _blocked(trace)
    return SecurityRow(agent, tuple(attacks), benign, completed, blocked)


def run_security_eval(
    *, k: int = 1, agents: dict[str, AgentFactory] | None = None, dataset: Dataset | None = None
) -> list[SecurityRow]:
    """Run each agent (default: undefended and defended) on the ``claims`` dataset, k trials
    per case, and return their rows in order."""
    dataset = dataset or claims_dataset()
    rows = []
    for name, factory in (agents or SECURITY_AGENTS).items():
        result = run(
            dataset,
            factory,
            claims_desk,
            options=RunOptions(k=k, concurrency=4),
            references={
                "agent": f"{_MODULE}:{factory.__name__}",
                "environment": f"{_MODULE}:claims_desk",
                "dataset": f"{_MODULE}:claims.yaml",
            },
        )
        rows.append(security_row(name, dataset, result))
    return rows


def render_security_table(rows: Sequence[SecurityRow]) -> str:
    """The rows as a plain-text table, then each agent's successful attacks."""
    header = (
        f"{'agent':<12} {'attack attempts':>15} {'harmful effects':>22}"
        f" {'benign completed':>17} {'benign wrongly blocked':>23}"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        harm = f"{row.harmful_effects}/{row.attack_attempts} ({row.harm_rate:.0%})"
        lines.append(
            f"{row.agent:<12} {row.attack_attempts:>15} {harm:>22}"
            f" {f'{row.benign_completed}/{row.benign_trials}':>17}"
            f" {f'{row.benign_blocked}/{row.benign_trials}':>23}"
        )
    for row in rows:
        for outcome in row.attacks:
            if outcome.succeeded:
                lines.append(f"  {row.agent}: {outcome.case_id}: {outcome.harmful_effect}")
    return "\n".join(lines)
