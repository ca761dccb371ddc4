"""What ``trailcheck audit`` does (its options: :mod:`trailcheck.commands.audit`): a dataset's
own defects as findings; exit 1 when any is high."""

from __future__ import annotations

from typing import Any

import orjson
import typer

from trailcheck.audit import AuditResult, audit_dataset
from trailcheck.cases import load_dataset
from trailcheck.commands.audit import AuditRequest
from trailcheck.errors import EXIT_FAILED, UsageError
from trailcheck.run.results import load_report
from trailcheck.specs.references import resolve_reference


def _factory(reference: str | None, what: str) -> Any:
    if reference is None:
        return None
    factory = resolve_reference(reference, what=what)
    if not callable(factory):
        raise UsageError(f"{what} {reference!r} is not callable")
    return factory


def render_findings(result: AuditResult) -> str:
    """One row per finding: case id (``-`` for the suite), check, severity, message."""
    if not result.findings:
        return "no findings"
    rows = [f"{f.case_id or '-'}\t{f.check}\t{f.severity}\t{f.message}" for f in result.findings]
    counts = {s: sum(f.severity == s for f in result.findings) for s in ("high", "medium", "low")}
    summary = ", ".join(f"{n} {severity}" for severity, n in counts.items())
    return "\n".join([*rows, f"{len(result.findings)} finding(s): {summary}"])


def audit_command(request: AuditRequest) -> None:
    """The body of :func:`trailcheck.commands.audit.audit_command`."""
    agent, env, report_path = request.agent, request.env, request.report_path
    if agent is not None and env is None:
        raise UsageError("--agent needs --env: the agent runs in that environment")
    result = audit_dataset(
        load_dataset(request.dataset_path),
        agent_factory=_factory(agent, "agent factory"),
        environment_factory=_factory(env, "environment factory"),
        report=None if report_path is None else load_report(report_path),
        reports_dir=None if report_path is None else report_path.parent,
    )
    if request.as_json:
        data = [finding.model_dump(mode="json") for finding in result.findings]
        typer.echo(orjson.dumps({"findings": data}, option=orjson.OPT_INDENT_2).decode())
    else:
        typer.echo(render_findings(result))
    if result.has_high:
        raise typer.Exit(EXIT_FAILED)
