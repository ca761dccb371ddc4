"""``trailcheck demo pitwall``: the Pit Wall's seed story, v1 of the results tool against v2.

The options, declared once in :class:`PitwallDemoRequest`; what the command does is in
:mod:`trailcheck.commands.demo_pitwall_impl`, imported when it runs.
"""

from pathlib import Path
from typing import Annotated, Final, Literal, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation

__all__ = ["PitwallDemoRequest", "PitwallFramework", "pitwall_demo_command"]

DEMO_K: Final = 3
""":data:`trailcheck.demo.pitwall.showcase.DEMO_K`, the default of ``-k``."""

PitwallFramework = Literal["native", "adk"]
""":data:`trailcheck.demo.pitwall.showcase.Framework`."""


class PitwallDemoRequest(NamedTuple):
    """What ``trailcheck demo pitwall`` was asked."""

    out: Annotated[
        Path,
        typer.Option(
            metavar="DIR",
            help="The folder for the reports and their HTML.",
        ),
    ] = Path(".trailcheck") / "demo-pitwall"
    k: Annotated[int, typer.Option("-k", min=1, metavar="N", help="Trials per case.")] = DEMO_K
    framework: Annotated[
        PitwallFramework,
        typer.Option(
            help="native: trailcheck's own tool loop; adk: a Google ADK agent (the `adk` extra).",
        ),
    ] = "native"


@command(PitwallDemoRequest)
def pitwall_demo_command(request: PitwallDemoRequest) -> None:
    """The Pit Wall F1 agent on v1 of `get_race_results` (the fastest lap dropped) and on v2,
    over the `pitwall` and `pitwall-guardrails` datasets, offline: v1 fails the winner case
    on groundedness alone, naming the sentence no tool supported; v2 passes every case.

    Exit 0 when the demo ran (v1 failing is the point), 2 when it could not.
    """
    implementation(
        "trailcheck.commands.demo_pitwall_impl:pitwall_demo_command", PitwallDemoRequest
    )(request)
