"""The shipped ``support`` dataset: it loads clean, is approved, and covers what it promises."""

from __future__ import annotations

from collections import Counter
from importlib.resources import files

from trailcheck.cases import awkward_kinds, load_dataset, release_cases
from trailcheck.demo.support import SupportShop, support_dataset

# The dataset's version is the hash of its content: a change to any case is a new version,
# and this pin makes it a deliberate one.
VERSION = "support@0d4ef1ef1646"


def test_it_loads_from_the_package_and_from_the_file_the_same() -> None:
    dataset = support_dataset()
    resource = files("trailcheck.demo.support") / "support.yaml"
    assert resource.is_file()
    assert load_dataset(str(resource)) == dataset
    assert dataset.name == "support"
    assert dataset.version == VERSION
    assert support_dataset().version == VERSION


def test_every_case_is_approved_with_a_reviewer_and_names_what_it_guards() -> None:
    dataset = support_dataset()
    assert len(dataset.cases) >= 10
    assert len(release_cases(dataset)) == len(dataset.cases)
    for case in dataset.cases:
        assert case.review_status == "approved", case.id
        assert case.reviewed_by, case.id
        assert case.failure_modes, case.id
        assert case.notes, case.id


def test_splits_hold_nine_regression_and_eight_holdout_cases() -> None:
    splits = Counter(case.split for case in support_dataset().cases)
    assert splits == {"regression": 9, "holdout": 8}


def test_the_declared_tools_are_the_shops() -> None:
    dataset = support_dataset()
    assert dataset.tools == [tool.__name__ for tool in SupportShop().tools]


def test_it_covers_the_situations_the_reference_domain_promises() -> None:
    cases = {case.id: case for case in support_dataset().cases}
    # A conversation of several user turns.
    multi_turn = cases["multi-turn-refund"].input
    assert isinstance(multi_turn, list)
    assert [message.role for message in multi_turn] == ["user", "user"]
    # Faults: an empty result, a partial one, an error for the first call, an error for all.
    faults = {case_id: case.faults for case_id, case in cases.items() if case.faults}
    assert faults["search-empty-result"][0].result == {
        "customer_email": "jonas.berg@example.com",
        "orders": [],
        "page": 1,
        "next_page": None,
    }
    assert faults["partial-lookup-no-date"][0].replaces_result
    assert faults["rate-limited-lookup"][0].first == 1
    assert faults["lookup-outage-no-loop"][0].first is None
    assert faults["refund-failed-no-claim"][0].tool == "issue_refund"
    # The exact date of the reschedule, and a read-only question that may write nothing.
    [reschedule] = cases["reschedule-friday"].expected_arguments
    assert reschedule.tool == "reschedule_delivery"
    assert reschedule.arguments["new_date"].model_dump(mode="json", by_alias=True) == {
        "$compare": "date",
        "value": "2026-06-19",
        "day_first": False,
    }
    read_only = cases["read-only-status"]
    assert read_only.expected_state == {"refunds": [], "reschedules": [], "verifications": []}
    assert {p.tool for p in read_only.policies} == {"issue_refund", "reschedule_delivery"}
    # Refusals: no refund may be in the state.
    for case_id in ("refund-outside-window", "gift-card-refund", "refund-other-customers-order"):
        assert cases[case_id].expected_state is not None
        assert cases[case_id].expected_state["refunds"] == [], case_id
    # Awkward results: a correct result of each kind, and the kinds in the order of the cases.
    awkward = {
        case_id: awkward_kinds(case.faults) for case_id, case in cases.items() if case.faults
    }
    assert {case_id: kinds for case_id, kinds in awkward.items() if kinds} == {
        "search-empty-result": ["empty_list"],
        "latest-order-paginated": ["paginated"],
        "refund-policy-reads-like-error": ["reads_like_error"],
        "latest-order-near-match": ["partial_match"],
        "stale-delivery-estimate": ["stale"],
    }
    # The next page is a plain result: only the first page is the awkward one.
    first_page, rest = cases["latest-order-paginated"].faults
    assert (first_page.first, first_page.awkward, rest.first, rest.awkward) == (
        1,
        "paginated",
        None,
        None,
    )
