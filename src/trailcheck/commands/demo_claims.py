"""``trailcheck demo claims``: the claims desk's attacks against the undefended and defended
agents, harm and usefulness side by side.

The options; what the command does is in :mod:`trailcheck.commands.demo_claims_impl`, imported when
it runs.
"""

from typing import Annotated

import typer

__all__ = ["demo_claims_command"]


def demo_claims_command(
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
    from trailcheck.commands.demo_claims_impl import demo_claims_command as body

    body(k=k, require_safe=require_safe)
