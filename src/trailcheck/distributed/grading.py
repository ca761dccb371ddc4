"""``trailcheck score --executor ray``: trailcheck JSONL graded in chunks, or the store's traces
a page at a time, each chunk or page a Ray task doing what a worker process of
:func:`~trailcheck.bulk.grading.grade_files` or :func:`~trailcheck.bulk.grading.grade_pages` does
(the bulk path with :func:`~trailcheck.distributed.ordered.ray_ordered_map` as its
``map_chunks``), so the grades, rejections and counts are the local path's, in the same order.

Workers read their chunks from the files by name, so on a cluster the files must be at the same
path on every node (shared storage); a local Ray's workers share the driver's directory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path

from trailcheck.bulk.chunks import DEFAULT_CHUNK_BYTES
from trailcheck.bulk.grading import Unmatched, grade_files, grade_pages
from trailcheck.distributed.ordered import ray_ordered_map
from trailcheck.ingest.importer import ImportSummary
from trailcheck.scorers import LeanGrade

__all__ = ["grade_files_on_ray", "grade_pages_on_ray"]


def grade_files_on_ray(
    paths: Sequence[Path],
    dataset: Path,
    summary: ImportSummary,
    *,
    workers: int,
    num_cpus: float = 1.0,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> Iterator[LeanGrade | Unmatched]:
    """:func:`~trailcheck.bulk.grading.grade_files`, the chunks graded as Ray tasks,
    ``workers`` at once, each asking for ``num_cpus`` CPUs."""
    return grade_files(
        paths,
        dataset,
        summary,
        workers=workers,
        chunk_bytes=chunk_bytes,
        map_chunks=partial(ray_ordered_map, num_cpus=num_cpus),
    )


def grade_pages_on_ray(
    pages: Iterable[Sequence[str]],
    dataset: Path,
    *,
    workers: int,
    num_cpus: float = 1.0,
) -> Iterator[LeanGrade | Unmatched]:
    """:func:`~trailcheck.bulk.grading.grade_pages`, each page a Ray task asking for
    ``num_cpus`` CPUs, ``workers`` at once; this process reads the store."""
    return grade_pages(
        pages, dataset, workers=workers, map_chunks=partial(ray_ordered_map, num_cpus=num_cpus)
    )
