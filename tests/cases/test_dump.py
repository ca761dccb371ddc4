"""Writing datasets: what is written loads back equal, in the form people write."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings

from tests.cases.strategies import datasets
from trailcheck.cases import (
    Case,
    Dataset,
    ExactComparator,
    ExpectedInvocation,
    dump_dataset,
    load_dataset,
    parse_dataset,
    serialize_dataset,
)
from trailcheck.errors import UsageError


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize("fixture", ["support_shop.yaml", "support_shop.json"])
def test_the_fixtures_round_trip(fixtures: Path, tmp_path: Path, fixture: str, suffix: str) -> None:
    dataset = load_dataset(fixtures / "datasets" / fixture)
    out = tmp_path / f"again{suffix}"
    dump_dataset(dataset, out)
    again = load_dataset(out)
    assert again == dataset
    assert again.version == dataset.version


def test_the_written_yaml_is_in_the_form_people_write(fixtures: Path) -> None:
    text = serialize_dataset(load_dataset(fixtures / "datasets" / "support_shop.json"), "yaml")
    # defaults left out, exact comparisons as plain values, no "no tool" lost
    assert "tool_match: in_order" not in text
    assert "split: regression" not in text
    assert "      order_id: A-1001\n" in text
    assert "  expected_tools: []\n" in text
    # text a YAML 1.1 reader would take for a date is quoted, multi-line text is a block
    assert "value: '2026-06-19'" in text
    assert "  notes: |\n    Rejected: the policy for shipped orders is being rewritten.\n" in text


def test_strings_that_look_like_other_types_stay_strings_in_both_formats() -> None:
    tricky = ["yes", "no", "on", "null", "~", "1:20.472", "0o17", "1e5", "2026-06-19", "", "<<"]
    dataset = Dataset(
        name="d",
        cases=[
            Case(
                id="a",
                input="yes",
                metadata={value or "empty": value for value in tricky},
                expected_arguments=[
                    ExpectedInvocation(tool="t", arguments={"x": ExactComparator(value="true")})
                ],
            )
        ],
    )
    for dataset_format in ("yaml", "json"):
        text = serialize_dataset(dataset, dataset_format)
        assert parse_dataset(text, format=dataset_format) == dataset


def test_an_unknown_suffix_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=re.escape("name a dataset file .yaml, .yml, .json")):
        dump_dataset(Dataset(name="d"), tmp_path / "d.toml")
    assert not (tmp_path / "d.toml").exists()


@settings(max_examples=200, deadline=None)
@given(datasets())
def test_any_dataset_round_trips_through_yaml_and_json(dataset: Dataset) -> None:
    for dataset_format in ("yaml", "json"):
        again = parse_dataset(serialize_dataset(dataset, dataset_format), format=dataset_format)
        assert again == dataset
        assert again.version == dataset.version
