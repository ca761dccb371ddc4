"""Review and splits: approving adopts proposals and changes the version; groups never straddle
regression and holdout."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trailcheck.cases import Case, Dataset
from trailcheck.errors import InputError, UsageError
from trailcheck.loop import (
    approve,
    assign_splits,
    edit_proposals,
    proposals_text,
    reject,
    straddling_groups,
)
from trailcheck.loop.splits import split_groups

PROPOSED = {
    "expected_tools": ["verify_identity", "issue_refund"],
    "expected_arguments": [{"tool": "issue_refund", "arguments": {"order_id": "A-1"}}],
}


def _dataset(**metadata: object) -> Dataset:
    case = Case.model_validate(
        {
            "id": "c1",
            "input": "Refund A-1",
            "failure_modes": ["refund_without_identity_check"],
            "metadata": {"proposed": PROPOSED, **metadata},
        }
    )
    return Dataset(name="d", cases=[case])


def test_approve_adopts_proposals_records_reviewer_and_changes_version() -> None:
    dataset = _dataset()
    approved = approve(dataset, "c1", reviewer="ana")
    case = approved.cases[0]
    assert case.review_status == "approved"
    assert case.reviewed_by == "ana"
    assert case.expected_tools == ["verify_identity", "issue_refund"]
    assert case.expected_arguments[0].tool == "issue_refund"
    assert "proposed" not in case.metadata
    assert approved.version != dataset.version


def test_approve_refuses_nothing_to_check_and_unknown_ids() -> None:
    empty = Dataset(name="d", cases=[Case(id="c1", input="x")])
    with pytest.raises(UsageError, match="no expectations"):
        approve(empty, "c1", reviewer="ana")
    with pytest.raises(UsageError, match="has no case 'nope'; candidates: c1"):
        approve(empty, "nope", reviewer="ana")
    with pytest.raises(UsageError, match="reviewer"):
        approve(_dataset(), "c1", reviewer=" ")


def test_reject_keeps_the_case_with_its_reason() -> None:
    rejected = reject(_dataset(), "c1", reviewer="bo", reason="not a real failure")
    case = rejected.cases[0]
    assert case.review_status == "rejected"
    assert case.reviewed_by == "bo"
    assert case.notes == "rejected by bo: not a real failure"
    assert case.expected_tools is None


def test_editing_proposals_then_approving() -> None:
    text = proposals_text(_dataset().cases[0])
    assert "verify_identity" in text
    edited = edit_proposals(
        _dataset(), "c1", "expected_tools: [verify_identity, issue_refund]\nexpected_arguments:\n"
    )
    assert edited.cases[0].metadata["proposed"] == {
        "expected_tools": ["verify_identity", "issue_refund"]
    }
    assert approve(edited, "c1", reviewer="ana").cases[0].expected_arguments == []
    with pytest.raises(InputError, match="may set"):
        edit_proposals(_dataset(), "c1", "rubrics: [x]\n")
    with pytest.raises(UsageError, match="expected_tools"):
        edit_proposals(_dataset(), "c1", "expected_tools: 3\n")


def _case(index: int, cluster: str | None, user: str | None, status: str = "candidate") -> Case:
    metadata = {key: value for key, value in (("cluster_id", cluster), ("user", user)) if value}
    data: dict[str, object] = {"id": f"c{index}", "input": "x", "metadata": metadata}
    if status != "candidate":
        data |= {"review_status": status, "reviewed_by": "ana", "expected_tools": []}
    return Case.model_validate(data)


def test_a_reviewed_case_pins_its_group() -> None:
    pinned = _case(0, "k1", None, "approved").model_copy(update={"split": "holdout"})
    cases = [pinned, _case(1, "k1", "u1"), _case(2, None, "u1"), _case(3, None, None)]
    assigned = assign_splits(cases)
    assert [c.split for c in assigned[:3]] == ["holdout", "holdout", "holdout"]
    assert straddling_groups(assigned) == []
    assert split_groups(assigned) == [[0, 1, 2], [3]]


groups = st.lists(
    st.tuples(st.sampled_from([None, "k1", "k2", "k3"]), st.sampled_from([None, "u1", "u2"])),
    min_size=1,
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(groups, st.floats(0.0, 1.0))
def test_candidates_never_straddle_and_order_does_not_matter(
    keys: list[tuple[str | None, str | None]], fraction: float
) -> None:
    cases = [_case(i, cluster, user) for i, (cluster, user) in enumerate(keys)]
    assigned = assign_splits(cases, holdout_fraction=fraction)
    assert straddling_groups(assigned) == []
    reversed_assigned = assign_splits(list(reversed(cases)), holdout_fraction=fraction)
    assert {c.id: c.split for c in reversed_assigned} == {c.id: c.split for c in assigned}
    everything = assign_splits(cases, holdout_fraction=1.0)
    assert {c.split for c in everything} == {"holdout"}
