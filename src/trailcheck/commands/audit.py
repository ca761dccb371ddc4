"""``trailcheck audit``: a dataset's own defects as findings; exit 1 when any is high.

The options; what the command does is in :mod:`trailcheck.commands.audit_impl`, imported when it
runs.
"""

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["audit_command"]


def audit_command(
    dataset_path: Annotated[Path, typer.Argument(help="The dataset file (YAML or JSON).")],
    agent: Annotated[
        str | None, typer.Option("--agent", help="MODULE:FACTORY of the agent (flakiness).")
    ] = None,
    env: Annotated[
        str | None, typer.Option("--env", help="MODULE:FACTORY of the environment.")
    ] = None,
    report_path: Annotated[
        Path | None, typer.Option("--report", help="A run report to audit (flaky, stale).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False,
) -> None:
    """Audit the eval: trivial and oracle agents, vacuous checks, leakage, flaky, stale."""
    from trailcheck.commands.audit_impl import audit_command as body

    body(dataset_path=dataset_path, agent=agent, env=env, report_path=report_path, as_json=as_json)
