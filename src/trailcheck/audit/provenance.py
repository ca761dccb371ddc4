"""Provenance: a report is stale when the code it ran has changed since.

The report's manifest records the commit it ran at (``manifest.git.commit``). The report is
``stale_report`` (medium) when any file outside the reports folder differs between that commit
and HEAD: ``git diff --quiet <commit> HEAD -- . ':(exclude)<reports dir>'``, run at the top of the
repository, so git filters the paths and its exit status answers (0 same, 1 changed). A report
written from a working tree with uncommitted changes (``manifest.git.dirty``) is flagged
``dirty_report`` (low): its commit does not name what ran.

A check that cannot run (no commit in the manifest, no git, not a repository, a commit git does
not know) says so as a ``provenance_unchecked`` finding (low), never as a pass.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from trailcheck.audit.finding import Finding
from trailcheck.run.results import RunReport

_TIMEOUT_S = 30


def _unchecked(why: str) -> Finding:
    return Finding(
        case_id=None,
        check="provenance_unchecked",
        severity="low",
        message=f"cannot tell whether the report is stale: {why}",
    )


def _git(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        check=False,
    )


def _commit(report: RunReport) -> tuple[str | None, bool]:
    git = report.manifest.get("git")
    if not isinstance(git, dict):
        return None, False
    commit = git.get("commit")
    return (commit if isinstance(commit, str) and commit else None), git.get("dirty") is True


def check_provenance(report: RunReport, reports_dir: Path) -> list[Finding]:
    """Whether ``report`` (kept in ``reports_dir``) is stale against HEAD; see the module doc."""
    commit, dirty = _commit(report)
    if commit is None:
        return [_unchecked("the report's manifest records no git commit")]
    folder = reports_dir.resolve()
    where = folder if folder.is_dir() else Path.cwd()
    try:
        top = _git(["rev-parse", "--show-toplevel"], where)
    except (OSError, subprocess.TimeoutExpired) as error:
        return [_unchecked(f"git did not run: {error}")]
    if top.returncode != 0:
        return [_unchecked(f"{where} is not in a git repository")]
    root = Path(top.stdout.strip())
    try:
        excluded = folder.relative_to(root).as_posix()
    except ValueError:
        excluded = None
    pathspecs = ["."] if excluded in (None, ".") else [".", f":(exclude){excluded}"]
    try:
        diff = _git(["diff", "--quiet", commit, "HEAD", "--", *pathspecs], root)
    except (OSError, subprocess.TimeoutExpired) as error:
        return [_unchecked(f"git diff did not run: {error}")]
    findings: list[Finding] = []
    if diff.returncode == 1:
        outside = f" outside {excluded}" if excluded not in (None, ".") else ""
        message = f"files{outside} changed between the report's commit {commit[:12]} and HEAD"
        findings.append(
            Finding(case_id=None, check="stale_report", severity="medium", message=message)
        )
    elif diff.returncode != 0:
        said = diff.stderr.strip().splitlines()
        return [_unchecked(f"git diff failed: {said[0] if said else diff.returncode}")]
    if dirty:
        message = f"the report ran on uncommitted changes: commit {commit[:12]} is not what ran"
        findings.append(
            Finding(case_id=None, check="dirty_report", severity="low", message=message)
        )
    return findings
