"""``trailcheck audit``: a dataset's own defects as findings; exit 1 when any is high.

The options, declared once in :class:`AuditRequest`; what the command does is in
:mod:`trailcheck.commands.audit_impl`, imported when it runs.
"""

from pathlib import Path
from typing import Annotated, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation

__all__ = ["AuditRequest", "audit_command"]


class AuditRequest(NamedTuple):
    """What ``trailcheck audit`` was asked."""

    dataset_path: Annotated[
        Path, typer.Argument(metavar="DATASET", help="The dataset file (YAML or JSON).")
    ]
    agent: Annotated[
        str | None,
        typer.Option("--agent", metavar="MODULE:FACTORY", help="The agent, to find flaky cases."),
    ] = None
    env: Annotated[
        str | None,
        typer.Option("--env", metavar="MODULE:FACTORY", help="The agent's environment."),
    ] = None
    report_path: Annotated[
        Path | None,
        typer.Option(
            "--report", metavar="FILE", help="A run report to audit, for flaky and stale cases."
        ),
    ] = None
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False


@command(AuditRequest)
def audit_command(request: AuditRequest) -> None:
    """Audit the eval: trivial and oracle agents, vacuous checks, leakage, flaky, stale."""
    implementation("trailcheck.commands.audit_impl:audit_command", AuditRequest)(request)
