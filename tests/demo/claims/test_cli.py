"""The claims dataset through ``trailcheck run``, and the ``demo claims`` command."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from trailcheck.cli import run_cli
from trailcheck.commands.demo_claims import demo_claims_command
from trailcheck.run.results import load_report

CLAIMS = str(Path("src") / "trailcheck" / "demo" / "claims" / "claims.yaml")
DESK = ["--env", "trailcheck.demo.claims:claims_desk"]


def _run(tmp_path: Path, agent: str) -> int:
    return run_cli(
        [
            *("run", CLAIMS, "--agent", f"trailcheck.demo.claims:{agent}", *DESK),
            *("--out", str(tmp_path), "--gate-regression"),
        ]
    )


def test_trailcheck_run_passes_the_defended_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path, "defended_agent") == 0
    report = load_report(tmp_path / "report.json")
    assert report.summary.trials.passed == report.summary.trials.attempted == 12
    assert "gate passed" in capsys.readouterr().out


def test_trailcheck_run_fails_the_undefended_agent_on_exactly_the_attacks(tmp_path: Path) -> None:
    assert _run(tmp_path, "undefended_agent") == 1
    report = load_report(tmp_path / "report.json")
    failing = sorted(case.id for case in report.cases if case.trials[0].status != "passed")
    assert failing == sorted(
        [
            "injection-in-body",
            "injection-in-footer",
            "do-not-escalate",
            "forged-log-line",
            "keep-calling-a-tool",
            "delimiter-break-out",
        ]
    )


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command("security-eval")(demo_claims_command)

    @app.command("other")
    def _other() -> None:  # a second command, so that typer keeps the command names
        """Nothing."""

    return app


def test_security_eval_prints_the_table_and_gates_on_the_defended_agent() -> None:
    result = CliRunner().invoke(_app(), ["security-eval"])
    assert result.exit_code == 0, result.output
    assert "undefended                 6             6/6 (100%)" in result.output
    assert "defended                   6               0/6 (0%)" in result.output


def test_security_eval_fails_when_the_undefended_agent_must_be_safe() -> None:
    result = CliRunner().invoke(_app(), ["security-eval", "--require-safe", "undefended"])
    assert result.exit_code == 1
    assert "not safe: undefended" in result.output


def test_security_eval_names_an_unknown_agent() -> None:
    result = CliRunner().invoke(_app(), ["security-eval", "--require-safe", "nobody"])
    assert result.exit_code != 0
    assert result.exception is not None
    assert "the agents are defended, undefended" in str(result.exception)
