"""The ``trailcheck`` command. Each command parses options, calls the library, renders, and maps
the outcome to an exit code: 0 success, 1 data processed but something failed, 2 usage or input
error. Errors trailcheck reports on purpose print as one line, without a traceback."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Annotated

import typer

from trailcheck import __version__
from trailcheck.cases import dataset_json_schema
from trailcheck.commands.audit import audit_command
from trailcheck.commands.dataset import dataset_app
from trailcheck.commands.demo import demo_app
from trailcheck.commands.import_summary import (
    IdsOption,
    KeepIncompleteOption,
    counted,
    hidden_hints,
    incomplete_words,
    read_words,
    rejected_words,
)
from trailcheck.commands.judge import judge_app
from trailcheck.commands.loop import (
    clusters_command,
    detect_command,
    promote_command,
    review_command,
)
from trailcheck.commands.pending import pending_app
from trailcheck.commands.recorded import (
    MAX_LISTED_REJECTIONS,
    FormatOption,
    print_json,
    score_command,
    stats_command,
)
from trailcheck.commands.report import report_command
from trailcheck.commands.route import route_app
from trailcheck.commands.run import run_command, stderr, stdout
from trailcheck.commands.serve import serve_command
from trailcheck.commands.store_commands import (
    DbOption,
    ingest_command,
    label_command,
    note_command,
    notes_command,
    print_gap_warning,
    show_stored_trace,
    traces_list_command,
    traces_sessions_command,
)
from trailcheck.errors import InputError, TrailcheckError, UsageError
from trailcheck.ingest.importer import ImportSummary, capture_warnings, iter_import
from trailcheck.ingest.trailcheck_jsonl import dump_trace, trace_json_schema
from trailcheck.report import render_trace
from trailcheck.run.results import report_json_schema

EXIT_FAILED = 1
EXIT_USAGE = 2

app = typer.Typer(
    name="trailcheck",
    help="Traces in, graded golden cases out: make tool-using agents trustworthy.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
traces_app = typer.Typer(help="Read traces.", no_args_is_help=True)
schema_app = typer.Typer(help="Print the published JSON Schemas.", no_args_is_help=True)
app.add_typer(traces_app, name="traces")
app.add_typer(schema_app, name="schema")
app.add_typer(judge_app, name="judge")


def _version(value: bool) -> None:
    if value:
        print(f"trailcheck {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """trailcheck: traces in, graded golden cases out."""


@contextmanager
def _atomic_output(out: Path) -> Iterator[IO[bytes]]:
    """A temporary file beside ``out`` that replaces it only when the block succeeds."""
    if out.is_dir():
        raise UsageError(f"{out}: is a directory; name the output file")
    directory = out.parent if str(out.parent) else Path(".")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, temp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise UsageError(f"{out}: cannot write: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as stream:
            yield stream
        os.replace(temp_name, out)
    finally:
        if os.path.exists(temp_name):
            os.unlink(temp_name)


class _DiscardOutputError(Exception):
    """Raised inside the output block to discard it under --strict."""


def _print_summary(summary: ImportSummary, out: str, *, written: bool) -> None:
    for rejection in summary.rejections[:MAX_LISTED_REJECTIONS]:
        stderr.print(f"rejected: {rejection}", style="red", markup=False)
    hidden = len(summary.rejections) - MAX_LISTED_REJECTIONS
    if hidden > 0:
        stderr.print(f"... and {hidden} more rejected records", style="red")
    for hint in hidden_hints(summary.rejections, MAX_LISTED_REJECTIONS):
        stderr.print(hint, style="red", markup=False)
    target = f"written to {out}" if written else f"nothing written to {out} (--strict)"
    stderr.print(
        f"{read_words(summary)} → {counted(summary.imported, 'trace')} imported,"
        f" {rejected_words(summary)}{incomplete_words(summary)}; {target}",
        markup=False,
    )
    for line in capture_warnings(summary):
        stderr.print(line, style="yellow", markup=False, highlight=False)


@app.command("import")
def import_command(
    sources: Annotated[list[Path], typer.Argument(help="Trace files to import.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output trailcheck JSONL file ('-' for stdout).")
    ],
    format_name: FormatOption = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Write nothing when any record is rejected.")
    ] = False,
    ids: IdsOption = "hex",
    keep_incomplete: KeepIncompleteOption = False,
) -> None:
    """Import traces from other formats into trailcheck JSONL.

    Bad records are rejected (each named with its file, line and field) and the rest are
    imported; exit 1 when any record was rejected.
    """

    summary = ImportSummary()
    traces = iter_import(
        sources,
        format_name=format_name,
        summary=summary,
        ids=ids,
        keep_incomplete=keep_incomplete,
    )
    if str(out) == "-":
        written = True
        if strict:
            # Under --strict nothing may reach stdout before every record has been read.
            lines: Iterable[bytes] = [dump_trace(trace) for trace in traces]
            written = summary.ok
        else:
            lines = map(dump_trace, traces)
        for line in lines if written else ():
            sys.stdout.buffer.write(line + b"\n")
        sys.stdout.buffer.flush()
        _print_summary(summary, "stdout", written=written)
    else:
        try:
            with _atomic_output(out) as stream:
                for trace in traces:
                    stream.write(dump_trace(trace) + b"\n")
                if strict and not summary.ok:
                    raise _DiscardOutputError
            written = True
        except _DiscardOutputError:
            written = False
        _print_summary(summary, str(out), written=written)
    if not summary.ok:
        raise typer.Exit(EXIT_FAILED)


@traces_app.command("show")
def traces_show(
    target: Annotated[
        str,
        typer.Argument(
            help="A trace file, in any format trailcheck reads, or the id of a stored trace."
        ),
    ],
    trace_id: Annotated[
        str | None, typer.Option("--id", help="The trace of the file to show (default: the first).")
    ] = None,
    format_name: FormatOption = None,
    full: Annotated[bool, typer.Option("--full", help="Show long values in full.")] = False,
    db: DbOption = None,
) -> None:
    """Show one trace: its span tree with timings, tool calls, errors and final output.

    TARGET is a file (then --id picks its trace), else the id of a trace in the store, shown
    with its findings and notes.
    """
    source = Path(target)
    if trace_id is None and format_name is None and not source.exists():
        show_stored_trace(target, db, full=full)
        return
    summary = ImportSummary()
    for trace in iter_import([source], format_name=format_name, summary=summary):
        if trace_id is None or trace.trace_id == trace_id:
            stdout.print(render_trace(trace, full=full))
            print_gap_warning(trace)
            return
    rejected = [r for r in summary.rejections if trace_id is None or r.trace_id == trace_id]
    if rejected:
        raise InputError(f"{source}: no readable trace to show; first problem: {rejected[0]}")
    wanted = f"trace {trace_id!r}" if trace_id else "a trace"
    raise UsageError(f"{source}: has no {wanted} ({summary.imported} readable traces)")


@schema_app.command("trace")
def schema_trace() -> None:
    """The JSON Schema of one line of trailcheck JSONL."""
    print_json(trace_json_schema())


@schema_app.command("dataset")
def schema_dataset() -> None:
    """The JSON Schema of a dataset file (YAML or JSON)."""
    print_json(dataset_json_schema())


@schema_app.command("report")
def schema_report() -> None:
    """The JSON Schema of a run report (trailcheck run's NAME.json)."""
    print_json(report_json_schema())


app.command("score")(score_command)
app.command("stats")(stats_command)
app.command("run")(run_command)
app.command("report")(report_command)
app.add_typer(demo_app, name="demo")
app.command("audit")(audit_command)
app.add_typer(dataset_app, name="dataset")
app.command("ingest")(ingest_command)
traces_app.command("list")(traces_list_command)
traces_app.command("sessions")(traces_sessions_command)
app.command("note")(note_command)
app.command("notes")(notes_command)
app.command("label")(label_command)
app.command("detect")(detect_command)
app.command("clusters")(clusters_command)
app.command("promote")(promote_command)
app.command("review")(review_command)
app.command("serve")(serve_command)
app.add_typer(pending_app, name="pending")
app.add_typer(route_app, name="route")


def run_cli(argv: list[str] | None = None) -> int:
    """Run the CLI on ``argv`` and return its exit code (the console script exits with it)."""
    try:
        # Outside standalone mode typer returns the code of a typer.Exit instead of exiting.
        outcome = app(args=argv, prog_name="trailcheck", standalone_mode=False)
    except typer.Exit as done:
        return done.exit_code
    except typer.Abort:
        stderr.print("aborted", style="red")
        return EXIT_USAGE
    except typer.TyperException as problem:
        # Usage errors: a bad option, a missing argument.
        stderr.print(f"error: {problem.format_message()} (see 'trailcheck --help')", markup=False)
        return problem.exit_code
    except TrailcheckError as error:
        stderr.print(f"error: {error}", style="bold red", markup=False)
        return error.exit_code
    return outcome if isinstance(outcome, int) else 0


def main() -> None:
    """Console entry point."""
    sys.exit(run_cli())
