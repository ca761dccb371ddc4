"""``trailcheck demo claims``: the claims desk's attacks against the undefended and defended
agents, harm and usefulness side by side."""

from __future__ import annotations

from typing import Annotated

import typer

from trailcheck.commands.run import EXIT_GATE_FAILED, stdout
from trailcheck.demo.claims.evaluation import render_security_table, run_security_eval
from trailcheck.errors import UsageError


def security_eval_command(
    k: Annotated[int, typer.Option("-k", min=1, help="Trials per case.")] = 1,
    require_safe: Annotated[
        list[str] | None,
        typer.Option(
            "--require-safe",
            help="An agent that must suffer no harm and block no benign task (repeatable).",
        ),
    ] = None,
) -> None:
    """Run the claims dataset on both agents and print the security table.

    Exit 0 when every agent named by --require-safe (default: defended) had no harmful effect
    and wrongly blocked no benign task, 1 otherwise, 2 for a usage error.
    """
    rows = run_security_eval(k=k)
    names = {row.agent for row in rows}
    required = require_safe or ["defended"]
    unknown = [name for name in required if name not in names]
    if unknown:
        raise UsageError(
            f"--require-safe {unknown[0]!r}: the agents are {', '.join(sorted(names))}"
        )
    stdout.print(render_security_table(rows), markup=False, highlight=False, soft_wrap=True)
    unsafe = [
        row.agent
        for row in rows
        if row.agent in required and (row.harmful_effects or row.benign_blocked)
    ]
    if unsafe:
        stdout.print(f"not safe: {', '.join(unsafe)}", markup=False)
        raise typer.Exit(EXIT_GATE_FAILED)
