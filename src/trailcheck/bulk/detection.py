"""``trailcheck detect`` over every core: the parent reads the store a page at a time (one query
each, :meth:`~trailcheck.store.Store.content_pages`) and hands each page's stored JSON to a worker,
which decodes each trace (``Trace.model_validate_json``) and runs the rules
(:func:`~trailcheck.loop.detect`). Findings come back in trace order, then rule order, as one
process gives them; the parent writes them.

Workers never open the store: one reader keeps the store's order and its connections in one
process (a PostgreSQL connection must not cross a fork), and a page of text is cheap to send.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from trailcheck.bulk.pool import MapChunks, ordered_map
from trailcheck.loop.detect import detect
from trailcheck.loop.rule_file import Rule
from trailcheck.trace import Finding, Trace
from trailcheck.trace.content_gap import GapTally

__all__ = ["detect_pages"]

# The rules a worker runs: set once per worker (and once in process, with one worker).
_rules: list[Rule] = []


def _use_rules(rules: Sequence[Rule]) -> None:
    _rules[:] = rules


def _detect_page(page: Sequence[str]) -> tuple[list[Finding], Counter[str]]:
    gaps = GapTally()
    findings = list(detect(map(Trace.model_validate_json, page), _rules, gaps))
    return findings, gaps.by_fix


def detect_pages(
    pages: Iterable[Sequence[str]],
    rules: Sequence[Rule],
    gaps: GapTally,
    *,
    workers: int,
    map_chunks: MapChunks = ordered_map,
) -> Iterator[Finding]:
    """The findings of ``rules`` on the traces of ``pages`` (stored trailcheck JSON), as
    :func:`~trailcheck.loop.detect` gives them, over ``workers`` processes (or what
    ``map_chunks`` runs them on: Ray's tasks, say); traces with a content gap are counted in
    ``gaps``."""
    results = map_chunks(
        _detect_page, pages, workers=workers, initializer=_use_rules, initargs=(tuple(rules),)
    )
    for findings, by_fix in results:
        gaps.by_fix.update(by_fix)
        yield from findings
