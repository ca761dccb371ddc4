"""The published JSON Schema of a dataset file."""

from __future__ import annotations

import json
from importlib.resources import files

from trailcheck.cases import COMPARATOR_NAMES, dataset_json_schema
from trailcheck.policy import POLICY_NAMES


def test_the_shipped_schema_file_is_the_generated_one() -> None:
    shipped = files("trailcheck") / "schemas" / "dataset.schema.json"
    assert json.loads(shipped.read_text(encoding="utf-8")) == dataset_json_schema(), (
        "regenerate it: uv run trailcheck schema dataset"
        " > src/trailcheck/schemas/dataset.schema.json"
    )


def test_the_schema_names_itself_and_the_fields_of_a_dataset() -> None:
    schema = dataset_json_schema()
    assert schema["$id"] == "urn:trailcheck:schema:dataset:1"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["title"] == "Dataset"
    assert schema["required"] == ["name"]
    assert list(schema["properties"]) == [
        "name",
        "description",
        "tools",
        "scorers",
        "gate",
        "resources",
        "cases",
    ]
    case = schema["$defs"]["Case"]
    assert case["required"] == ["id"]
    assert case["anyOf"] == [{"required": ["input"]}, {"required": ["user"]}]
    assert case["additionalProperties"] is False


def test_every_comparator_and_policy_is_in_the_schema_with_its_tag_required() -> None:
    defs = dataset_json_schema()["$defs"]
    comparators = {
        spec["properties"]["$compare"]["const"]: spec
        for spec in defs.values()
        if "$compare" in spec.get("properties", {})
    }
    assert sorted(comparators) == sorted(COMPARATOR_NAMES)
    assert all(spec["required"][0] == "$compare" for spec in comparators.values())
    policies = {
        spec["properties"]["name"]["const"]: spec
        for spec in defs.values()
        if "const" in spec.get("properties", {}).get("name", {})
    }
    assert sorted(policies) == sorted(POLICY_NAMES)
    assert all(spec["required"][0] == "name" for spec in policies.values())


def test_an_argument_may_be_a_comparator_or_a_plain_value() -> None:
    arguments = dataset_json_schema()["$defs"]["ExpectedInvocation"]["properties"]["arguments"]
    spec_or_value = arguments["additionalProperties"]["anyOf"]
    assert len(spec_or_value) == 2
    assert spec_or_value[1]["not"] == {"type": "object", "required": ["$compare"]}
