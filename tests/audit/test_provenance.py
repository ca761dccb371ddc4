"""Provenance: a report is stale when code outside the reports folder changed since its commit."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.audit.shop import dataset, tiny_shop
from trailcheck.audit import check_provenance
from trailcheck.audit.trivial import AnsweringAgent
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import RunReport, load_report
from trailcheck.run.runner import run

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    pytest.mark.live,
]

CASE = "  - id: c\n    input: hi\n    expected_tools: []\n"


def _git(repo: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _commit_all(repo: Path) -> str:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "change")
    return _git(repo, "rev-parse", "HEAD")


def _report(git: object) -> RunReport:
    report = run(
        dataset(CASE), lambda: AnsweringAgent(lambda m: m), tiny_shop, options=RunOptions()
    ).report
    return report.model_copy(update={"manifest": {**report.manifest, "git": git}})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q")
    (tmp_path / "agent.py").write_text("v = 1\n")
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "report.json").write_text("{}\n")
    _commit_all(tmp_path)
    return tmp_path


def test_a_report_at_head_is_not_stale(repo: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    assert check_provenance(_report({"commit": head, "dirty": False}), repo / "reports") == []


def test_regenerated_reports_alone_do_not_make_it_stale(repo: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    (repo / "reports" / "report.json").write_text('{"again": true}\n')
    _commit_all(repo)
    assert check_provenance(_report({"commit": head, "dirty": False}), repo / "reports") == []


def test_code_changed_since_the_report_makes_it_stale(repo: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    (repo / "agent.py").write_text("v = 2\n")
    _commit_all(repo)
    (finding,) = check_provenance(_report({"commit": head, "dirty": False}), repo / "reports")
    assert (finding.case_id, finding.check, finding.severity) == (None, "stale_report", "medium")
    assert finding.message == (
        f"files outside reports changed between the report's commit {head[:12]} and HEAD"
    )


def test_a_dirty_report_says_so(repo: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    (finding,) = check_provenance(_report({"commit": head, "dirty": True}), repo / "reports")
    assert finding.check == "dirty_report"


@pytest.mark.parametrize(
    ("git", "why"),
    [
        (None, "the report's manifest records no git commit"),
        ({"commit": "0" * 40, "dirty": False}, "git diff failed"),
    ],
)
def test_a_check_that_cannot_run_says_so(repo: Path, git: object, why: str) -> None:
    (finding,) = check_provenance(_report(git), repo / "reports")
    assert (finding.check, finding.severity) == ("provenance_unchecked", "low")
    assert why in finding.message


def test_outside_a_repository_it_cannot_run(tmp_path: Path) -> None:
    (finding,) = check_provenance(_report({"commit": "a" * 40, "dirty": False}), tmp_path)
    assert finding.check == "provenance_unchecked"
    assert "not in a git repository" in finding.message


def test_regenerating_a_report_is_a_steady_state(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The runner records the commit of the working directory, as it does for a real run.
    monkeypatch.chdir(repo)
    reports = repo / "reports"

    def generate() -> RunReport:
        report = run(
            dataset(CASE), lambda: AnsweringAgent(lambda m: m), tiny_shop, options=RunOptions()
        ).report
        (reports / "report.json").write_text(report.model_dump_json())
        _commit_all(repo)
        return load_report(reports / "report.json")

    first = generate()
    assert isinstance(first.manifest["git"], dict)
    assert first.manifest["git"]["dirty"] is False
    assert check_provenance(first, reports) == []
    second = generate()
    assert check_provenance(second, reports) == []
    (repo / "agent.py").write_text("v = 3\n")
    _commit_all(repo)
    (finding,) = check_provenance(second, reports)
    assert finding.check == "stale_report"
