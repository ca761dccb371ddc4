"""ADK's traps, re-detected from what an imported suite holds in its cases."""

from __future__ import annotations

from typing import Any

from trailcheck.audit import audit_dataset
from trailcheck.audit.adk_traps import check_adk_traps
from trailcheck.cases import Case, Dataset

# The metadata the ADK importer writes for a case (file, ids, where its criteria came from).
ADK = {"file": "demo.evalset.json", "eval_set_id": "demo", "eval_id": "a", "criteria": "x.json"}


def _case(case_id: str, adk: dict[str, Any] | None = None, **fields: Any) -> Case:
    metadata = {} if adk is None else {"adk": {**ADK, **adk}}
    return Case.model_validate(
        {
            "id": case_id,
            "input": "What is the weather?",
            "reference_response": "Sunny.",
            "review_status": "candidate",
            "metadata": metadata,
            **fields,
        }
    )


def _dataset(*cases: Case) -> Dataset:
    return Dataset(name="demo", cases=list(cases))


def test_an_empty_in_order_list_is_a_high_trap() -> None:
    planted = _case("demo/a", {}, expected_tools=[], tool_match="in_order")
    (finding,) = check_adk_traps(_dataset(planted))
    assert (finding.case_id, finding.check, finding.severity) == ("demo/a", "adk_trap", "high")
    assert finding.message.startswith(
        "ADK's IN_ORDER with an empty expected tool list passes any trajectory"
    )
    any_order = _case("demo/b", {}, expected_tools=[], tool_match="any_order")
    (finding,) = check_adk_traps(_dataset(any_order))
    assert "ANY_ORDER" in finding.message
    assert audit_dataset(_dataset(planted)).has_high


def test_unchecked_tool_uses_and_ignored_arguments_are_medium_traps() -> None:
    uses = [{"tool": "get_weather", "args": {"city": "Paris"}}]
    unchecked = _case("demo/a", {"tool_uses": uses})
    ignored = _case(
        "demo/b", {"tool_args": uses}, expected_tools=["get_weather"], tool_match="exact"
    )
    findings = check_adk_traps(_dataset(unchecked, ignored))
    assert [(f.case_id, f.severity) for f in findings] == [
        ("demo/a", "medium"),
        ("demo/b", "medium"),
    ]
    assert "get_weather are checked by no ADK criterion" in findings[0].message
    assert "ignore_args" in findings[1].message


def test_sound_adk_cases_and_native_cases_are_clean() -> None:
    exact_empty = _case("demo/a", {}, expected_tools=[], tool_match="exact")
    with_tools = _case("demo/b", {}, expected_tools=["get_weather"], tool_match="in_order")
    native = _case("native", None, expected_tools=[], tool_match="in_order")
    assert check_adk_traps(_dataset(exact_empty, with_tools, native)) == []
