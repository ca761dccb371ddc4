"""``trailcheck demo pitwall``: the Pit Wall's seed story, v1 of the results tool against v2.

The options; what the command does is in :mod:`trailcheck.commands.demo_pitwall_impl`, imported
when it runs.
"""

from pathlib import Path
from typing import Annotated, Final

import typer

__all__ = ["pitwall_demo_command"]

DEMO_K: Final = 3
""":data:`trailcheck.demo.pitwall.showcase.DEMO_K`, the default of ``-k``."""


def pitwall_demo_command(
    out: Annotated[Path, typer.Option(help="Folder for the reports and their HTML.")] = Path(
        ".trailcheck"
    )
    / "demo-pitwall",
    k: Annotated[int, typer.Option("-k", min=1, help="Trials per case.")] = DEMO_K,
    framework: Annotated[
        str,
        typer.Option(
            help="native: trailcheck's own tool loop; adk: the same brain as a Google ADK agent"
            " traced by OpenTelemetry (needs the 'adk' extra).",
        ),
    ] = "native",
) -> None:
    """The Pit Wall F1 agent on v1 of get_race_results (the fastest lap dropped) and on v2,
    over the ``pitwall`` and ``pitwall-guardrails`` datasets, offline: v1 fails the winner case
    on groundedness alone, naming the sentence no tool supported; v2 passes every case.

    Exit 0 when the demo ran (v1 failing is the point), 2 when it could not.
    """
    from trailcheck.commands.demo_pitwall_impl import pitwall_demo_command as body

    body(out=out, k=k, framework=framework)
