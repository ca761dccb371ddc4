"""The published JSON Schema of an online file, and ``trailcheck schema online``."""

from __future__ import annotations

import json
from importlib.resources import files

import orjson
import pytest

from trailcheck.cli import run_cli
from trailcheck.online import JUDGE_NAMES, online_json_schema


def test_the_shipped_schema_file_is_the_generated_one() -> None:
    shipped = files("trailcheck") / "schemas" / "online.schema.json"
    assert json.loads(shipped.read_text(encoding="utf-8")) == online_json_schema(), (
        "regenerate it: uv run trailcheck schema online > src/trailcheck/schemas/online.schema.json"
    )


def test_the_schema_names_itself_and_the_fields_of_an_evaluator() -> None:
    schema = online_json_schema()
    assert schema["$id"] == "urn:trailcheck:schema:online:1"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["required"] == ["evaluators"]
    evaluator = schema["$defs"]["Evaluator"]
    assert evaluator["required"] == ["name"]
    assert list(evaluator["properties"]) == [
        "name",
        "rule",
        "scorer",
        "policy",
        "judge",
        "filter",
        "sampling",
        "delay",
        "sample_by",
    ]
    assert evaluator["additionalProperties"] is False
    assert evaluator["properties"]["sampling"]["maximum"] == 1.0
    assert evaluator["properties"]["delay"]["pattern"].startswith("^")


def test_the_schema_accepts_the_name_shorthands() -> None:
    properties = online_json_schema()["$defs"]["Evaluator"]["properties"]
    judge_forms = properties["judge"]["anyOf"]
    assert {"enum": list(JUDGE_NAMES)} in [
        {key: form[key] for key in form if key == "enum"} for form in judge_forms
    ]
    scorer_forms = properties["scorer"]["anyOf"]
    assert any(form.get("type") == "string" for form in scorer_forms)


def test_trailcheck_schema_online_prints_the_shipped_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_cli(["schema", "online"]) == 0
    printed = orjson.loads(capsys.readouterr().out)
    shipped = files("trailcheck") / "schemas" / "online.schema.json"
    assert printed == json.loads(shipped.read_text(encoding="utf-8"))
