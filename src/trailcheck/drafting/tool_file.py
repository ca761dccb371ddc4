"""The tools file drafting reads: the declarations a model is shown, in the shapes already read
elsewhere.

A YAML or JSON file holding a list of tool declarations (or a mapping with that list under
``tools``), each in any shape :func:`~trailcheck.components.declarations.contract_of` reads,
as a case's ``metadata.tool_declarations`` is: ``{name, description, parameters}`` (GenAI,
OpenAI Responses), ``{type: function, function: {...}}`` (OpenAI Chat: tau-bench's
``*_tools_info.json`` as it is), ``{name, input_schema}`` (Anthropic), ``{name, inputSchema}``
(MCP). A catalog entry without parameters (``{name, description, category}``, as routing's
catalog) declares a tool whose arguments the file does not say: they are not checked.

Each becomes a :class:`~trailcheck.models.ToolDeclaration`, the form a model is shown tools in,
and the form :func:`~trailcheck.models.declare_tools` makes from an environment's typed tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from trailcheck.cases.yaml_core import COMPOSING_LOADER
from trailcheck.components.declarations import contract_of
from trailcheck.errors import InputError
from trailcheck.models import ToolDeclaration
from trailcheck.text_files import read_text_file

__all__ = ["load_tool_declarations", "parse_tool_declarations"]


def _description(entry: Mapping[str, Any]) -> str:
    inner = entry.get("function")
    source = inner if isinstance(inner, Mapping) else entry
    description = source.get("description")
    return description if isinstance(description, str) else ""


def parse_tool_declarations(data: Any, source: str = "tools") -> list[ToolDeclaration]:
    """The declarations in parsed file ``data`` (see the module); an entry that names no tool,
    or a name given twice, is an :class:`InputError` naming the entry."""
    entries = data.get("tools") if isinstance(data, Mapping) else data
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{source}: expected a list of tool declarations (or one under 'tools')")
    declarations: list[ToolDeclaration] = []
    first: dict[str, int] = {}
    for index, entry in enumerate(entries):
        contract = contract_of(entry)
        if contract is None or not isinstance(entry, Mapping):
            raise InputError(f"{source}: entry {index} names no tool (no 'name')")
        if contract.name in first:
            raise InputError(
                f"{source}: entry {index}: tool {contract.name!r} already declared by entry"
                f" {first[contract.name]}"
            )
        first[contract.name] = index
        parameters = contract.arguments if isinstance(contract.arguments, dict) else {}
        declarations.append(
            ToolDeclaration(
                name=contract.name, description=_description(entry), parameters=parameters
            )
        )
    return declarations


def load_tool_declarations(path: Path) -> list[ToolDeclaration]:
    """The declarations of the tools file at ``path`` (YAML or JSON)."""
    text = read_text_file(path)
    try:
        data = yaml.load(text, Loader=COMPOSING_LOADER)
    except yaml.YAMLError as error:
        raise InputError(f"{path}: not valid YAML or JSON: {error}") from None
    return parse_tool_declarations(data, str(path))
