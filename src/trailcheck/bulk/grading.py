"""``trailcheck score`` over every core: each worker loads the dataset once and grades the traces
of its chunks (:func:`~trailcheck.scorers.grade`), returning each
:class:`~trailcheck.scorers.Grade` (or, for a trace that names no case, why).

A chunk is whole lines of a trailcheck JSONL file (:func:`grade_files`), or a page of the
store's stored JSON (:func:`grade_pages`: the parent reads the store, as ``detect`` does, and
the workers never open it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from trailcheck.bulk.chunks import DEFAULT_CHUNK_BYTES
from trailcheck.bulk.pool import MapChunks, ordered_map
from trailcheck.bulk.trace_files import trace_files_results
from trailcheck.cases import Case, load_dataset
from trailcheck.importing.importer import ImportSummary
from trailcheck.scorers import Grade, Scorer, case_scorers, grade
from trailcheck.trace import Trace

__all__ = ["Unmatched", "grade_files", "grade_pages"]

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


def _grade(trace: Trace) -> Grade | Unmatched:
    case_id = trace.metadata.get("case_id")
    if not isinstance(case_id, str) or case_id not in _cases:
        return Unmatched(f"{trace.trace_id} (case_id {case_id!r})")
    case, scorers = _cases[case_id]
    return grade(trace, case, scorers)


def grade_files(
    paths: Sequence[Path],
    dataset: Path,
    summary: ImportSummary,
    *,
    workers: int,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    map_chunks: MapChunks = ordered_map,
) -> Iterator[Grade | Unmatched]:
    """The grade of each trace of the trailcheck JSONL (or Parquet) files ``paths`` (shards,
    one after the other; a trace id is taken once across them) against the case it names in
    ``dataset``, in order; rejected lines go to ``summary``. ``map_chunks``: see
    :func:`~trailcheck.bulk.trace_files.trace_files_results`."""
    yield from trace_files_results(
        paths,
        _grade,
        summary,
        workers=workers,
        initializer=_load_cases,
        initargs=(str(dataset),),
        chunk_bytes=chunk_bytes,
        map_chunks=map_chunks,
    )


def _grade_page(page: Sequence[str]) -> list[Grade | Unmatched]:
    return [_grade(Trace.model_validate_json(stored)) for stored in page]


def grade_pages(
    pages: Iterable[Sequence[str]],
    dataset: Path,
    *,
    workers: int,
    map_chunks: MapChunks = ordered_map,
) -> Iterator[Grade | Unmatched]:
    """The grade of each trace of ``pages`` (the store's stored trailcheck JSON, as
    :meth:`~trailcheck.store.Store.content_pages` gives it) against the case it names in
    ``dataset``, in order, over ``workers`` workers (or what ``map_chunks`` runs them on)."""
    results = map_chunks(
        _grade_page, pages, workers=workers, initializer=_load_cases, initargs=(str(dataset),)
    )
    for graded in results:
        yield from graded
