"""What ``trailcheck score`` does (its options: :mod:`trailcheck.commands.score`): traces
recorded elsewhere, or the store's, graded against the cases they name.

It reads any format trailcheck imports (``--format`` or detected) and lists what it rejected.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from trailcheck.bulk import default_workers
from trailcheck.bulk.grading import Unmatched, grade_files, grade_pages
from trailcheck.bulk.pool import MapChunks, ordered_map
from trailcheck.cases import Case, Dataset, load_dataset
from trailcheck.commands.executor_options import Executor, executor_kind
from trailcheck.commands.import_summary import MAX_LISTED_REJECTIONS, counted, print_rejections
from trailcheck.commands.output import print_json, stderr, stdout
from trailcheck.commands.score import ScoreRequest
from trailcheck.commands.store_commands_impl import open_store, parse_trace_filter
from trailcheck.commands.telemetry import emit, emit_target
from trailcheck.errors import EXIT_FAILED, EXIT_USAGE, InputError, UsageError
from trailcheck.extras import needs_extra
from trailcheck.importing.formats import reads_as_trailcheck
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.report.otel_results import EvaluationResult, grade_results
from trailcheck.scorers import Attribution, Grade, Scorer, case_scorers, grade
from trailcheck.store import Store, TraceFilter
from trailcheck.telemetry.otlp_http import OtlpTarget
from trailcheck.terminal_text import shown
from trailcheck.trace import Trace
from trailcheck.trace.session import session_traces

__all__ = ["score_command"]


def _cases_with_scorers(dataset: Dataset) -> dict[str, tuple[Case, tuple[Scorer, ...]]]:
    """Each case by id, with the scorers it runs (its own, else the dataset's), built once."""
    return {case.id: (case, case_scorers(case)) for case in dataset.graded_cases()}


def _grade_json(result: Grade) -> dict[str, object]:
    return {
        "trace_id": result.trace_id,
        "case_id": result.case_id,
        "passed": result.passed,
        "status": result.status,
        "reason": result.reason,
        "scores": [
            {
                "scorer": score.scorer,
                "value": score.value,
                "passed": score.passed,
                "threshold": score.threshold,
                "reason": score.reason,
            }
            for score in result.scores
        ],
        "failures": [
            {"scorer": f.scorer, "error_type": f.error_type, "message": f.message}
            for f in result.failures
        ],
        "attribution": _attribution_json(result.attribution),
    }


def _attribution_json(found: Attribution | None) -> dict[str, object] | None:
    """Where a failed grade began going wrong (docs/attribution.md); ``None`` when it passed,
    or when no rule places its failure."""
    if found is None:
        return None
    return {
        "span_id": found.span_id,
        "step": found.step,
        "name": found.name,
        "category": found.category,
        "evidence": found.evidence,
        "symptom_span_id": found.symptom_span_id,
    }


def _grade_table(results: Sequence[Grade]) -> Table:
    table = Table("trace", "case", "status", "scores", "reason", "began at")
    styles = {"passed": "green", "failed": "red", "unscorable": "yellow"}
    for result in results:
        scores = " ".join(
            f"{score.scorer} {score.value:.2f}{'' if score.passed else '!'}"
            for score in result.scores
        )
        table.add_row(
            result.trace_id,
            result.case_id,
            f"[{styles[result.status]}]{result.status}[/]",
            scores,
            result.reason,
            _began_at(result.attribution),
        )
    return table


def _began_at(found: Attribution | None) -> Text:
    """``step 2 search_orders (tool_returned_wrong_data)``, or nothing; the span's name comes
    from the trace, so it is shown as text, never as markup or terminal codes."""
    if found is None:
        return Text()
    return Text(shown(f"step {found.step} {found.name} ({found.category})"))


@dataclass
class _Graded:
    results: Sequence[Grade] = field(default_factory=list)
    evaluations: list[EvaluationResult] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


def _grade_traces(
    traces: Iterable[Trace | ValueError],
    cases: dict[str, tuple[Case, tuple[Scorer, ...]]],
    target: OtlpTarget | None,
) -> _Graded:
    """Each trace graded against the case it names; those naming none, and sessions that could
    not be merged, listed as unmatched."""
    graded = _Graded()
    results: list[Grade] = []
    for trace in traces:
        if isinstance(trace, ValueError):
            graded.unmatched.append(str(trace))
            continue
        case_id = trace.metadata.get("case_id")
        if not isinstance(case_id, str) or case_id not in cases:
            graded.unmatched.append(f"{trace.trace_id} (case_id {case_id!r})")
            continue
        case, scorers = cases[case_id]
        results.append(grade(trace, case, scorers))
        if target is not None:
            graded.evaluations += grade_results(trace, results[-1])
    graded.results = results
    return graded


def score_command(request: ScoreRequest) -> None:
    """The body of :func:`trailcheck.commands.score.score_command`. Trailcheck JSONL files
    (one input, however many shards) and the store are graded over
    ``--workers`` processes (default: every core), with the same results in the same order;
    other formats, sessions and ``--emit-otel`` are graded in this process."""
    target = emit_target(request.emit_otel, request.emit_otel_header)
    where = executor_kind(request.executor, request.address, request.num_cpus)
    traces, format_name = request.traces or [], request.format_name
    if traces and request.db is not None:
        raise UsageError("score trace files or the store (--db), not both")
    if not traces and format_name is not None:
        raise UsageError("--format names the format of trace files; the store holds traces")
    chosen = parse_trace_filter(
        label=request.label,
        tool=request.tool,
        session=request.session,
        since=request.since,
        until=request.until,
    )
    if traces and chosen.narrows:
        raise UsageError(
            "--since, --until, --label, --tool and --session choose among the store's traces"
        )
    cases = _cases_with_scorers(load_dataset(request.dataset))
    summary = ImportSummary()
    with ExitStack() as closing:
        store = None if traces else closing.enter_context(open_store(request.db, must_exist=True))
        source = _Source(traces, store, chosen, request.dataset, summary)
        if _in_process(where, request.by_session or target is not None, traces, format_name):
            imported = (
                store.iter_traces(chosen)
                if store is not None
                else iter_import(traces, format_name=format_name, summary=summary)
            )
            graded = _grade_traces(
                session_traces(imported) if request.by_session else imported, cases, target
            )
        else:
            graded = _Graded(unmatched=[])
            bulk: list[Grade] = []
            for item in _bulk_grades(
                source, request.workers, where, request.address, request.num_cpus
            ):
                if isinstance(item, Unmatched):
                    graded.unmatched.append(str(item))
                else:
                    bulk.append(item)
            graded.results = bulk
        if store is not None and not graded.results and not graded.unmatched:
            which = "matching traces" if chosen.narrows else "traces"
            raise InputError(f"the store at {store.url} holds no {which}: nothing to grade")
    _print_grades(graded, summary, request.dataset, target, as_json=request.as_json)


def _print_grades(
    graded: _Graded,
    summary: ImportSummary,
    dataset: Path,
    target: OtlpTarget | None,
    *,
    as_json: bool,
) -> None:
    """The grades, rejections and unmatched traces printed; the scores sent; the exit code."""
    results = graded.results
    if as_json:
        print_json([_grade_json(result) for result in results])
    else:
        stdout.print(_grade_table(results))
    print_rejections(summary.rejections)
    if graded.unmatched:
        shown = ", ".join(graded.unmatched[:MAX_LISTED_REJECTIONS])
        hidden = len(graded.unmatched) - MAX_LISTED_REJECTIONS
        shown += f" and {hidden} more" if hidden > 0 else ""
        stderr.print(f"no case in {dataset} for: {shown}", style="red", markup=False)
    passed = sum(result.passed for result in results)
    if results or not (summary.rejections or graded.unmatched):
        stderr.print(f"{passed}/{len(results)} traces passed", markup=False)
    else:
        nothing = _nothing_scored(len(summary.rejections), len(graded.unmatched))
        stderr.print(nothing, style="red", markup=False)
    if target is not None:
        emit(graded.evaluations, target, stderr)
    if summary.rejections or graded.unmatched:
        raise typer.Exit(EXIT_USAGE)
    if passed < len(results):
        raise typer.Exit(EXIT_FAILED)


def _nothing_scored(rejected: int, unmatched: int) -> str:
    """Why no trace was graded, when none was: each was rejected or names no case."""
    if not unmatched:
        return f"nothing scored: every trace was rejected ({counted(rejected, 'rejected record')})"
    named = counted(unmatched, "trace")
    if not rejected:
        return f"nothing scored: no trace names a case in the dataset ({named})"
    return f"nothing scored: {counted(rejected, 'record')} rejected, {named} naming no case"


def _in_process(
    where: Executor, whole_traces: bool, traces: list[Path], format_name: str | None
) -> bool:
    """Whether the traces are graded in this process (other formats, sessions, the scores sent
    as telemetry), not on the bulk path; Ray runs only the bulk path."""
    in_process = whole_traces or not all(reads_as_trailcheck(path, format_name) for path in traces)
    if in_process and where == "ray":
        raise UsageError(
            "--executor ray grades trailcheck JSONL or the store, without --by-session or"
            " --emit-otel"
        )
    return in_process


@dataclass(frozen=True)
class _Source:
    """What is graded (trace files, or the store's traces: those ``chosen`` of ``store``),
    against which dataset, and where the files' rejections are counted."""

    files: list[Path]
    store: Store | None
    chosen: TraceFilter
    dataset: Path
    summary: ImportSummary

    def grades(self, workers: int, map_chunks: MapChunks) -> Iterator[Grade | Unmatched]:
        """The bulk path's grades, the chunks run by ``map_chunks``. This process reads the
        store, when it is the source; the workers get its pages."""
        if self.store is not None:
            pages = self.store.content_pages(self.chosen)
            return grade_pages(pages, self.dataset, workers=workers, map_chunks=map_chunks)
        return grade_files(
            self.files, self.dataset, self.summary, workers=workers, map_chunks=map_chunks
        )


def _bulk_grades(
    source: _Source,
    workers: int | None,
    where: Executor,
    address: str | None,
    num_cpus: float | None,
) -> Iterator[Grade | Unmatched]:
    """The bulk path's grades: over this machine's processes, or as Ray tasks."""
    if where == "local":
        yield from source.grades(workers or default_workers(), ordered_map)
        return
    with needs_extra("ray", "trailcheck score --executor ray"):
        from trailcheck.distributed import cluster_workers, ray_ordered_map, ray_session
    task_cpus = 1.0 if num_cpus is None else num_cpus
    with ray_session(address):
        tasks = partial(ray_ordered_map, num_cpus=task_cpus)
        yield from source.grades(workers or cluster_workers(task_cpus), tasks)
