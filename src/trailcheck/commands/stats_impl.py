"""What ``trailcheck stats`` does (its options: :mod:`trailcheck.commands.stats`): outcomes read
from recorded traces, grouped by task, counted into pass@k and pass^k. It reads any format
trailcheck imports; statistics over part of the input would mislead, so a rejection is an input
error (exit 2)."""

from __future__ import annotations

from trailcheck.bulk import default_workers
from trailcheck.bulk.outcomes import trial_outcomes
from trailcheck.commands.import_summary import print_rejections
from trailcheck.commands.output import print_json, stdout
from trailcheck.commands.stats import StatsRequest
from trailcheck.errors import InputError
from trailcheck.importing.formats import reads_as_trailcheck
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.report.stats_view import render_stats, stats_json
from trailcheck.run.recorded import group_outcomes, outcomes_from_traces
from trailcheck.run.stats import summarize_outcomes

__all__ = ["stats_command"]


def stats_command(request: StatsRequest) -> None:
    """The body of :func:`trailcheck.commands.stats.stats_command`. Files that are all
    trailcheck JSONL are read over every core, with the same counts."""
    sources, format_name = request.sources, request.format_name
    task_key, outcome_key, threshold = request.task_key, request.outcome_key, request.threshold
    summary = ImportSummary()
    if all(reads_as_trailcheck(source, format_name) for source in sources):
        trials = trial_outcomes(
            sources,
            summary,
            task_key=task_key,
            outcome_key=outcome_key,
            threshold=threshold,
            workers=default_workers(),
        )
        outcomes = group_outcomes(trials)
    else:
        traces = iter_import(sources, format_name=format_name, summary=summary)
        outcomes = outcomes_from_traces(
            traces, task_key=task_key, outcome_key=outcome_key, threshold=threshold
        )
    print_rejections(summary.rejections)
    if summary.rejections:
        raise InputError(
            f"{len(summary.rejections)} record(s) rejected; statistics over part of the input would"
            " mislead"
        )
    if not outcomes:
        raise InputError("no traces read: nothing to count")
    result = summarize_outcomes(outcomes, k=request.k, seed=request.seed)
    if request.as_json:
        print_json(stats_json(result))
    else:
        stdout.print(render_stats(result))
