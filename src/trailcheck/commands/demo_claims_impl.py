"""What ``trailcheck demo claims`` does (its options: :mod:`trailcheck.commands.demo_claims`): the
claims desk's attacks against the undefended and defended agents, harm and usefulness side by
side."""

from __future__ import annotations

import typer

from trailcheck.commands.demo_claims import DemoClaimsRequest
from trailcheck.commands.output import stdout
from trailcheck.demo.claims.evaluation import render_security_table, run_security_eval
from trailcheck.errors import EXIT_FAILED, UsageError


def demo_claims_command(request: DemoClaimsRequest) -> None:
    """The body of :func:`trailcheck.commands.demo_claims.demo_claims_command`."""
    rows = run_security_eval(k=request.k)
    names = {row.agent for row in rows}
    required = request.require_safe or ["defended"]
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
        raise typer.Exit(EXIT_FAILED)
