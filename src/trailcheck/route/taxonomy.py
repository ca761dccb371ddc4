"""Capabilities: near-duplicate tools grouped under one canonical name, validated.

A taxonomy file is ``{capability: {"direction": "read|write|none", "variants": [tool, ...]}}``.
:func:`collapse` checks it against the catalog and answers every tool's capability:

- every variant names a catalog tool, and no tool is a variant of two capabilities;
- a variant that declares a direction must declare its capability's: read and write are
  never grouped together; a variant that declares none inherits the capability's;
- a tool no capability lists is a capability of its own (named by the tool), and must then
  declare its direction in the catalog;
- a capability name may not be the name of another capability's tool.

Every problem is reported at once, one per line, naming the capability and tool.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from trailcheck.errors import InputError
from trailcheck.route.catalog import DIRECTIONS, Direction, Tool, read_json

__all__ = [
    "Capability",
    "CapabilityMap",
    "TaxonomyEntry",
    "collapse",
    "load_taxonomy",
    "parse_taxonomy",
]


@dataclass(frozen=True)
class TaxonomyEntry:
    """One capability as the file declares it."""

    direction: Direction
    variants: tuple[str, ...]


@dataclass(frozen=True)
class Capability:
    """A canonical capability, its direction and its variants (sorted by name)."""

    name: str
    direction: Direction
    variants: tuple[str, ...]


@dataclass(frozen=True)
class CapabilityMap:
    """Every tool's capability, and every capability by name."""

    capabilities: Mapping[str, Capability]
    of_tool: Mapping[str, str]

    def capability_of(self, tool: str) -> Capability:
        """The capability ``tool`` is a variant of; a KeyError names an unknown tool."""
        return self.capabilities[self.of_tool[tool]]


def _entry(name: str, body: object, where: str) -> TaxonomyEntry:
    if not isinstance(body, dict):
        raise InputError(f"{where}: capability {name!r}: expected an object")
    direction = body.get("direction")
    if direction not in DIRECTIONS:
        raise InputError(
            f"{where}: capability {name!r}: field 'direction': {direction!r} is not one of "
            + ", ".join(DIRECTIONS)
        )
    variants = body.get("variants")
    if (
        not isinstance(variants, list)
        or not variants
        or not all(isinstance(v, str) for v in variants)
    ):
        raise InputError(
            f"{where}: capability {name!r}: field 'variants': expected a non-empty list of "
            "tool names"
        )
    return TaxonomyEntry(direction=cast(Direction, direction), variants=tuple(variants))


def parse_taxonomy(data: object, where: str = "taxonomy") -> dict[str, TaxonomyEntry]:
    """The capabilities of a parsed taxonomy file, in name order."""
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object of capabilities")
    raw = cast(dict[str, Any], data)
    return {name: _entry(name, raw[name], where) for name in sorted(raw)}


def load_taxonomy(path: Path) -> dict[str, TaxonomyEntry]:
    """The capabilities of the taxonomy file at ``path``."""
    return parse_taxonomy(read_json(path), str(path))


def _grouped(
    taxonomy: Mapping[str, TaxonomyEntry], tools: Mapping[str, Tool], problems: list[str]
) -> dict[str, str]:
    of_tool: dict[str, str] = {}
    for name in sorted(taxonomy):
        entry = taxonomy[name]
        for variant in entry.variants:
            tool = tools.get(variant)
            if tool is None:
                problems.append(f"capability {name!r}: tool {variant!r} is not in the catalog")
                continue
            if variant in of_tool:
                problems.append(
                    f"capability {name!r}: tool {variant!r} is already a variant of "
                    f"{of_tool[variant]!r}"
                )
                continue
            if tool.direction is not None and tool.direction != entry.direction:
                problems.append(
                    f"capability {name!r} ({entry.direction}): tool {variant!r} declares "
                    f"direction {tool.direction!r}"
                )
            of_tool[variant] = name
    return of_tool


def collapse(tools: Iterable[Tool], taxonomy: Mapping[str, TaxonomyEntry]) -> CapabilityMap:
    """Validate ``taxonomy`` against ``tools`` and map every tool to its capability."""
    by_name = {tool.name: tool for tool in tools}
    problems: list[str] = []
    of_tool = _grouped(taxonomy, by_name, problems)
    capabilities = {
        name: Capability(name, entry.direction, tuple(sorted(set(entry.variants))))
        for name, entry in taxonomy.items()
    }
    for tool_name in sorted(set(by_name) - set(of_tool)):
        tool = by_name[tool_name]
        if tool_name in capabilities:
            problems.append(f"capability {tool_name!r} is also the name of an ungrouped tool")
        elif tool.direction is None:
            problems.append(
                f"tool {tool_name!r}: no direction: declare it in the catalog or list the "
                "tool in a capability"
            )
        else:
            capabilities[tool_name] = Capability(tool_name, tool.direction, (tool_name,))
            of_tool[tool_name] = tool_name
    if problems:
        raise InputError("invalid taxonomy:\n" + "\n".join(problems))
    return CapabilityMap(
        capabilities={name: capabilities[name] for name in sorted(capabilities)},
        of_tool={name: of_tool[name] for name in sorted(of_tool)},
    )
