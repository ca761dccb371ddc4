"""``trailcheck detect --executor ray``: each page of the store a Ray task doing what a worker
process of :func:`~trailcheck.bulk.detection.detect_pages` does (the bulk path with
:func:`~trailcheck.distributed.ordered.ray_ordered_map` as its ``map_chunks``), so the findings
are the local path's, in the same order. The command's process reads the store and writes the
findings; the tasks get each page's stored JSON and never open the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import partial

from trailcheck.bulk.detection import detect_pages
from trailcheck.distributed.ordered import ray_ordered_map
from trailcheck.loop.rule_file import Rule
from trailcheck.trace import Finding
from trailcheck.trace.content_gap import GapTally

__all__ = ["detect_pages_on_ray"]


def detect_pages_on_ray(
    pages: Iterable[Sequence[str]],
    rules: Sequence[Rule],
    gaps: GapTally,
    *,
    workers: int,
    num_cpus: float = 1.0,
) -> Iterator[Finding]:
    """:func:`~trailcheck.bulk.detection.detect_pages`, each page a Ray task asking for
    ``num_cpus`` CPUs, ``workers`` at once."""
    return detect_pages(
        pages,
        rules,
        gaps,
        workers=workers,
        map_chunks=partial(ray_ordered_map, num_cpus=num_cpus),
    )
