"""The JSON Schema subset: each keyword's check, where a problem is, and what checks nothing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.components import schema_problems
from trailcheck.components.json_schema import MAX_PROBLEMS, json_type

ORDER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^A-[0-9]+$"},
        "amount": {"type": "number", "minimum": 0, "exclusiveMaximum": 1000},
        "reason": {"enum": ["damaged", "late"]},
        "items": {
            "type": "array",
            "items": {"$ref": "#/$defs/item"},
            "minItems": 1,
            "uniqueItems": True,
        },
        "note": {"type": "string", "maxLength": 5, "nullable": True},
    },
    "required": ["order_id", "amount"],
    "additionalProperties": False,
    "$defs": {
        "item": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}
    },
}


def test_a_conforming_value_has_no_problem() -> None:
    value = {
        "order_id": "A-12",
        "amount": 25,
        "reason": "late",
        "items": [{"sku": "x"}, {"sku": "y"}],
        "note": None,
    }
    assert schema_problems(value, ORDER) == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"amount": 1}, "$: 'order_id' is required"),
        ({"order_id": 12, "amount": 1}, "$.order_id: expected string, not integer"),
        ({"order_id": "B-1", "amount": 1}, "$.order_id: 'B-1' does not match '^A-[0-9]+$'"),
        ({"order_id": "A-1", "amount": -1}, "$.amount: -1 is not >= 0"),
        ({"order_id": "A-1", "amount": 1000}, "$.amount: 1000 is not < 1000"),
        ({"order_id": "A-1", "amount": True}, "$.amount: expected number, not boolean"),
        (
            {"order_id": "A-1", "amount": 1, "reason": "bored"},
            "$.reason: 'bored' is not one of 'damaged', 'late'",
        ),
        ({"order_id": "A-1", "amount": 1, "items": []}, "$.items: items 0 < minItems 1"),
        ({"order_id": "A-1", "amount": 1, "items": [{}]}, "$.items[0]: 'sku' is required"),
        (
            {"order_id": "A-1", "amount": 1, "items": [{"sku": "x"}, {"sku": "x"}]},
            "$.items[1]: repeats an earlier item",
        ),
        ({"order_id": "A-1", "amount": 1, "note": "too long"}, "$.note: length 8 > maxLength 5"),
        ({"order_id": "A-1", "amount": 1, "extra": 1}, "$: 'extra' is not an allowed property"),
    ],
)
def test_each_keyword_names_the_place_and_what_was_expected(
    value: dict[str, Any], problem: str
) -> None:
    assert schema_problems(value, ORDER) == [problem]


def test_integers_numbers_and_booleans_are_told_apart() -> None:
    assert schema_problems(3.0, {"type": "integer"}) == []
    assert schema_problems(3.5, {"type": "integer"}) == ["$: expected integer, not number"]
    assert schema_problems(1, {"type": "boolean"}) == ["$: expected boolean, not integer"]
    assert schema_problems(True, {"const": 1}) == ["$: expected 1, not True"]
    assert schema_problems(1.0, {"const": 1}) == []
    assert schema_problems(None, {"type": ["string", "null"]}) == []
    assert schema_problems(0.3, {"multipleOf": 0.1}) == []
    assert schema_problems(0.35, {"multipleOf": 0.1}) == ["$: 0.35 is not a multiple of 0.1"]


def test_combinators() -> None:
    either = {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 10}]}
    assert schema_problems("x", either) == []
    assert schema_problems(3, either) == ["$: matches none of the 2 alternatives of anyOf"]
    one = {"oneOf": [{"type": "number"}, {"type": "integer"}]}
    assert schema_problems(1.5, one) == []
    assert schema_problems(2, one) == ["$: matches 2 alternatives of oneOf, not exactly one"]
    assert schema_problems(2, {"not": {"type": "integer"}}) == ["$: matches the schema under 'not'"]
    both = {"allOf": [{"minimum": 1}, {"maximum": 2}]}
    assert schema_problems(3, both) == ["$: 3 is not <= 2"]
    assert schema_problems([1, "a"], {"prefixItems": [{"type": "integer"}], "items": False}) == [
        "$[1]: no value is allowed here"
    ]


def test_what_checks_nothing_passes_everything() -> None:
    # Annotations, unknown references, unreadable patterns, a reference cycle, a non-schema.
    assert schema_problems("x", {"format": "email", "description": "anything"}) == []
    assert schema_problems("x", {"$ref": "https://example.com/schema"}) == []
    assert schema_problems("x", {"$ref": "#/$defs/missing"}) == []
    assert schema_problems("x", {"type": "string", "pattern": "(unclosed"}) == []
    cycle = {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}
    assert schema_problems("x", cycle) == []
    assert schema_problems("x", ["not", "a", "schema"]) == []
    assert schema_problems("x", False) == ["$: no value is allowed here"]


def test_problems_stop_at_the_limit() -> None:
    schema = {"type": "object", "required": [f"f{index}" for index in range(20)]}
    problems = schema_problems({}, schema)
    assert len(problems) == MAX_PROBLEMS
    assert problems[0] == "$: 'f0' is required"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=12,
)


def _shape(value: Any) -> dict[str, Any]:
    """The strictest schema of the subset that ``value`` itself satisfies."""
    kind = json_type(value)
    if kind == "object":
        return {
            "type": "object",
            "properties": {key: _shape(item) for key, item in value.items()},
            "required": list(value),
            "additionalProperties": False,
        }
    if kind == "array":
        return {"type": "array", "prefixItems": [_shape(i) for i in value], "items": False}
    return {"type": kind, "const": value}


@given(JSON)
def test_every_value_conforms_to_its_own_shape_and_to_the_empty_schema(value: Any) -> None:
    assert schema_problems(value, _shape(value)) == []
    assert schema_problems(value, {}) == []
    assert schema_problems(value, True) == []


@given(JSON, JSON)
def test_a_value_of_another_type_is_refused_by_a_shape(value: Any, other: Any) -> None:
    kinds = {json_type(value), json_type(other)}
    if len(kinds) == 2 and kinds != {"integer", "number"}:
        assert schema_problems(other, _shape(value)) != []
