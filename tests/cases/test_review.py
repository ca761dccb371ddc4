"""Only approved cases are release tests; reports count every status."""

from __future__ import annotations

from pathlib import Path

from trailcheck.cases import (
    REVIEW_STATUSES,
    Case,
    Dataset,
    load_dataset,
    release_cases,
    status_counts,
)


def test_release_cases_are_the_approved_ones_in_dataset_order(fixtures: Path) -> None:
    dataset = load_dataset(fixtures / "datasets" / "support_shop.yaml")
    assert [case.id for case in release_cases(dataset)] == [
        "refund-damaged-item",
        "reschedule-delivery",
    ]


def test_status_counts_name_every_status(fixtures: Path) -> None:
    dataset = load_dataset(fixtures / "datasets" / "support_shop.yaml")
    assert status_counts(dataset) == {"candidate": 1, "approved": 2, "rejected": 1}
    assert list(status_counts(dataset)) == list(REVIEW_STATUSES)
    assert status_counts(release_cases(dataset)) == {"candidate": 0, "approved": 2, "rejected": 0}


def test_an_empty_dataset_has_no_release_tests() -> None:
    dataset = Dataset(name="empty")
    assert release_cases(dataset) == []
    assert status_counts(dataset) == {"candidate": 0, "approved": 0, "rejected": 0}


def test_counts_of_the_cases_that_ran() -> None:
    ran = [
        Case(id="a", input="x", review_status="approved", reviewed_by="ana"),
        Case(id="b", input="y"),
        Case(id="c", input="z"),
    ]
    assert status_counts(ran) == {"candidate": 2, "approved": 1, "rejected": 0}
    assert status_counts(iter(ran)) == status_counts(ran)
