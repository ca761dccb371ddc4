"""What a dataset's cases say about the traces they came from (``source_trace_ids``): which of
them a prune must keep, and the flag a case carries once a source of it was deleted on request.

A candidate or approved case keeps its sources (a reviewer reads them; a regression case is
explained by them); a rejected case needs them no more. A case whose source was deleted keeps
its own copy of what it took from the trace (redacted when it was promoted, :mod:`.promote`)
and its ``source_trace_ids``; ``metadata.source_traces_deleted`` lists those deleted, so a
reviewer knows that ``trailcheck review`` can no longer show them.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from trailcheck.cases import Dataset

__all__ = ["DELETED_SOURCES_KEY", "flag_deleted_sources", "kept_sources"]

DELETED_SOURCES_KEY: Final = "source_traces_deleted"
_KEEPING_STATUSES: Final = frozenset({"candidate", "approved"})


def kept_sources(dataset: Dataset) -> set[str]:
    """The source traces of the dataset's candidate and approved cases."""
    return {
        trace_id
        for case in dataset.cases
        if case.review_status in _KEEPING_STATUSES
        for trace_id in case.source_trace_ids
    }


def flag_deleted_sources(dataset: Dataset, deleted: Collection[str]) -> tuple[Dataset, list[str]]:
    """The dataset with each case citing a trace of ``deleted`` flagged (see the module), and
    the ids of the cases flagged anew; the dataset itself when none was."""
    flagged: list[str] = []
    cases = []
    for case in dataset.cases:
        gone = set(case.source_trace_ids) & set(deleted)
        already = case.metadata.get(DELETED_SOURCES_KEY)
        known = {str(trace_id) for trace_id in already} if isinstance(already, list) else set()
        if gone - known:
            flagged.append(case.id)
            metadata = {**case.metadata, DELETED_SOURCES_KEY: sorted(known | gone)}
            case = case.model_copy(update={"metadata": metadata})
        cases.append(case)
    if not flagged:
        return dataset, []
    return dataset.model_copy(update={"cases": cases}), flagged
