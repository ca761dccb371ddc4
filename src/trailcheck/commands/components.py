"""``trailcheck components``: per tool, sub-agent, retriever and model, its calls, success rate
with its interval, error kinds, latency p50 and p95, and its trend per window; from the store's
span scores, or from trace files scored on the fly.

The options, declared once in :class:`ComponentsRequest`; what the command does is in
:mod:`trailcheck.commands.components_impl`, imported when it runs. What the scores are:
``docs/components.md``.
"""

from pathlib import Path
from typing import Annotated, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation
from trailcheck.commands.options import DbOption, FormatOption, JsonOption

__all__ = ["ComponentsRequest", "components_command"]


class ComponentsRequest(NamedTuple):
    """What ``trailcheck components`` was asked."""

    traces: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="TRACES",
            help="Trace files, in any format trailcheck reads, scored now; none: the store's.",
            show_default=False,
        ),
    ] = None
    db: DbOption = None
    since: Annotated[
        str | None,
        typer.Option(
            metavar="WHEN",
            help="Count calls that started since then: a duration ago (`7d`) or an ISO time.",
        ),
    ] = None
    window: Annotated[
        str | None,
        typer.Option(metavar="DURATION", help="Also count by windows of this length (`1d`)."),
    ] = None
    dataset: Annotated[
        Path | None,
        typer.Option(
            "--dataset",
            "-d",
            metavar="FILE",
            help="With trace files: the cases they name, for recall@k and declared tools.",
        ),
    ] = None
    level: Annotated[
        float,
        typer.Option(min=0.5, max=0.999, metavar="LEVEL", help="The intervals' confidence level."),
    ] = 0.95
    backfill: Annotated[
        bool,
        typer.Option(
            "--backfill", help="First score the stored traces that have no span scores yet."
        ),
    ] = False
    as_json: JsonOption = False
    format_name: FormatOption = None


@command(ComponentsRequest)
def components_command(request: ComponentsRequest) -> None:
    """Each component's calls, success rate with its 95% interval, error kinds, latency and trend.

    Components are the tools, sub-agents, retrievers and models of the traces' spans
    (docs/components.md). Exit 0 when shown; 2 on a bad option, file or store.
    """
    implementation("trailcheck.commands.components_impl:components_command", ComponentsRequest)(
        request
    )
