"""The Case and Dataset models built in Python: defaults, distinctions, and the rules they keep."""

from __future__ import annotations

from datetime import UTC, date, datetime
from importlib.metadata import EntryPoint, EntryPoints
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from trailcheck.cases import (
    COMPARATOR_NAMES,
    AbsentComparator,
    Case,
    Comparator,
    Dataset,
    DateComparator,
    DatetimeComparator,
    ExactComparator,
    ExpectedInvocation,
    NumberComparator,
    OneOfComparator,
    PresentComparator,
    RegexComparator,
    ScorerSpec,
    SubsetComparator,
    TextComparator,
    ToolFault,
    known_scorer_names,
)
from trailcheck.policy import (
    POLICY_NAMES,
    AtMostPolicy,
    ForbiddenPolicy,
    MustPrecedePolicy,
    PolicySpec,
    RequiresConfirmationPolicy,
)
from trailcheck.trace import Message

comparator = TypeAdapter[Any](Comparator)
policy = TypeAdapter[Any](PolicySpec)


def test_defaults_are_the_documented_ones() -> None:
    case = Case(id="a", input="hi")
    assert case.split == "regression"
    assert case.tool_match == "in_order"
    assert case.tool_threshold == 1.0
    assert case.review_status == "candidate"
    assert case.expected_tools is None
    assert case.expected_state is None
    assert case.scorers is None
    assert (case.expected_arguments, case.policies, case.rubrics) == ([], [], [])


def test_no_tools_and_not_checked_are_different_cases() -> None:
    unchecked = Case(id="a", input="hi")
    no_tools = Case(id="a", input="hi", expected_tools=[])
    assert unchecked.expected_tools is None
    assert no_tools.expected_tools == []
    assert unchecked != no_tools
    assert "expected_tools" not in unchecked.model_dump(exclude_defaults=True)
    assert no_tools.model_dump(exclude_defaults=True)["expected_tools"] == []


@pytest.mark.parametrize("threshold", [-0.01, 1.01])
def test_the_tool_threshold_is_a_fraction(threshold: float) -> None:
    with pytest.raises(ValidationError, match="tool_threshold"):
        Case(id="a", input="hi", tool_threshold=threshold)


def test_values_are_not_coerced_from_other_types() -> None:
    with pytest.raises(ValidationError, match="tool_threshold"):
        Case.model_validate({"id": "a", "input": "hi", "tool_threshold": "0.5"})
    with pytest.raises(ValidationError, match="day_first"):
        comparator.validate_python({"$compare": "date", "value": "2026-06-19", "day_first": "yes"})
    with pytest.raises(ValidationError, match="id"):
        Case.model_validate({"id": 7, "input": "hi"})


def test_models_are_frozen_and_refuse_unknown_fields() -> None:
    case = Case(id="a", input="hi")
    with pytest.raises(ValidationError, match="frozen"):
        case.id = "b"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="expected_tool"):
        Case.model_validate({"id": "a", "input": "hi", "expected_tool": []})
    with pytest.raises(ValidationError, match="Extra inputs"):
        comparator.validate_python({"$compare": "number", "value": 1, "tolerance": 2})


def test_an_approved_case_names_its_reviewer() -> None:
    with pytest.raises(ValidationError, match="reviewed_by is missing"):
        Case(id="a", input="hi", review_status="approved")
    approved = Case(id="a", input="hi", review_status="approved", reviewed_by="ana")
    assert approved.reviewed_by == "ana"
    assert Case(id="a", input="hi", review_status="rejected").reviewed_by is None


def test_the_input_is_text_or_a_conversation_with_a_user_turn() -> None:
    turns = [Message(role="user", content="hi"), Message(role="assistant", content="hello")]
    assert Case(id="a", input=turns).input == turns
    with pytest.raises(ValidationError, match="at least one user message"):
        Case(id="a", input=[Message(role="assistant", content="hello")])
    with pytest.raises(ValidationError, match="at least 1 item"):
        Case(id="a", input=[])
    with pytest.raises(ValidationError, match="expected text or a list of messages"):
        Case.model_validate({"id": "a", "input": {"role": "user"}})


def test_expectations_that_would_pass_vacuously_are_refused() -> None:
    with pytest.raises(ValidationError, match="empty expected state checks nothing"):
        Case(id="a", input="hi", expected_state={})
    with pytest.raises(ValidationError, match="arguments"):
        ExpectedInvocation(tool="lookup_order", arguments={})


# --- comparators ---------------------------------------------------------------------------------


def test_a_plain_value_is_an_exact_comparison() -> None:
    invocation = ExpectedInvocation.model_validate(
        {"tool": "t", "arguments": {"n": 25, "obj": {"a": [1]}, "none": None}}
    )
    assert invocation.arguments == {
        "n": ExactComparator(value=25),
        "obj": ExactComparator(value={"a": [1]}),
        "none": ExactComparator(value=None),
    }
    # Exact is type-aware: 25 and 25.0 are different expectations (Python's == does not tell
    # them apart, so the models compare equal; the dataset version does, see test_version).
    assert type(invocation.arguments["n"].value) is int


EXAMPLES: dict[str, tuple[dict[str, Any], Any]] = {
    "exact": (
        {"value": "A-1", "int_equals_float": True},
        ExactComparator(value="A-1", int_equals_float=True),
    ),
    "text": (
        {"value": "Kim", "case_sensitive": True},
        TextComparator(value="Kim", case_sensitive=True),
    ),
    "number": (
        {"value": 25, "abs_tol": 0.5, "rel_tol": 0.1},
        NumberComparator(value=25.0, abs_tol=0.5, rel_tol=0.1),
    ),
    "date": (
        {"value": "2026-06-19", "day_first": True},
        DateComparator(value=date(2026, 6, 19), day_first=True),
    ),
    "datetime": (
        {"value": "2026-06-19T10:00:00+02:00", "tolerance_seconds": 60},
        DatetimeComparator(value=datetime(2026, 6, 19, 8, tzinfo=UTC), tolerance_seconds=60),
    ),
    "regex": (
        {"pattern": r"A-\d+", "full_match": False},
        RegexComparator(pattern=r"A-\d+", full_match=False),
    ),
    "one_of": (
        {"values": ["morning", "afternoon"]},
        OneOfComparator(values=["morning", "afternoon"]),
    ),
    "present": ({}, PresentComparator()),
    "absent": ({}, AbsentComparator()),
    "subset": ({"value": {"city": "Lyon"}}, SubsetComparator(value={"city": "Lyon"})),
}


def test_every_comparator_has_an_example() -> None:
    assert sorted(EXAMPLES) == sorted(COMPARATOR_NAMES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_comparator_reads_its_settings(name: str) -> None:
    settings, expected = EXAMPLES[name]
    spec = comparator.validate_python({"$compare": name, **settings})
    assert spec == expected
    assert spec.compare == name


def test_an_unknown_comparator_is_refused_with_the_known_names() -> None:
    with pytest.raises(
        ValidationError, match=r"unknown comparator 'numbr' \(did you mean 'number'\?\)"
    ):
        comparator.validate_python({"$compare": "numbr", "value": 1})


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ({"$compare": "number", "value": 1, "abs_tol": -1}, "greater than or equal to 0"),
        ({"$compare": "number", "value": float("nan")}, "finite number"),
        ({"$compare": "date", "value": "June 19, 2026"}, "YYYY-MM-DD"),
        ({"$compare": "date", "value": 1781827200}, "YYYY-MM-DD text"),
        ({"$compare": "datetime", "value": "2026-06-19T10:00:00"}, "timezone"),
        ({"$compare": "regex", "pattern": "(unclosed"}, "not a valid regular expression"),
        ({"$compare": "one_of", "values": []}, "at least 1 item"),
        ({"$compare": "subset", "value": "text"}, "subset"),
    ],
)
def test_comparator_settings_are_checked(spec: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValidationError, match=fragment):
        comparator.validate_python(spec)


def test_exact_is_written_as_its_plain_value_when_that_reads_back_the_same() -> None:
    assert ExactComparator(value="A-1").model_dump(by_alias=True) == "A-1"
    assert ExactComparator(value=25, int_equals_float=True).model_dump(by_alias=True) == {
        "$compare": "exact",
        "value": 25,
        "int_equals_float": True,
    }
    # A literal object with the reserved key cannot be shorthand: it would read as a spec.
    reserved = ExactComparator(value={"$compare": "number"})
    dumped = reserved.model_dump(by_alias=True, exclude_defaults=True)
    assert dumped == {"$compare": "exact", "value": {"$compare": "number"}}
    assert comparator.validate_python(dumped) == reserved


def test_the_tag_is_written_even_when_defaults_are_left_out() -> None:
    assert PresentComparator().model_dump(by_alias=True, exclude_defaults=True) == {
        "$compare": "present"
    }
    assert ForbiddenPolicy(tool="x").model_dump(exclude_defaults=True) == {
        "name": "forbidden",
        "tool": "x",
    }


# --- policies ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {"name": "must_precede", "tool": "verify_identity", "before": "issue_refund"},
            MustPrecedePolicy(tool="verify_identity", before="issue_refund"),
        ),
        ({"name": "forbidden", "tool": "delete"}, ForbiddenPolicy(tool="delete")),
        ({"name": "at_most", "tool": "search", "count": 3}, AtMostPolicy(tool="search", count=3)),
        (
            {"name": "requires_confirmation_before", "tool": "issue_refund"},
            RequiresConfirmationPolicy(tool="issue_refund"),
        ),
    ],
)
def test_each_policy_reads_its_settings(data: dict[str, Any], expected: Any) -> None:
    assert policy.validate_python(data) == expected


def test_every_policy_name_is_covered() -> None:
    assert sorted(POLICY_NAMES) == [
        "at_most",
        "forbidden",
        "must_precede",
        "requires_confirmation_before",
    ]


def test_policy_names_and_settings_are_checked() -> None:
    with pytest.raises(ValidationError, match="unknown policy 'never'"):
        policy.validate_python({"name": "never", "tool": "x"})
    with pytest.raises(ValidationError, match="a policy is a mapping with a name"):
        policy.validate_python({"tool": "x"})
    with pytest.raises(ValidationError, match="count"):
        policy.validate_python({"name": "at_most", "tool": "x", "count": -1})
    with pytest.raises(ValidationError, match="not a valid regular expression"):
        policy.validate_python(
            {"name": "requires_confirmation_before", "tool": "x", "confirmation": "("}
        )


# --- scorer specs --------------------------------------------------------------------------------


def test_a_scorer_spec_keeps_its_settings() -> None:
    spec = ScorerSpec.model_validate({"name": "efficiency", "max_tool_calls": 8})
    assert spec.settings == {"max_tool_calls": 8}
    assert spec.model_dump() == {"name": "efficiency", "max_tool_calls": 8}
    with pytest.raises(ValidationError, match="unknown scorer 'judge'"):
        ScorerSpec(name="judge")


def test_scorer_names_come_from_the_entry_point_group_too(monkeypatch: pytest.MonkeyPatch) -> None:
    registered = EntryPoints(
        [EntryPoint(name="toxicity", value="acme.scorers:Toxicity", group="trailcheck.scorers")]
    )

    def entry_points(*, group: str) -> EntryPoints:
        assert group == "trailcheck.scorers"
        return registered

    monkeypatch.setattr("trailcheck.cases.scorer_specs.entry_points", entry_points)
    known_scorer_names.cache_clear()
    try:
        assert "toxicity" in known_scorer_names()
        assert "trajectory" in known_scorer_names()
        assert ScorerSpec(name="toxicity").name == "toxicity"
    finally:
        monkeypatch.undo()
        known_scorer_names.cache_clear()
    with pytest.raises(ValidationError, match="unknown scorer 'toxicity'"):
        ScorerSpec(name="toxicity")


# --- datasets ------------------------------------------------------------------------------------


def test_a_dataset_refuses_duplicate_ids() -> None:
    with pytest.raises(
        ValidationError, match=r"cases\[1\]: duplicate case id 'a' \(also cases\[0\]\)"
    ):
        Dataset(name="d", cases=[Case(id="a", input="x"), Case(id="a", input="y")])


def test_a_dataset_that_declares_tools_refuses_others() -> None:
    case = Case(
        id="a",
        input="x",
        expected_tools=["lookup_order"],
        expected_arguments=[ExpectedInvocation(tool="refund", arguments={"id": 1})],
        policies=[MustPrecedePolicy(tool="verify", before="refund")],
    )
    assert Dataset(name="d", cases=[case]).tools is None  # undeclared: not checked
    with pytest.raises(ValidationError) as caught:
        Dataset(name="d", tools=["lookup_order", "verify"], cases=[case])
    message = str(caught.value)
    assert "cases[0].expected_arguments[0].tool: tool 'refund' is not a declared tool" in message
    assert "cases[0].policies[0].before: tool 'refund'" in message
    assert "expected_tools" not in message


@pytest.mark.parametrize("name", ["", "a@b", "two words"])
def test_a_dataset_name_fits_in_a_version(name: str) -> None:
    with pytest.raises(ValidationError, match="name"):
        Dataset(name=name)


def test_a_fault_has_exactly_one_effect() -> None:
    rate_limited = ToolFault(tool="lookup_order", first=2, error="RateLimited: retry in 1 s")
    empty = ToolFault.model_validate({"tool": "search_orders", "result": []})
    nulled = ToolFault.model_validate({"tool": "search_orders", "result": None})
    assert not rate_limited.replaces_result
    assert [rate_limited.applies_to(n) for n in (1, 2, 3)] == [True, True, False]
    assert empty.replaces_result
    assert empty.applies_to(99)
    assert nulled.replaces_result
    assert nulled.result is None
    for bad in ({"tool": "x"}, {"tool": "x", "error": "e", "result": 1}):
        with pytest.raises(ValidationError, match="exactly one of error and result"):
            ToolFault.model_validate(bad)


def test_a_fault_names_a_declared_tool() -> None:
    case = {"id": "c", "input": "hi", "faults": [{"tool": "lookup_ordr", "result": None}]}
    with pytest.raises(ValidationError, match=r"cases\[0\]\.faults\[0\]\.tool.*lookup_order"):
        Dataset.model_validate({"name": "d", "tools": ["lookup_order"], "cases": [case]})
