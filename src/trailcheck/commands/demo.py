"""``trailcheck demo``: the support shop, from v1's traffic to candidate cases, then v1 against
v2 on the approved suite, written as reports one can open (``--framework langgraph``,
``openai-agents`` or ``pydantic-ai``: the suite on the same brains as that framework's agents);
``trailcheck demo claims``: the claims desk's security evaluation; ``trailcheck demo pitwall``:
the Pit Wall's seed story; ``trailcheck demo online``: support traffic scored online, with
alerts on a failure rate that jumps halfway through; ``trailcheck demo conversation``: refund
conversations with simulated customers, v1 (refunds before asking) against v2 (asks).

The options, declared once in :class:`DemoRequest` (and the subcommands' requests); what the
commands do is in :mod:`trailcheck.commands.demo_impl` (and the subcommands' ``*_impl``
modules), imported when one runs.
"""

from pathlib import Path
from typing import Annotated, Literal, NamedTuple

import typer

from trailcheck.commands.declare import Command, command_in_context, implementation, new_app
from trailcheck.commands.demo_claims import demo_claims_command
from trailcheck.commands.demo_conversation import conversation_demo_command
from trailcheck.commands.demo_online import demo_online_command
from trailcheck.commands.demo_pitwall import pitwall_demo_command

__all__ = ["DemoFramework", "DemoRequest", "demo_app"]

DemoFramework = Literal["native", "langgraph", "openai-agents", "pydantic-ai"]
""":data:`trailcheck.demo.support.showcase.Framework`."""

demo_app = new_app(
    "The reference domains, end to end.", invoke_without_command=True, no_args_is_help=False
)
demo_app.command("claims", cls=Command)(demo_claims_command)
demo_app.command("pitwall", cls=Command)(pitwall_demo_command)
demo_app.command("online", cls=Command)(demo_online_command)
demo_app.command("conversation", cls=Command)(conversation_demo_command)


class DemoRequest(NamedTuple):
    """What ``trailcheck demo`` was asked, without a subcommand."""

    out: Annotated[
        Path, typer.Option(metavar="DIR", help="The folder for the reports and their HTML.")
    ] = Path(".trailcheck") / "demo"
    framework: Annotated[
        DemoFramework,
        typer.Option(
            metavar="NAME",
            help="native (trailcheck's own tool loop), langgraph, openai-agents or pydantic-ai"
            " (that framework's agents on the same brains; the extra of the same name).",
        ),
    ] = "native"


@demo_app.callback()
@command_in_context(DemoRequest)
def demo_command(context: typer.Context, request: DemoRequest) -> None:
    """The support shop: v1's traffic into a store, detected, clustered and promoted to
    candidates (a person approves them); then the approved suite on v1 (planted bugs) and v2
    (fixed), k = 4, with the reports written. `--framework langgraph` (or `openai-agents`,
    `pydantic-ai`): the suite's runs on that framework's agents. `demo claims`: the security
    evaluation; `demo conversation`: refunds with simulated customers.

    Exit 0 when the demo ran (v1 failing is the point), 2 when it could not.
    """
    if context.invoked_subcommand is not None:
        return
    implementation("trailcheck.commands.demo_impl:demo_command", DemoRequest)(request)
