"""``trailcheck demo online``: support traffic whose refund-without-identity rate jumps halfway
through, scored online, with the alerts that fire on the second half only.

The options, declared once in :class:`DemoOnlineRequest`; what the command does is in
:mod:`trailcheck.commands.demo_online_impl`, imported when it runs.
"""

from typing import Annotated, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation

__all__ = ["DemoOnlineRequest", "demo_online_command"]


class DemoOnlineRequest(NamedTuple):
    """What ``trailcheck demo online`` was asked."""

    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="URL",
            help="The store the traffic goes into (default: a new one in a temporary folder,"
            " removed afterwards). Must hold no traces yet.",
        ),
    ] = None
    traces: Annotated[
        int, typer.Option(min=800, metavar="N", help="Traces of traffic, over 8 hours.")
    ] = 4_000
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False


@command(DemoOnlineRequest)
def demo_online_command(request: DemoOnlineRequest) -> None:
    """Ingest 8 hours of support traffic, score it online (a rule on 25%, a scripted judge on
    5%) and check the hourly alerts.

    Exit 0 when the alerts fired on the second half's windows only, 1 otherwise.
    """
    implementation("trailcheck.commands.demo_online_impl:demo_online_command", DemoOnlineRequest)(
        request
    )
