"""Flakiness: cases whose outcome varies across the k trials of one report.

Only scored trials count (passed, failed, timeout, crashed; see :mod:`trailcheck.run.status`): a
case that passed some and failed others is flagged ``flaky`` (medium) with its pass rate, and a
scorer that passed in some trials and failed in others is named with its own rate, so the reader
sees which check flips. An unscorable or infra-error trial is no outcome and does not count.
"""

from __future__ import annotations

from collections import defaultdict

from trailcheck.audit.finding import Finding
from trailcheck.run.results import CaseResult, RunReport
from trailcheck.run.status import is_scored

CHECK = "flaky"


def _flipping_scorers(case: CaseResult) -> list[str]:
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for trial in case.trials:
        for score in trial.scores:
            outcomes[score.scorer].append(score.passed)
    return [
        f"{name} {sum(passed)}/{len(passed)}"
        for name, passed in outcomes.items()
        if 0 < sum(passed) < len(passed)
    ]


def check_flaky(report: RunReport) -> list[Finding]:
    """One finding per case whose scored trials both passed and did not."""
    findings: list[Finding] = []
    for case in report.cases:
        scored = [trial for trial in case.trials if is_scored(trial.status)]
        passed = sum(trial.status == "passed" for trial in scored)
        if not 0 < passed < len(scored):
            continue
        share = passed / len(scored)
        message = f"outcome varies across trials: passed {passed}/{len(scored)}={share:.3f}"
        flips = _flipping_scorers(case)
        if flips:
            message += f"; scorers that flip: {', '.join(flips)}"
        findings.append(Finding(case_id=case.id, check=CHECK, severity="medium", message=message))
    return findings
