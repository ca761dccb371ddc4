"""Drafting with the scripted model: drafts are made, the reference path rejects what cannot be
reached (saying why), and a draft enters the dataset's tests only once a named person approves
it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.drafting.scenarios import (
    HAPPY,
    OUT_OF_SCHEMA,
    POLICY,
    RATE_LIMITED,
    REFUSED,
    scripted_answers,
)
from trailcheck.cases import Case, Dataset, load_dataset, release_cases
from trailcheck.demo.support import enforced_shop
from trailcheck.drafting import (
    DraftOutcome,
    add_drafts,
    draft_cases,
    parse_policy,
)
from trailcheck.errors import InfraError, UsageError
from trailcheck.loop import approve, edit_proposals, reject
from trailcheck.models import declare_tools
from trailcheck.testing import ScriptedModel, scripted_drafter

CLAUSES = parse_policy(POLICY)
TOOLS = declare_tools(enforced_shop().tools)


def _draft(answers: dict[str, Any], **settings: Any) -> DraftOutcome:
    model = scripted_drafter(answers)
    return draft_cases(model, CLAUSES, TOOLS, **settings)


def _by_id(outcome: DraftOutcome) -> dict[str, Case]:
    return {case.id: case for case in outcome.cases}


@pytest.fixture(scope="module")
def replayed() -> DraftOutcome:
    return _draft(scripted_answers(), environment_factory=enforced_shop)


def test_each_scenario_becomes_a_synthetic_candidate_with_its_clause(
    replayed: DraftOutcome,
) -> None:
    assert replayed.problems == ()
    cases = _by_id(replayed)
    assert list(cases) == [
        "refunds-1-happy-path",
        "refunds-1-missing-identity-check",
        "refunds-1-missing-identity-check-2",
        "lookups-1-rate-limit-retry",
    ]
    happy = cases["refunds-1-happy-path"]
    assert happy.review_status == "candidate"
    assert happy.reviewed_by is None
    assert happy.input == HAPPY["input"]
    assert happy.metadata["source"] == "synthetic"
    assert happy.metadata["scenario"] == "happy_path"
    assert happy.metadata["policy_clause"] == {
        "id": "refunds.1",
        "text": "Verify the customer's identity before any refund.",
    }
    # The expectations are proposals no scorer reads until a reviewer adopts them.
    assert happy.expected_tools is None
    assert happy.metadata["proposed"]["expected_tools"] == [  # type: ignore[index,call-overload]
        "verify_identity",
        "check_refund_policy",
        "issue_refund",
    ]
    assert happy.metadata["reference_path"] == {"status": "passed", "reasons": []}


def test_a_draft_whose_calls_and_state_cannot_be_reached_is_rejected_with_why(
    replayed: DraftOutcome,
) -> None:
    cases = _by_id(replayed)
    unreachable = cases["refunds-1-missing-identity-check"]
    assert unreachable.review_status == "rejected"
    path = unreachable.metadata["reference_path"]
    assert isinstance(path, dict)
    assert path["status"] == "failed"
    reasons = path["reasons"]
    assert isinstance(reasons, list)
    assert reasons[0].startswith(  # type: ignore[union-attr]
        "issue_refund raised: ToolError: identity not verified for order A-1001"
    )
    assert any("state:" in str(reason) and "refunds[0]" in str(reason) for reason in reasons)
    assert unreachable.notes is not None
    assert "rejected by the reference path: issue_refund raised" in unreachable.notes
    # Refusing without verification is reachable: no refund, and the lookup succeeds.
    refused = cases["refunds-1-missing-identity-check-2"]
    assert refused.review_status == "candidate"
    assert refused.input == REFUSED["input"]


def test_an_error_the_draft_sets_up_itself_is_not_a_failure(replayed: DraftOutcome) -> None:
    retry = _by_id(replayed)["lookups-1-rate-limit-retry"]
    assert retry.metadata["reference_path"] == {"status": "passed", "reasons": []}
    assert retry.faults[0].error == RATE_LIMITED["faults"][0]["error"]
    # In the same trial, an error the draft did not set up is its own failure.
    calls = [
        {"tool": "lookup_order", "arguments": {"order_id": "A-1002"}},
        {"tool": "lookup_order", "arguments": {"order_id": "A-9999"}},
    ]
    wrong = {**RATE_LIMITED, "expected_calls": calls}
    (case,) = _draft({"lookups.1": [wrong]}, environment_factory=enforced_shop).cases
    assert case.review_status == "rejected"
    path = case.metadata["reference_path"]
    assert isinstance(path, dict)
    assert path["reasons"] == [
        "lookup_order raised: ToolError: no order A-9999: check the id with the customer, or"
        " search by their email"
    ]


def test_schemas_are_checked_without_an_environment() -> None:
    outcome = _draft({"refunds.2": [OUT_OF_SCHEMA, HAPPY]})
    bad, good = outcome.cases
    assert bad.review_status == "rejected"
    path = bad.metadata["reference_path"]
    assert isinstance(path, dict)
    assert path["status"] == "failed"
    assert path["reasons"] == [
        "unknown tool 'refund_everything' (declared: check_refund_policy, issue_refund,"
        " lookup_order, reschedule_delivery, search_orders, verify_identity)",
        "expected_arguments[1] (issue_refund): $: 'reason' is required",
        "expected_arguments[1] (issue_refund): $.amount: expected number, not string",
    ]
    assert good.metadata["reference_path"] == {"status": "schema_only", "reasons": []}


def test_bad_model_output_is_reported_per_clause_and_drafting_goes_on() -> None:
    outcome = _draft(
        {
            "refunds.1": "I am sorry, I cannot help with that.",
            "refunds.2": [{**HAPPY, "scenario": "alien_invasion"}],
            "lookups.1": [RATE_LIMITED],
        },
    )
    assert [case.id for case in outcome.cases] == ["lookups-1-rate-limit-retry"]
    first, second = outcome.problems
    assert first.startswith("clause refunds.1: no valid answer after 2 attempts: the answer is not")
    assert second.startswith("clause refunds.2: no valid answer after 2 attempts: the answer does")
    assert "drafts.0.scenario" in second


def test_a_scenario_kind_not_asked_for_is_a_problem() -> None:
    outcome = _draft({"lookups.1": [RATE_LIMITED]}, kinds=["happy_path"])
    assert outcome.cases == ()
    (problem,) = outcome.problems
    assert problem.endswith("scenarios of kinds not asked for: rate_limit_retry")


def test_a_draft_enters_the_dataset_only_once_a_named_reviewer_approves_it(
    replayed: DraftOutcome, tmp_path: Path
) -> None:
    path = tmp_path / "drafts.yaml"
    written = add_drafts(path, replayed.cases)
    assert written.name == "drafts"
    assert release_cases(written) == []  # candidates and rejected drafts are no release tests
    with pytest.raises(UsageError, match="reviewer"):
        approve(written, "refunds-1-happy-path", reviewer="")
    approved = approve(written, "refunds-1-happy-path", reviewer="ana")
    (golden,) = release_cases(approved)
    assert (golden.id, golden.reviewed_by) == ("refunds-1-happy-path", "ana")
    assert golden.expected_tools == ["verify_identity", "check_refund_policy", "issue_refund"]
    assert golden.expected_state == {"refunds": [{"order_id": "A-1001", "amount": 129.0}]}
    assert golden.metadata["source"] == "synthetic"  # where it came from stays with it
    # A draft the reference path rejected cannot be approved, edited or not.
    with pytest.raises(UsageError, match="reference path failed \\(issue_refund raised"):
        approve(approved, "refunds-1-missing-identity-check", reviewer="ana")
    edited = edit_proposals(
        approved, "refunds-1-missing-identity-check", "expected_tools: [lookup_order]\n"
    )
    with pytest.raises(UsageError, match="reference path failed"):
        approve(edited, "refunds-1-missing-identity-check", reviewer="ana")
    # Rejecting a candidate is a person's decision too.
    rejected = reject(approved, "lookups-1-rate-limit-retry", reviewer="bo", reason="dull")
    assert rejected.cases[-1].review_status == "rejected"
    assert add_drafts(path, []).version == written.version  # the file is what was written


def test_editing_a_draft_that_passed_marks_its_reference_path_edited(
    replayed: DraftOutcome,
) -> None:
    dataset = Dataset(name="d", cases=list(replayed.cases))
    edited = edit_proposals(dataset, "refunds-1-happy-path", "expected_tools: [verify_identity]\n")
    case = next(case for case in edited.cases if case.id == "refunds-1-happy-path")
    assert case.metadata["reference_path"] == {"status": "edited", "reasons": []}
    assert approve(edited, case.id, reviewer="ana").cases[0].review_status == "approved"


def test_draft_ids_avoid_those_already_there(tmp_path: Path) -> None:
    first = _draft({"lookups.1": [RATE_LIMITED]})
    path = tmp_path / "drafts.yaml"
    add_drafts(path, first.cases)
    existing = load_dataset(path).cases
    again = _draft({"lookups.1": [RATE_LIMITED]}, existing=existing)
    assert [case.id for case in again.cases] == ["lookups-1-rate-limit-retry-2"]
    with pytest.raises(UsageError, match="already has case\\(s\\) lookups-1-rate-limit-retry"):
        add_drafts(path, first.cases)


def test_a_model_that_cannot_be_reached_is_a_problem_per_clause() -> None:
    def unreachable(*_: object) -> str:
        raise InfraError("model 'm' at http://x: HTTP 503 after 4 attempts: busy")

    outcome = draft_cases(ScriptedModel(unreachable), CLAUSES[:1], TOOLS)
    assert outcome.cases == ()
    assert outcome.problems == (
        "clause refunds.1: the drafting model failed: model 'm' at http://x: HTTP 503 after 4"
        " attempts: busy",
    )
