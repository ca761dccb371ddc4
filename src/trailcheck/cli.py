"""The ``trailcheck`` command. Each command parses options, calls the library, renders, and maps
the outcome to an exit code: 0 success, 1 data processed but something failed, 2 usage or input
error. Errors trailcheck reports on purpose print as one line, without a traceback.

Typer reads every command's signature at each start, ``--help`` and ``--version`` included, so
this module and the signature modules under :mod:`trailcheck.commands` import only typer, the
standard library, :mod:`trailcheck.commands.options` and :mod:`trailcheck.commands.declare`;
each command imports what it does (its ``*_impl`` module: the importers, the store, the runner,
...) when it runs, and ``tests/test_cli_startup.py`` pins that. They also leave out ``from
__future__ import annotations``: typer would evaluate every annotation string again at each
start.

Each command declares its options once, as the fields of its request
(:mod:`trailcheck.commands.declare`), with help in markdown; ``trailcheck --help`` lists the
commands in the panels below.
"""

import sys
from typing import Annotated, Final

import typer

from trailcheck.commands.audit import audit_command
from trailcheck.commands.components import components_command
from trailcheck.commands.dataset import dataset_app
from trailcheck.commands.declare import Command, new_app
from trailcheck.commands.demo import demo_app
from trailcheck.commands.import_ import import_command
from trailcheck.commands.judge import judge_app
from trailcheck.commands.loop import (
    clusters_command,
    detect_command,
    promote_command,
    review_command,
)
from trailcheck.commands.online import online_app
from trailcheck.commands.pending import pending_app
from trailcheck.commands.report import report_command
from trailcheck.commands.route import route_app
from trailcheck.commands.run import run_command
from trailcheck.commands.schema import schema_app
from trailcheck.commands.score import score_command
from trailcheck.commands.serve import serve_command
from trailcheck.commands.stats import stats_command
from trailcheck.commands.store import store_app
from trailcheck.commands.store_commands import (
    ingest_command,
    label_command,
    note_command,
    notes_command,
)
from trailcheck.commands.traces import traces_app
from trailcheck.commands.ui import ui_command
from trailcheck.errors import EXIT_USAGE, TrailcheckError

IMPORT_AND_READ: Final = "Import and read traces"
RUN_AND_GRADE: Final = "Run and grade"
IMPROVEMENT_LOOP: Final = "Improvement loop"
SERVE_AND_UI: Final = "Serve and UI"
DATASETS: Final = "Datasets"
DEMOS_AND_ROUTING: Final = "Demos and routing"

app = new_app(
    "Traces in, graded golden cases out: make tool-using agents trustworthy.",
    name="trailcheck",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


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


# Each command in its panel of `trailcheck --help`; typer lists the commands before the groups,
# each in the order registered, and a panel where its first command or group comes.
for name, function, panel in (
    ("import", import_command, IMPORT_AND_READ),
    ("run", run_command, RUN_AND_GRADE),
    ("score", score_command, RUN_AND_GRADE),
    ("stats", stats_command, RUN_AND_GRADE),
    ("report", report_command, RUN_AND_GRADE),
    ("audit", audit_command, RUN_AND_GRADE),
    ("ingest", ingest_command, IMPROVEMENT_LOOP),
    ("detect", detect_command, IMPROVEMENT_LOOP),
    ("clusters", clusters_command, IMPROVEMENT_LOOP),
    ("promote", promote_command, IMPROVEMENT_LOOP),
    ("review", review_command, IMPROVEMENT_LOOP),
    ("note", note_command, IMPROVEMENT_LOOP),
    ("notes", notes_command, IMPROVEMENT_LOOP),
    ("label", label_command, IMPROVEMENT_LOOP),
    ("serve", serve_command, SERVE_AND_UI),
    ("ui", ui_command, SERVE_AND_UI),
    ("components", components_command, SERVE_AND_UI),
):
    app.command(name, cls=Command, rich_help_panel=panel)(function)
for name, group, panel in (
    ("traces", traces_app, IMPORT_AND_READ),
    ("schema", schema_app, IMPORT_AND_READ),
    ("judge", judge_app, RUN_AND_GRADE),
    ("pending", pending_app, SERVE_AND_UI),
    ("store", store_app, SERVE_AND_UI),
    ("online", online_app, SERVE_AND_UI),
    ("dataset", dataset_app, DATASETS),
    ("demo", demo_app, DEMOS_AND_ROUTING),
    ("route", route_app, DEMOS_AND_ROUTING),
):
    app.add_typer(group, name=name, rich_help_panel=panel)


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
