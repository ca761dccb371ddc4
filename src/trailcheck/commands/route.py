"""``trailcheck route eval``: the pre-LLM gate measured on labelled queries.

The options; what the command does is in :mod:`trailcheck.commands.route_impl`, imported when it
runs.
"""

from pathlib import Path
from typing import Annotated

import typer

from trailcheck.extras import needs_extra

__all__ = ["route_app"]

route_app = typer.Typer(help="The pre-LLM gate: routing, retrieval, guards.", no_args_is_help=True)


@route_app.command("eval")
def eval_command(
    catalog: Annotated[Path, typer.Option("--catalog", help="Tool catalog (JSON list).")],
    taxonomy: Annotated[Path, typer.Option("--taxonomy", help="Capabilities (JSON object).")],
    train: Annotated[Path, typer.Option("--train", help="Router training {text, label}.")],
    queries: Annotated[Path, typer.Option("--queries", help="Labelled queries (JSON list).")],
    k: Annotated[int, typer.Option("--k", min=1, help="Capabilities retrieved.")] = 2,
    scorer: Annotated[str, typer.Option("--scorer", help="tfidf or bm25.")] = "tfidf",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    out: Annotated[Path | None, typer.Option("--out", help="Also write the JSON here.")] = None,
    fail_on_incorrect: Annotated[
        bool, typer.Option("--fail-on-incorrect", help="Exit 1 on any wrong execution.")
    ] = False,
) -> None:
    """Route labelled queries through the gate and measure it."""
    with needs_extra("route", "trailcheck route eval"):
        from trailcheck.commands.route_impl import eval_command as body

    body(
        catalog=catalog,
        taxonomy=taxonomy,
        train=train,
        queries=queries,
        k=k,
        scorer=scorer,
        as_json=as_json,
        out=out,
        fail_on_incorrect=fail_on_incorrect,
    )
