"""The tools file: declarations in the shapes already read elsewhere, as a model is shown them."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.drafting import load_tool_declarations, parse_tool_declarations
from trailcheck.errors import InputError


def test_each_provider_shape_reads_as_one_declaration() -> None:
    declarations = parse_tool_declarations(
        [
            {"name": "a", "description": "GenAI", "parameters": {"type": "object"}},
            {"type": "function", "function": {"name": "b", "description": "OpenAI chat"}},
            {"name": "c", "input_schema": {"type": "object", "required": ["x"]}},
            {"name": "d", "inputSchema": {"type": "object"}, "outputSchema": {}},
            {"name": "e", "description": "a catalog entry", "category": "finance"},
        ]
    )
    assert [(d.name, d.description) for d in declarations] == [
        ("a", "GenAI"),
        ("b", "OpenAI chat"),
        ("c", ""),
        ("d", ""),
        ("e", "a catalog entry"),
    ]
    assert declarations[2].parameters == {"type": "object", "required": ["x"]}
    assert declarations[4].parameters == {}  # arguments the file does not say: not checked


def test_a_yaml_file_with_a_tools_key_and_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text("tools:\n  - name: lookup_order\n    description: Look it up.\n")
    (declaration,) = load_tool_declarations(path)
    assert declaration.name == "lookup_order"
    with pytest.raises(InputError, match="entry 1 names no tool"):
        parse_tool_declarations([{"name": "a"}, {"description": "nameless"}])
    with pytest.raises(InputError, match="entry 1: tool 'a' already declared by entry 0"):
        parse_tool_declarations([{"name": "a"}, {"name": "a"}])
    with pytest.raises(InputError, match="expected a list"):
        parse_tool_declarations({"name": "a"})


def test_tau_bench_tools_info_is_read_as_it_is(external: Path) -> None:
    declarations = load_tool_declarations(external / "tau-bench" / "airline_tools_info.json")
    by_name = {declaration.name: declaration for declaration in declarations}
    assert "book_reservation" in by_name
    assert "user_id" in by_name["book_reservation"].parameters["required"]
