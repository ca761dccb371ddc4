"""``trailcheck score --executor ray``: trailcheck JSONL graded in chunks, each chunk a Ray task
doing what a worker process of :func:`~trailcheck.bulk.grading.grade_files` does (the bulk path
with :func:`~trailcheck.distributed.ordered.ray_ordered_map` as its ``map_chunks``), so the
grades, rejections and counts are the local path's, in the same order.

Workers read their chunks from the files by name, so on a cluster the files must be at the same
path on every node (shared storage); a local Ray's workers share the driver's directory.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path

from trailcheck.bulk.chunks import DEFAULT_CHUNK_BYTES
from trailcheck.bulk.grading import Unmatched, grade_files
from trailcheck.distributed.ordered import ray_ordered_map
from trailcheck.importing.importer import ImportSummary
from trailcheck.scorers import Grade

__all__ = ["grade_files_on_ray"]


def grade_files_on_ray(
    paths: Sequence[Path],
    dataset: Path,
    summary: ImportSummary,
    *,
    workers: int,
    num_cpus: float = 1.0,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> Iterator[Grade | Unmatched]:
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
