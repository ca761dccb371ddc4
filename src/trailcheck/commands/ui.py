"""``trailcheck ui``: the web UI over a store (traces, findings and clusters, the review queue,
run reports), until interrupted.

Listening is ``trailcheck serve``'s rule: loopback by default, and any other address needs a
token (``--token`` or ``$TRAILCHECK_SERVE_TOKEN``, read-write; or ``--read-token`` or
``$TRAILCHECK_READ_TOKEN``, read-only), checked before the store is opened (exit 2
otherwise). The options, declared once in :class:`UiRequest`; what the command does is in
:mod:`trailcheck.commands.ui_impl`, imported when it runs, with the ``serve`` extra: without
it, one line says so. At length: ``docs/ui.md``.
"""

from pathlib import Path
from typing import Annotated, Final, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation
from trailcheck.commands.options import DbOption
from trailcheck.extras import needs_extra

__all__ = ["UiRequest", "ui_command"]

TOKEN_ENV: Final = "TRAILCHECK_SERVE_TOKEN"
READ_TOKEN_ENV: Final = "TRAILCHECK_READ_TOKEN"
DEFAULT_PORT: Final = 8765


class UiRequest(NamedTuple):
    """What ``trailcheck ui`` was asked."""

    db: DbOption = None
    host: Annotated[
        str,
        typer.Option(
            metavar="HOST", help="The address to listen on; beyond loopback needs `--token`."
        ),
    ] = "127.0.0.1"
    port: Annotated[
        int, typer.Option(min=0, max=65535, metavar="PORT", help="The port to listen on.")
    ] = DEFAULT_PORT
    token: Annotated[
        str | None,
        typer.Option(
            envvar=TOKEN_ENV,
            show_envvar=True,
            show_default=False,
            metavar="TOKEN",
            help="The read-write token: browse, review and act (a bearer header, or sign in).",
        ),
    ] = None
    read_token: Annotated[
        str | None,
        typer.Option(
            envvar=READ_TOKEN_ENV,
            show_envvar=True,
            show_default=False,
            metavar="TOKEN",
            help="A read-only token: browse every page, change nothing.",
        ),
    ] = None
    dataset: Annotated[
        Path,
        typer.Option(
            "--dataset",
            metavar="FILE",
            help="The dataset file promotion adds to and the review queue decides in.",
        ),
    ] = Path("candidates.yaml")
    runs: Annotated[
        Path | None,
        typer.Option(
            "--runs",
            metavar="DIR",
            help="A folder of run reports (`NAME.json` of `trailcheck run`).",
        ),
    ] = None
    reviewer: Annotated[
        str | None,
        typer.Option(
            "--reviewer",
            metavar="NAME",
            help="The name the review forms start with (default: `$USER`).",
        ),
    ] = None


@command(UiRequest)
def ui_command(request: UiRequest) -> None:
    """Browse and triage the store in a browser: traces, findings and clusters, review, runs."""
    with needs_extra("serve", "trailcheck ui"):
        body = implementation("trailcheck.commands.ui_impl:ui_command", UiRequest)
    body(request)
