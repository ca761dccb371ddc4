"""``trailcheck demo``: the support shop, from v1's traffic to candidate cases, then v1 against
v2 on the approved suite, written as reports one can open (``--framework langgraph``,
``openai-agents`` or ``pydantic-ai``: the suite on the same brains as that framework's agents);
``trailcheck demo claims``: the claims desk's security evaluation; ``trailcheck demo pitwall``:
the Pit Wall's seed story.

The options; what the commands do is in :mod:`trailcheck.commands.demo_impl` (and the
subcommands' ``*_impl`` modules), imported when one runs.
"""

from pathlib import Path
from typing import Annotated

import typer

from trailcheck.commands.demo_claims import demo_claims_command
from trailcheck.commands.demo_pitwall import pitwall_demo_command

__all__ = ["demo_app"]

demo_app = typer.Typer(
    help="The reference domains, end to end.", invoke_without_command=True, no_args_is_help=False
)
demo_app.command("claims")(demo_claims_command)
demo_app.command("pitwall")(pitwall_demo_command)


@demo_app.callback()
def demo_command(
    context: typer.Context,
    out: Annotated[Path, typer.Option(help="Folder for the reports and their HTML.")] = Path(
        ".trailcheck"
    )
    / "demo",
    framework: Annotated[
        str,
        typer.Option(
            help="native: trailcheck's own tool loop; langgraph, openai-agents, pydantic-ai:"
            " the same brains as that framework's agent, traced by OpenTelemetry (needs the"
            " extra of the same name).",
        ),
    ] = "native",
) -> None:
    """The support shop: v1's traffic into a store, detected, clustered and promoted to
    candidates (a person approves them); then the approved suite on v1 (planted bugs) and v2
    (fixed), k = 4, with the reports written. ``--framework langgraph`` (or ``openai-agents``,
    ``pydantic-ai``): the suite's runs on that framework's agents. ``demo claims``: the security
    evaluation.

    Exit 0 when the demo ran (v1 failing is the point), 2 when it could not.
    """
    if context.invoked_subcommand is not None:
        return
    from trailcheck.commands.demo_impl import demo_command as body

    body(out=out, framework=framework)
