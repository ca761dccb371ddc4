"""Catalog and taxonomy files: validation names what is wrong and where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.route.shop import catalog, taxonomy
from trailcheck.errors import InputError, RecordError
from trailcheck.route import Tool, collapse, load_catalog, load_taxonomy, parse_taxonomy

TOOLS = (
    Tool("get_a", "reads a", "x", "read"),
    Tool("get_a_too", "reads a again", "x"),
    Tool("set_a", "writes a", "x", "write"),
    Tool("lonely", "no direction", "x"),
)


def test_the_shipped_sample_is_valid_and_every_tool_has_a_direction() -> None:
    capabilities = collapse(catalog(), taxonomy())
    assert set(capabilities.of_tool) == {t.name for t in catalog()}
    assert capabilities.capability_of("track_package").name == "order_tracking"
    assert capabilities.capability_of("track_package").direction == "read"
    assert capabilities.capabilities["tell_joke"].variants == ("tell_joke",)


def test_variants_inherit_the_capability_direction() -> None:
    tax = parse_taxonomy(
        {
            "a": {"direction": "read", "variants": ["get_a", "get_a_too"]},
            "lonely_cap": {"direction": "write", "variants": ["lonely"]},
        }
    )
    capabilities = collapse(TOOLS, tax)
    assert capabilities.capability_of("get_a_too").direction == "read"
    assert capabilities.capability_of("set_a").name == "set_a"


def test_every_problem_is_reported_at_once() -> None:
    tax = parse_taxonomy(
        {
            "a": {"direction": "read", "variants": ["get_a", "set_a", "missing"]},
            "b": {"direction": "read", "variants": ["get_a"]},
        }
    )
    with pytest.raises(InputError) as caught:
        collapse(TOOLS, tax)
    message = str(caught.value)
    assert "capability 'a': tool 'missing' is not in the catalog" in message
    assert "capability 'a' (read): tool 'set_a' declares direction 'write'" in message
    assert "capability 'b': tool 'get_a' is already a variant of 'a'" in message
    assert "tool 'lonely': no direction" in message


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"direction": "sideways", "variants": ["x"]}, "field 'direction'"),
        ({"direction": "read", "variants": []}, "field 'variants'"),
        ([], "expected an object"),
    ],
)
def test_a_malformed_capability_is_named(body: object, said: str) -> None:
    with pytest.raises(InputError, match=said) as caught:
        parse_taxonomy({"cap": body}, "tax.json")
    assert "tax.json: capability 'cap'" in str(caught.value)


def test_a_bad_catalog_entry_names_file_entry_and_field(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps([{"name": "a", "description": "d", "direction": "up"}]))
    with pytest.raises(RecordError, match="direction") as caught:
        load_catalog(path)
    assert caught.value.field == "direction"
    assert str(path) in str(caught.value)
    path.write_text(
        json.dumps([{"name": "a", "description": "d"}, {"name": "a", "description": "e"}])
    )
    with pytest.raises(RecordError, match="already defined by entry 0"):
        load_catalog(path)


def test_unreadable_json_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "tax.json"
    path.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_taxonomy(path)
