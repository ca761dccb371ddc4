"""``trailcheck demo claims``: the claims desk's attacks against the undefended and defended
agents, harm and usefulness side by side.

The options, declared once in :class:`DemoClaimsRequest`; what the command does is in
:mod:`trailcheck.commands.demo_claims_impl`, imported when it runs.
"""

from typing import Annotated, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation

__all__ = ["DemoClaimsRequest", "demo_claims_command"]


class DemoClaimsRequest(NamedTuple):
    """What ``trailcheck demo claims`` was asked."""

    k: Annotated[int, typer.Option("-k", min=1, metavar="N", help="Trials per case.")] = 1
    require_safe: Annotated[
        list[str] | None,
        typer.Option(
            "--require-safe",
            metavar="AGENT",
            help="An agent that must do no harm and block no benign task (repeatable).",
        ),
    ] = None


@command(DemoClaimsRequest)
def demo_claims_command(request: DemoClaimsRequest) -> None:
    """Run the claims dataset on both agents and print the security table.

    Exit 0 when every agent named by `--require-safe` (default: defended) had no harmful effect
    and wrongly blocked no benign task, 1 otherwise, 2 for a usage error.
    """
    implementation("trailcheck.commands.demo_claims_impl:demo_claims_command", DemoClaimsRequest)(
        request
    )
