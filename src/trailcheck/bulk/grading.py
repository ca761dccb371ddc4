"""``trailcheck score`` over every core: each worker loads the dataset once and grades the traces
of its chunks on the lean path (:func:`~trailcheck.scorers.grade_lean`), returning each
:class:`~trailcheck.scorers.LeanGrade` (or, for a trace that names no case, why)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from trailcheck.bulk.chunks import DEFAULT_CHUNK_BYTES
from trailcheck.bulk.lean_files import lean_files_results
from trailcheck.bulk.pool import MapChunks, ordered_map
from trailcheck.cases import Case, load_dataset
from trailcheck.ingest.importer import ImportSummary
from trailcheck.scorers import LeanGrade, Scorer, case_scorers, grade_lean
from trailcheck.trace.lean import LeanTrace

__all__ = ["Unmatched", "grade_files"]

# The cases of the dataset a worker grades against, by id, with their scorers: loaded once per
# worker (and once in process, when there is one worker).
_cases: dict[str, tuple[Case, tuple[Scorer, ...]]] = {}


class Unmatched(str):
    """A trace that names no case of the dataset: its id and the case id it names."""


def _load_cases(dataset: str) -> None:
    _cases.clear()
    _cases.update(
        (case.id, (case, case_scorers(case))) for case in load_dataset(Path(dataset)).graded_cases()
    )


def _grade(trace: LeanTrace) -> LeanGrade | Unmatched:
    case_id = trace.metadata.get("case_id")
    if not isinstance(case_id, str) or case_id not in _cases:
        return Unmatched(f"{trace.trace_id} (case_id {case_id!r})")
    case, scorers = _cases[case_id]
    return grade_lean(trace, case, scorers)


def grade_files(
    paths: Sequence[Path],
    dataset: Path,
    summary: ImportSummary,
    *,
    workers: int,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    map_chunks: MapChunks = ordered_map,
) -> Iterator[LeanGrade | Unmatched]:
    """The grade of each trace of the trailcheck JSONL files ``paths`` (shards, one after the
    other; a trace id is taken once across them) against the case it names in ``dataset``, in
    order; rejected lines go to ``summary``. ``map_chunks``: see
    :func:`~trailcheck.bulk.lean_files.lean_files_results`."""
    yield from lean_files_results(
        paths,
        _grade,
        summary,
        workers=workers,
        initializer=_load_cases,
        initargs=(str(dataset),),
        chunk_bytes=chunk_bytes,
        map_chunks=map_chunks,
    )
