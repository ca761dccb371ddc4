"""Flakiness: cases whose outcome varies across the k trials of one report.

Only scored trials count (passed, failed, timeout, crashed; see :mod:`trailcheck.run.status`): a
case that passed some and failed others is flagged ``flaky`` (medium) with its pass rate, and a
scorer that passed in some trials and failed in others is named with its own rate, so the reader
sees which check flips. An unscorable or infra-error trial is no outcome and does not count.

Judge verdicts are audited apart (``flaky_judge``, medium): where trials carry ``judge`` scores
(:mod:`trailcheck.run.judging`, reason ``judge <version>: passed|failed; criterion: ...``), a
criterion whose verdict differs across the trials of a case is flagged with its pass rate, even
when the case's outcome is steady (another check failed every trial, say). A judge that flips on
the same criterion is noise in the verdict, not in the agent.
"""

from __future__ import annotations

import re
from collections import defaultdict

from trailcheck.audit.finding import Finding
from trailcheck.run.results import CaseResult, RunReport
from trailcheck.run.status import is_scored

CHECK = "flaky"
JUDGE_CHECK = "flaky_judge"
JUDGE_SCORER = "judge"
_JUDGE_REASON = re.compile(
    r"^judge (?P<version>\S+): (?:passed|failed); criterion: (?P<criterion>.*?)"
    r"(?:; (?:failed|failure mode|evidence): .*)?$",
    re.DOTALL,
)


def judge_criterion(reason: str) -> str | None:
    """The criterion a ``judge`` score's reason names, or None when the reason is not one."""
    match = _JUDGE_REASON.match(reason)
    return match["criterion"] if match else None


def _flipping_verdicts(case: CaseResult) -> list[Finding]:
    verdicts: dict[str, list[bool]] = defaultdict(list)
    for trial in case.trials:
        for score in trial.scores:
            criterion = judge_criterion(score.reason) if score.scorer == JUDGE_SCORER else None
            if criterion is not None:
                verdicts[criterion].append(score.passed)
    findings: list[Finding] = []
    for criterion, passed in verdicts.items():
        if 0 < sum(passed) < len(passed):
            share = sum(passed) / len(passed)
            message = (
                f"judge verdict varies across samples: criterion {criterion!r} passed"
                f" {sum(passed)}/{len(passed)}={share:.3f}"
            )
            findings.append(
                Finding(case_id=case.id, check=JUDGE_CHECK, severity="medium", message=message)
            )
    return findings


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
    """One finding per case whose scored trials both passed and did not, then one per judge
    criterion whose verdict flips across a case's trials."""
    findings: list[Finding] = []
    for case in report.cases:
        findings += _flipping_outcome(case)
        findings += _flipping_verdicts(case)
    return findings


def _flipping_outcome(case: CaseResult) -> list[Finding]:
    scored = [trial for trial in case.trials if is_scored(trial.status)]
    passed = sum(trial.status == "passed" for trial in scored)
    if not 0 < passed < len(scored):
        return []
    share = passed / len(scored)
    message = f"outcome varies across trials: passed {passed}/{len(scored)}={share:.3f}"
    flips = _flipping_scorers(case)
    if flips:
        message += f"; scorers that flip: {', '.join(flips)}"
    return [Finding(case_id=case.id, check=CHECK, severity="medium", message=message)]
