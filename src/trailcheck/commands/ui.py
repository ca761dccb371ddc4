"""``trailcheck ui``: the web UI over a store (traces, findings and clusters, the review queue,
run reports), until interrupted.

Listening is ``trailcheck serve``'s rule: loopback by default, and any other address needs a
token (``--token`` or ``$TRAILCHECK_SERVE_TOKEN``), checked before the store is opened (exit 2
otherwise). The options; what the command does is in :mod:`trailcheck.commands.ui_impl`,
imported when it runs, with the ``serve`` extra: without it, one line says so.
"""

import os
from pathlib import Path
from typing import Annotated, Final

import typer

from trailcheck.commands.options import DbOption
from trailcheck.extras import needs_extra

__all__ = ["ui_command"]

TOKEN_ENV: Final = "TRAILCHECK_SERVE_TOKEN"
DEFAULT_PORT: Final = 8765


def ui_command(
    db: DbOption = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on; beyond loopback needs --token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port.")] = DEFAULT_PORT,
    token: Annotated[
        str | None,
        typer.Option(
            envvar=TOKEN_ENV,
            show_envvar=True,
            show_default=False,
            help="Token every request must carry (a bearer header, or the sign-in cookie).",
        ),
    ] = None,
    dataset: Annotated[
        Path,
        typer.Option(
            "--dataset", help="The dataset file promotion adds to and the review queue decides in."
        ),
    ] = Path("candidates.yaml"),
    runs: Annotated[
        Path | None,
        typer.Option("--runs", help="A folder of run reports (NAME.json from trailcheck run)."),
    ] = None,
    reviewer: Annotated[
        str | None,
        typer.Option("--reviewer", help="The name the review forms start with (default: $USER)."),
    ] = None,
) -> None:
    """Browse and triage the store in a browser: traces, findings and clusters, review, runs."""
    with needs_extra("serve", "trailcheck ui"):
        from trailcheck.commands.ui_impl import ui_command as body

    body(
        db=db,
        host=host,
        port=port,
        token=token,
        dataset=dataset,
        runs=runs,
        reviewer=reviewer if reviewer is not None else os.environ.get("USER", ""),
    )
