"""The ``trailcheck`` command. Each command parses options, calls the library, renders, and maps
the outcome to an exit code: 0 success, 1 data processed but something failed, 2 usage or input
error. Errors trailcheck reports on purpose print as one line, without a traceback.

Typer reads every command's signature at each start, ``--help`` and ``--version`` included, so
this module and the signature modules under :mod:`trailcheck.commands` import only typer, the
standard library and :mod:`trailcheck.commands.options`; each command imports what it does (its
``*_impl`` module: the importers, the store, the runner, ...) when it runs, and
``tests/test_cli_startup.py`` pins that. They also leave out ``from __future__ import
annotations``: typer would evaluate every annotation string again at each start.
"""

import sys
from typing import Annotated

import typer

from trailcheck.commands.audit import audit_command
from trailcheck.commands.dataset import dataset_app
from trailcheck.commands.demo import demo_app
from trailcheck.commands.import_ import import_command
from trailcheck.commands.judge import judge_app
from trailcheck.commands.loop import (
    clusters_command,
    detect_command,
    promote_command,
    review_command,
)
from trailcheck.commands.pending import pending_app
from trailcheck.commands.report import report_command
from trailcheck.commands.route import route_app
from trailcheck.commands.run import run_command
from trailcheck.commands.schema import schema_app
from trailcheck.commands.score import score_command
from trailcheck.commands.serve import serve_command
from trailcheck.commands.stats import stats_command
from trailcheck.commands.store_commands import (
    ingest_command,
    label_command,
    note_command,
    notes_command,
)
from trailcheck.commands.traces import traces_app
from trailcheck.commands.ui import ui_command
from trailcheck.errors import EXIT_USAGE, TrailcheckError

app = typer.Typer(
    name="trailcheck",
    help="Traces in, graded golden cases out: make tool-using agents trustworthy.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(traces_app, name="traces")
app.command("import")(import_command)
app.add_typer(schema_app, name="schema")
app.add_typer(judge_app, name="judge")


def _version(value: bool) -> None:
    if value:
        from trailcheck import __version__

        print(f"trailcheck {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """trailcheck: traces in, graded golden cases out."""


app.command("score")(score_command)
app.command("stats")(stats_command)
app.command("run")(run_command)
app.command("report")(report_command)
app.add_typer(demo_app, name="demo")
app.command("audit")(audit_command)
app.add_typer(dataset_app, name="dataset")
app.command("ingest")(ingest_command)
app.command("note")(note_command)
app.command("notes")(notes_command)
app.command("label")(label_command)
app.command("detect")(detect_command)
app.command("clusters")(clusters_command)
app.command("promote")(promote_command)
app.command("review")(review_command)
app.command("serve")(serve_command)
app.command("ui")(ui_command)
app.add_typer(pending_app, name="pending")
app.add_typer(route_app, name="route")


def _print_error(message: str, style: str | None = None) -> None:
    # Imported here: rich's console is not needed on the way to a successful --version.
    from trailcheck.commands.output import stderr

    stderr.print(message, style=style, markup=False)


def run_cli(argv: list[str] | None = None) -> int:
    """Run the CLI on ``argv`` and return its exit code (the console script exits with it)."""
    try:
        # Outside standalone mode typer returns the code of a typer.Exit instead of exiting.
        outcome = app(args=argv, prog_name="trailcheck", standalone_mode=False)
    except typer.Exit as done:
        return done.exit_code
    except typer.Abort:
        _print_error("aborted", style="red")
        return EXIT_USAGE
    except typer.TyperException as problem:
        # Usage errors: a bad option, a missing argument.
        _print_error(f"error: {problem.format_message()} (see 'trailcheck --help')")
        return problem.exit_code
    except TrailcheckError as error:
        _print_error(f"error: {error}", style="bold red")
        return error.exit_code
    return outcome if isinstance(outcome, int) else 0


def main() -> None:
    """Console entry point."""
    sys.exit(run_cli())
