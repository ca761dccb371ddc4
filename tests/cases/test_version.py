"""The dataset version: invariant under what carries no meaning, changed by anything that does."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.cases.strategies import datasets
from trailcheck.cases import Dataset, canonical_form, dataset_digest, dataset_version, parse_dataset

BASE = {
    "name": "shop",
    "tools": ["lookup_order", "issue_refund", "verify_identity", "reschedule"],
    "cases": [
        {
            "id": "refund",
            "input": "Refund A-1001.",
            "failure_modes": ["no_verification", "wrong_amount"],
            "expected_tools": ["lookup_order", "verify_identity", "issue_refund"],
            "expected_arguments": [
                {
                    "tool": "issue_refund",
                    "arguments": {
                        "order_id": "A-1001",
                        "amount": {"$compare": "number", "value": 25, "abs_tol": 0.01},
                    },
                }
            ],
            "policies": [
                {"name": "must_precede", "tool": "verify_identity", "before": "issue_refund"}
            ],
            "review_status": "approved",
            "reviewed_by": "ana",
        },
        {"id": "hours", "input": "When are you open?", "expected_tools": []},
        {
            "id": "delivery",
            "input": "Move my delivery.",
            "expected_arguments": [
                {
                    "tool": "reschedule",
                    "arguments": {
                        "when": {"$compare": "datetime", "value": "2026-06-19T10:00:00+02:00"}
                    },
                }
            ],
        },
    ],
}


def version_of(data: dict[str, Any]) -> str:
    return parse_dataset(json.dumps(data), format="json").version


def changed(path: list[str | int], value: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(BASE))
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return data


def reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: reversed_keys(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(item) for item in value]
    return value


BASE_VERSION = version_of(BASE)


def test_the_version_is_the_name_and_twelve_hex_digits_of_the_digest() -> None:
    dataset = parse_dataset(json.dumps(BASE), format="json")
    assert re.fullmatch(r"shop@[0-9a-f]{12}", dataset.version)
    assert dataset.version == dataset_version(dataset) == f"shop@{dataset_digest(dataset)[:12]}"
    assert len(dataset_digest(dataset)) == 64


def test_the_version_is_stable_across_processes_and_releases() -> None:
    # Pinned: a change to the canonical form changes every dataset's version, which must be a
    # decision, not an accident.
    # Last changed when defaults left the canonical form (a new field no longer changes it).
    assert BASE_VERSION == "shop@a9571c760955"


def test_case_order_does_not_change_the_version() -> None:
    shuffled = json.loads(json.dumps(BASE))
    shuffled["cases"] = [shuffled["cases"][2], shuffled["cases"][0], shuffled["cases"][1]]
    assert version_of(shuffled) == BASE_VERSION


def test_key_order_does_not_change_the_version() -> None:
    assert version_of(reversed_keys(BASE)) == BASE_VERSION


def test_yaml_and_json_of_the_same_content_have_the_same_version(fixtures: Path) -> None:
    from_yaml = parse_dataset(
        (fixtures / "datasets" / "support_shop.yaml").read_text(), format="yaml"
    )
    from_json = parse_dataset(
        (fixtures / "datasets" / "support_shop.json").read_text(), format="json"
    )
    assert from_yaml.version == from_json.version


def test_defaults_written_out_mean_the_same_as_left_out() -> None:
    explicit = changed(["cases", 1, "split"], "regression")
    explicit["cases"][1].update(
        tool_match="in_order",
        tool_threshold=1,
        review_status="candidate",
        reviewed_by=None,
        rubrics=[],
        policies=[],
        metadata={},
        scorers=None,
    )
    explicit.update(description=None, scorers=[])
    assert version_of(explicit) == BASE_VERSION


def test_shorthand_and_spelled_out_comparators_mean_the_same() -> None:
    path: list[str | int] = ["cases", 0, "expected_arguments", 0, "arguments", "order_id"]
    spelled = changed(path, {"$compare": "exact", "value": "A-1001", "int_equals_float": False})
    assert version_of(spelled) == BASE_VERSION
    number_path: list[str | int] = ["cases", 0, "expected_arguments", 0, "arguments", "amount"]
    as_float = changed(number_path, {"$compare": "number", "value": 25.0, "abs_tol": 0.01})
    assert version_of(as_float) == BASE_VERSION


def test_an_instant_written_in_another_zone_means_the_same() -> None:
    path: list[str | int] = ["cases", 2, "expected_arguments", 0, "arguments", "when"]
    in_utc = changed(path, {"$compare": "datetime", "value": "2026-06-19T08:00:00Z"})
    assert version_of(in_utc) == BASE_VERSION
    later = changed(path, {"$compare": "datetime", "value": "2026-06-19T08:00:01Z"})
    assert version_of(later) != BASE_VERSION


def test_the_order_of_set_like_lists_does_not_change_the_version() -> None:
    tools = changed(["tools"], ["reschedule", "verify_identity", "lookup_order", "issue_refund"])
    assert version_of(tools) == BASE_VERSION
    modes = changed(["cases", 0, "failure_modes"], ["wrong_amount", "no_verification"])
    assert version_of(modes) == BASE_VERSION


def test_changing_one_argument_value_changes_the_version() -> None:
    path: list[str | int] = ["cases", 0, "expected_arguments", 0, "arguments", "order_id"]
    assert version_of(changed(path, "A-1002")) != BASE_VERSION


def test_changes_of_meaning_change_the_version() -> None:
    variants = [
        # exact is type-aware, so 25 and 25.0 are different expectations
        changed(["cases", 0, "expected_arguments", 0, "arguments", "order_id"], 25),
        changed(["cases", 0, "expected_arguments", 0, "arguments", "order_id"], 25.0),
        changed(["cases", 0, "expected_arguments", 0, "arguments", "amount", "abs_tol"], 0.02),
        # "no tool may be called" against "not checked"
        changed(["cases", 1, "expected_tools"], None),
        # the order of expected tools is meaning
        changed(
            ["cases", 0, "expected_tools"], ["verify_identity", "lookup_order", "issue_refund"]
        ),
        changed(["cases", 0, "review_status"], "rejected"),
        changed(["cases", 1, "input"], [{"role": "user", "content": "When are you open?"}]),
        changed(["name"], "shop2"),
    ]
    versions = [version_of(data) for data in variants]
    assert BASE_VERSION not in versions
    assert len(set(versions[:-1])) == len(versions) - 1
    assert versions[-1].startswith("shop2@")


def test_the_canonical_form_is_sorted_and_leaves_defaults_out() -> None:
    dataset = parse_dataset(json.dumps(BASE), format="json")
    form = canonical_form(dataset)
    assert [case["id"] for case in form["cases"]] == ["delivery", "hours", "refund"]
    assert form["tools"] == ["issue_refund", "lookup_order", "reschedule", "verify_identity"]
    # Defaults are left out, so a new optional field changes no existing version.
    assert "tool_threshold" not in form["cases"][1]
    assert "faults" not in form["cases"][1]
    assert form["cases"][1]["expected_tools"] == []  # "no tool", not the default "unchecked"
    assert form["cases"][0]["expected_arguments"][0]["arguments"]["when"]["value"] == (
        "2026-06-19T08:00:00Z"
    )


@settings(max_examples=100, deadline=None)
@given(datasets(), st.randoms(use_true_random=False))
def test_any_permutation_of_cases_keeps_the_version(dataset: Dataset, rng: random.Random) -> None:
    cases = list(dataset.cases)
    rng.shuffle(cases)
    assert (
        Dataset(
            name=dataset.name,
            tools=dataset.tools,
            scorers=dataset.scorers,
            description=dataset.description,
            cases=cases,
        ).version
        == dataset.version
    )
