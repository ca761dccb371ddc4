"""``trailcheck route eval``: the pre-LLM gate measured on labelled queries.

The options, declared once in :class:`RouteEvalRequest`; what the command does is in
:mod:`trailcheck.commands.route_impl`, imported when it runs. At length: ``docs/routing.md``.
"""

from pathlib import Path
from typing import Annotated, Literal, NamedTuple

import typer

from trailcheck.commands.declare import Command, command, implementation, new_app
from trailcheck.extras import needs_extra

__all__ = ["RouteEvalRequest", "RouteScorer", "route_app"]

RouteScorer = Literal["tfidf", "bm25"]
""":data:`trailcheck.route.ScorerName`."""

route_app = new_app("The pre-LLM gate: routing, retrieval, guards.", no_args_is_help=True)


class RouteEvalRequest(NamedTuple):
    """What ``trailcheck route eval`` was asked."""

    catalog: Annotated[
        Path, typer.Option("--catalog", metavar="FILE", help="The tool catalog (a JSON list).")
    ]
    taxonomy: Annotated[
        Path,
        typer.Option("--taxonomy", metavar="FILE", help="The capabilities (a JSON object)."),
    ]
    train: Annotated[
        Path,
        typer.Option(
            "--train", metavar="FILE", help="The router's training examples, `{text, label}`."
        ),
    ]
    queries: Annotated[
        Path, typer.Option("--queries", metavar="FILE", help="Labelled queries (a JSON list).")
    ]
    k: Annotated[int, typer.Option("--k", min=1, metavar="N", help="Capabilities retrieved.")] = 2
    scorer: Annotated[
        RouteScorer, typer.Option("--scorer", help="How capabilities are retrieved.")
    ] = "tfidf"
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False
    out: Annotated[
        Path | None, typer.Option("--out", metavar="FILE", help="Also write the JSON here.")
    ] = None
    fail_on_incorrect: Annotated[
        bool, typer.Option("--fail-on-incorrect", help="Exit 1 on any wrong execution.")
    ] = False


@route_app.command("eval", cls=Command)
@command(RouteEvalRequest)
def eval_command(request: RouteEvalRequest) -> None:
    """Route labelled queries through the gate and measure it."""
    with needs_extra("route", "trailcheck route eval"):
        body = implementation("trailcheck.commands.route_impl:eval_command", RouteEvalRequest)
    body(request)
