"""``trailcheck stats`` over every core: each worker reads its chunks of trailcheck JSONL on the
path of ``trailcheck score`` and returns each trace's task and outcome
(:func:`~trailcheck.run.recorded.trial_outcome`), in file order; a trace whose task or outcome
cannot be read stops the count with its error, as in one process. The error is returned, not
raised, by the worker: a copy of an earlier trace's id is rejected by the parent, and whatever
its outcome says must not stop the count."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from trailcheck.bulk.chunks import DEFAULT_CHUNK_BYTES
from trailcheck.bulk.trace_files import trace_files_results
from trailcheck.errors import TrailcheckError
from trailcheck.importing.importer import ImportSummary
from trailcheck.run.recorded import trial_outcome
from trailcheck.run.status import TrialStatus
from trailcheck.trace import Trace

__all__ = ["trial_outcomes"]

# ``(task_key, outcome_key, threshold)``: set once per worker (and once in process).
_keys: list[tuple[str, str, float]] = []


def _use_keys(task_key: str, outcome_key: str, threshold: float) -> None:
    _keys[:] = [(task_key, outcome_key, threshold)]


def _outcome(trace: Trace) -> tuple[str, TrialStatus] | TrailcheckError:
    try:
        return trial_outcome(trace, *_keys[0])
    except TrailcheckError as error:
        return error


def trial_outcomes(
    paths: Sequence[Path],
    summary: ImportSummary,
    *,
    task_key: str,
    outcome_key: str,
    threshold: float,
    workers: int,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> Iterator[tuple[str, TrialStatus]]:
    """``(task, status)`` of each trace of the trailcheck JSONL files ``paths``, in order, over
    ``workers`` processes; rejected lines go to ``summary``."""
    outcomes = trace_files_results(
        paths,
        _outcome,
        summary,
        workers=workers,
        initializer=_use_keys,
        initargs=(task_key, outcome_key, threshold),
        chunk_bytes=chunk_bytes,
    )
    for outcome in outcomes:
        if isinstance(outcome, TrailcheckError):
            raise outcome
        yield outcome
