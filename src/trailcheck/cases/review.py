"""Review status: which cases are release tests, and how many cases are in each status."""

from __future__ import annotations

from collections.abc import Iterable
from typing import get_args

from trailcheck.cases.case import Case, ReviewStatus
from trailcheck.cases.dataset import Dataset

REVIEW_STATUSES: tuple[ReviewStatus, ...] = get_args(ReviewStatus)


def release_cases(dataset: Dataset) -> list[Case]:
    """The approved cases, in dataset order: only these run as release tests."""
    return [case for case in dataset.cases if case.review_status == "approved"]


def status_counts(cases: Dataset | Iterable[Case]) -> dict[ReviewStatus, int]:
    """How many cases have each status, every status present (0 included), in review order."""
    counts = dict.fromkeys(REVIEW_STATUSES, 0)
    for case in cases.cases if isinstance(cases, Dataset) else cases:
        counts[case.review_status] += 1
    return counts
