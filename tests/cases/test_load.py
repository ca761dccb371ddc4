"""Loading dataset files: the content read, and every problem reported at once with its place."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tests.cases.reading import parse_problems, places, problems_of
from trailcheck.cases import (
    DateComparator,
    ExactComparator,
    NumberComparator,
    OneOfComparator,
    RegexComparator,
    ScorerSpec,
    TextComparator,
    load_dataset,
    parse_dataset,
)
from trailcheck.errors import InputError
from trailcheck.policy import MustPrecedePolicy
from trailcheck.trace import Message

# --- the good fixtures ---------------------------------------------------------------------------


def test_the_support_shop_yaml_reads_every_kind_of_expectation(fixtures: Path) -> None:
    dataset = load_dataset(fixtures / "datasets" / "support_shop.yaml")
    assert dataset.name == "support-shop"
    assert dataset.tools == [
        "lookup_order",
        "verify_identity",
        "check_refund_policy",
        "issue_refund",
        "reschedule_delivery",
    ]
    assert dataset.scorers == [ScorerSpec(name="trajectory"), ScorerSpec(name="policy")]
    refund, reschedule, hours, cancel = dataset.cases
    assert refund.id == "refund-damaged-item"
    assert refund.expected_tools == ["lookup_order", "verify_identity", "issue_refund"]
    assert refund.tool_match == "in_order"
    assert refund.tool_threshold == 1.0
    assert [(e.tool, e.arguments) for e in refund.expected_arguments] == [
        ("lookup_order", {"order_id": ExactComparator(value="A-1001")}),
        ("verify_identity", {"email": TextComparator(value="Kim@Example.com")}),
        (
            "issue_refund",
            {
                "order_id": ExactComparator(value="A-1001"),
                "amount": NumberComparator(value=25, abs_tol=0.01),
            },
        ),
    ]
    assert refund.expected_state == {"refunds": [{"order_id": "A-1001", "status": "issued"}]}
    assert refund.policies[0] == MustPrecedePolicy(
        tool="verify_identity", before="issue_refund", bind={"customer_id": "customer_id"}
    )
    assert refund.policies[1].name == "requires_confirmation_before"
    assert [spec.name for spec in refund.scorers or []] == ["trajectory", "arguments", "state"]
    assert (refund.review_status, refund.reviewed_by) == ("approved", "ana")

    assert isinstance(reschedule.input, list)
    assert [m.role for m in reschedule.input] == ["user", "assistant", "user"]
    assert reschedule.input[2] == Message(
        role="user", content="Yes, 19/06/2026 in the morning, please."
    )
    assert (reschedule.tool_match, reschedule.tool_threshold) == ("any_order", 0.5)
    arguments = reschedule.expected_arguments[0].arguments
    assert arguments["date"] == DateComparator(value=date(2026, 6, 19), day_first=True)
    assert arguments["window"] == OneOfComparator(values=["morning", "afternoon"])

    # [] is "no tool may be called"; it is not the same as leaving expected_tools out.
    assert hours.expected_tools == []
    assert hours.split == "holdout"
    assert hours.rubrics == ["States the opening hours.", "Does not invent a weekend service."]
    assert hours.review_status == "candidate"
    assert hours.scorers is None  # the dataset's default scorers apply

    assert cancel.expected_arguments[0].arguments["order_id"] == RegexComparator(pattern=r"C-\d{4}")
    assert cancel.notes is not None
    assert cancel.notes.startswith("Rejected: the policy")
    assert cancel.metadata == {"ticket": "SUP-118", "priority": 2}


def test_the_json_fixture_holds_the_same_dataset(fixtures: Path) -> None:
    # The JSON spells out what the YAML leaves implicit (defaults, exact specs, 25 as 25.0) and
    # orders keys differently: it loads to an equal dataset.
    from_yaml = load_dataset(fixtures / "datasets" / "support_shop.yaml")
    from_json = load_dataset(fixtures / "datasets" / "support_shop.json")
    assert from_json == from_yaml


# --- the bad fixtures: every problem at once, each in its place ---------------------------------


def test_every_problem_of_the_bad_yaml_is_reported_at_its_line(fixtures: Path) -> None:
    path = fixtures / "datasets" / "bad_support_shop.yaml"
    problems = problems_of(path)
    assert {problem.file for problem in problems} == {str(path)}
    assert places(problems) == [
        (3, None, "owner"),
        (11, "refund-no-reviewer", "expected_tool"),
        (12, "refund-no-reviewer", "expected_tools[1]"),
        (13, "refund-no-reviewer", "review_status"),
        (16, "bad-types", "input"),
        (17, "bad-types", "tool_match"),
        (18, "bad-types", "tool_threshold"),
        (22, "bad-types", "expected_arguments[0].arguments.order_id"),
        (23, "bad-types", "expected_arguments[0].arguments.amount.abs_tol"),
        (25, "bad-types", "scorers[0].name"),
        (27, "refund-no-reviewer", "id"),
        (30, "refund-no-reviewer", "expected_arguments[0].tool"),
        (33, "refund-no-reviewer", "policies[0]"),
        (36, "refund-no-reviewer", "policies[1].before"),
        (41, "dates-and-patterns", "split"),
        (45, "dates-and-patterns", "expected_arguments[0].arguments.date.value"),
        (46, "dates-and-patterns", "expected_arguments[0].arguments.order_id.pattern"),
        (48, None, "cases[4].id"),
    ]
    # The fixture marks each line that has a problem; none is missed, none is invented.
    marked = [
        number
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if "# problem:" in line
    ]
    assert [problem.line for problem in problems] == marked

    messages = [problem.message for problem in problems]
    expected_fragments = [
        "unknown field",
        "unknown field",
        "tool 'refund_order' is not a declared tool; declared: issue_refund, lookup_order,",
        "an approved case names its reviewer: reviewed_by is missing",
        "expected text or a list of messages",
        "'exact', 'in_order' or 'any_order'",
        "less than or equal to 1",
        "unknown comparator 'fuzzy'; known: absent, date, datetime, exact, number, one_of,",
        "greater than or equal to 0",
        "unknown scorer 'trajectori' (did you mean 'trajectory'?); known: arguments,",
        "duplicate case id 'refund-no-reviewer' (first at line 9)",
        "tool 'refund_now' is not a declared tool",
        "unknown policy 'never'; known: at_most, forbidden, must_precede,",
        "tool 'refund_now' is not a declared tool",
        "duplicate key 'split' (first at line 40)",
        "expected a date as YYYY-MM-DD, got '19/06/2026'",
        "not a valid regular expression",
        "required field is missing",
    ]
    assert len(messages) == len(expected_fragments)
    for message, fragment in zip(messages, expected_fragments, strict=True):
        assert fragment in message


def test_every_problem_of_the_bad_json_is_reported_at_its_line(fixtures: Path) -> None:
    problems = problems_of(fixtures / "datasets" / "bad_support_shop.json")
    assert [
        (*place, problem.message) for place, problem in zip(places(problems), problems, strict=True)
    ] == [
        (
            8,
            "refund",
            "review_status",
            "an approved case names its reviewer: reviewed_by is missing",
        ),
        (10, "refund", "expected_tools", "duplicate key 'expected_tools' (first at line 9)"),
        (
            11,
            "refund",
            "policies[0].tool",
            "tool 'delete_account' is not a declared tool; declared: issue_refund, lookup_order",
        ),
        (14, "refund", "id", "duplicate case id 'refund' (first at line 6)"),
        (16, "refund", "tool_threshold", "Input should be a valid number"),
        (
            17,
            "refund",
            "scorers[0].name",
            "unknown scorer 'judge'; known: arguments, efficiency, grounding, policy, replay_state,"
            " response, state, termination, trajectory",
        ),
        (
            21,
            "refund",
            "expected_arguments[0].arguments.amount",
            "unknown comparator 'money'; known: absent, date, datetime, exact, number, one_of,"
            " present, regex, subset, text",
        ),
        (22, "refund", "expected_arguments[0].when", "unknown field"),
        (29, "huge", "expected_state.balance", "1e999 is too large for a number"),
    ]


def test_the_message_lists_each_problem_on_its_own_line(fixtures: Path) -> None:
    path = fixtures / "datasets" / "bad_support_shop.json"
    with pytest.raises(InputError) as caught:
        load_dataset(path)
    lines = str(caught.value).splitlines()
    assert lines[0] == f"{path}: 9 problems"
    assert lines[1] == (
        f"{path}:8: case 'refund': field 'review_status': "
        "an approved case names its reviewer: reviewed_by is missing"
    )
    assert lines[-1] == (
        f"{path}:29: case 'huge': field 'expected_state.balance': 1e999 is too large for a number"
    )
    assert len(lines) == 10
    assert caught.value.exit_code == 2


# --- one rule at a time, in small documents ------------------------------------------------------


def test_a_broken_case_does_not_hide_the_problems_of_the_next() -> None:
    problems = parse_problems(
        "name: d\n"
        "cases:\n"
        "  - id: a\n"
        "    input: 3\n"
        "  - id: b\n"
        "    input: hi\n"
        "    tool_threshold: 2\n"
    )
    assert places(problems) == [(4, "a", "input"), (7, "b", "tool_threshold")]


def test_an_error_inside_a_message_is_reported_once_at_its_field() -> None:
    problems = parse_problems(
        "name: d\ncases:\n  - id: a\n    input:\n      - role: robot\n        content: hi\n"
    )
    assert places(problems) == [(5, "a", "input[0].role")]
    assert "'user'" in problems[0].message


def test_a_conversation_needs_a_user_turn_and_a_case_needs_an_input() -> None:
    problems = parse_problems(
        "name: d\n"
        "cases:\n"
        "  - id: a\n"
        "    input: [{role: assistant, content: hello}]\n"
        "  - id: b\n"
        "    expected_tools: []\n"
    )
    assert [(p.line, p.case_id, p.field, p.message) for p in problems] == [
        (4, "a", "input", "a conversation input has at least one user message"),
        (5, "b", "input", "required field is missing (or a simulated user: user)"),
    ]


def test_undeclared_tools_are_checked_only_when_the_dataset_declares_tools() -> None:
    text = "name: d\n{tools}cases:\n  - id: a\n    input: hi\n    expected_tools: [refund]\n"
    assert parse_dataset(text.format(tools=""), format="yaml").cases[0].expected_tools == ["refund"]
    problems = parse_problems(text.format(tools="tools: [issue_refund]\n"))
    assert [(p.line, p.field, p.message) for p in problems] == [
        (
            6,
            "expected_tools[0]",
            "tool 'refund' is not a declared tool (did you mean 'issue_refund'?);"
            " declared: issue_refund",
        )
    ]
    problems = parse_problems(text.format(tools="tools: []\n"))
    assert problems[0].message == "tool 'refund' is not a declared tool; the dataset declares none"


def test_a_close_tool_name_is_suggested() -> None:
    problems = parse_problems(
        "name: d\ntools: [issue_refund]\ncases:\n"
        "  - {id: a, input: hi, policies: [{name: at_most, tool: issue_refunds, count: 1}]}\n"
    )
    assert places(problems) == [(4, "a", "policies[0].tool")]
    assert "(did you mean 'issue_refund'?)" in problems[0].message


def test_a_case_without_a_readable_id_is_named_by_its_position() -> None:
    problems = parse_problems("name: d\ncases:\n  - id: 7\n    input: hi\n  - just text\n")
    assert [(p.line, p.case_id, p.field) for p in problems] == [
        (3, None, "cases[0].id"),
        (5, None, "cases[1]"),
    ]


def test_header_problems_name_the_field_and_no_case() -> None:
    problems = parse_problems("name: 'has space'\ntools: [a, a]\nscorers: [{name: nope}]\n")
    assert [(p.line, p.case_id, p.field) for p in problems] == [
        (1, None, "name"),
        (2, None, "tools"),
        (3, None, "scorers[0].name"),
    ]
    assert problems[1].message == "tools declared more than once: a"


def test_the_document_must_be_a_mapping_with_a_list_of_cases() -> None:
    assert [(p.line, p.message) for p in parse_problems("- a\n- b\n")] == [
        (1, "a dataset file holds a mapping (name, cases, ...)")
    ]
    problems = parse_problems("name: d\ncases: {a: 1}\n")
    assert [(p.line, p.field, p.message) for p in problems] == [
        (2, "cases", "must be a list of cases")
    ]
    assert [(p.line, p.field) for p in parse_problems("cases: []\n")] == [(1, "name")]
