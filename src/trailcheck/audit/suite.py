"""``audit_dataset``: every check that the inputs given allow, in one list of findings.

- always: the static lint (:mod:`.lint`), ADK's traps in cases imported from ADK
  (:mod:`.adk_traps`) and the trivial agents (:mod:`.trivial`), run for real
  with an environment factory, else graded statically;
- with an environment factory: the oracle (:mod:`.oracle`);
- with a report: flakiness (:mod:`.flaky`) and, when ``reports_dir`` is given, provenance
  (:mod:`.provenance`);
- with an agent factory and an environment but no report: the agent runs ``flaky_k`` trials
  per case and that report is audited for flakiness.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from trailcheck.audit.adk_traps import check_adk_traps
from trailcheck.audit.finding import AuditResult, Finding
from trailcheck.audit.flaky import check_flaky
from trailcheck.audit.lint import lint_dataset
from trailcheck.audit.oracle import check_oracle
from trailcheck.audit.provenance import check_provenance
from trailcheck.audit.trivial import check_trivial
from trailcheck.cases import Dataset
from trailcheck.environment import EnvironmentFactory
from trailcheck.run.agent import AgentFactory
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import RunReport
from trailcheck.run.runner import run

FLAKY_K = 3


def audit_dataset(
    dataset: Dataset,
    *,
    agent_factory: AgentFactory | None = None,
    environment_factory: EnvironmentFactory | None = None,
    report: RunReport | None = None,
    reports_dir: Path | None = None,
    write_tools: Collection[str] | None = None,
    seed: int = 0,
    flaky_k: int = FLAKY_K,
) -> AuditResult:
    """Audit ``dataset`` (see the module docstring for which checks run on which inputs)."""
    findings: list[Finding] = lint_dataset(dataset, write_tools=write_tools)
    findings += check_adk_traps(dataset)
    findings += check_trivial(dataset, environment_factory, seed=seed)
    if environment_factory is not None:
        findings += check_oracle(dataset, environment_factory, seed=seed)
    if report is None and agent_factory is not None and environment_factory is not None:
        options = RunOptions(k=flaky_k, seed=seed)
        report = run(dataset, agent_factory, environment_factory, options=options).report
        reports_dir = None  # a report made now is not stale
    if report is not None:
        findings += check_flaky(report)
        if reports_dir is not None:
            findings += check_provenance(report, reports_dir)
    return AuditResult(findings=findings)
