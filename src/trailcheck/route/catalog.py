"""The tool catalog: what each tool is called, says it does, and declares it changes.

A catalog file is a JSON list of ``{name, description, category, direction?, synonyms?}``.
``direction`` is ``read`` (returns or delivers information, changes nothing), ``write``
(changes an account, money, a registration or an open request) or ``none`` (neither: a
utility outside the customer's data). It is declared metadata: when a tool omits it, the
taxonomy's capability supplies it; nothing ever guesses it from the words.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import orjson

from trailcheck.errors import InputError, RecordError

__all__ = ["DIRECTIONS", "Direction", "Tool", "load_catalog", "parse_catalog"]

Direction = Literal["read", "write", "none"]
DIRECTIONS: tuple[Direction, ...] = ("read", "write", "none")


@dataclass(frozen=True)
class Tool:
    """One catalog entry; ``direction`` is None when the catalog does not declare it."""

    name: str
    description: str
    category: str
    direction: Direction | None = None
    synonyms: tuple[str, ...] = ()


def read_json(path: Path) -> Any:
    """The parsed JSON of ``path``, or an :class:`InputError` naming the file."""
    try:
        return orjson.loads(path.read_bytes())
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}") from error
    except orjson.JSONDecodeError as error:
        raise InputError(f"{path}: not valid JSON: {error}") from error


def _text(entry: dict[str, Any], key: str, where: str, index: int, *, required: bool) -> str:
    value = entry.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise RecordError(f"entry {index}: must be a non-empty string", source=where, field=key)
    return value


def _tool(entry: object, where: str, index: int) -> Tool:
    if not isinstance(entry, dict):
        raise RecordError(
            f"entry {index}: expected an object, got {type(entry).__name__}", source=where
        )
    direction = entry.get("direction")
    if direction is not None and direction not in DIRECTIONS:
        raise RecordError(
            f"entry {index}: {direction!r} is not one of {', '.join(DIRECTIONS)}",
            source=where,
            field="direction",
        )
    synonyms = entry.get("synonyms", [])
    if not isinstance(synonyms, list) or not all(isinstance(s, str) for s in synonyms):
        raise RecordError(
            f"entry {index}: must be a list of strings", source=where, field="synonyms"
        )
    return Tool(
        name=_text(entry, "name", where, index, required=True),
        description=_text(entry, "description", where, index, required=True),
        category=_text(entry, "category", where, index, required=False),
        direction=cast(Direction | None, direction),
        synonyms=tuple(synonyms),
    )


def parse_catalog(data: object, where: str = "catalog") -> tuple[Tool, ...]:
    """The tools of a parsed catalog file; a duplicate name is an error naming both entries."""
    if not isinstance(data, list):
        raise InputError(f"{where}: expected a JSON list of tools, got {type(data).__name__}")
    tools = tuple(_tool(entry, where, index) for index, entry in enumerate(data))
    first: dict[str, int] = {}
    for index, tool in enumerate(tools):
        if tool.name in first:
            raise RecordError(
                f"entry {index}: tool {tool.name!r} already defined by entry {first[tool.name]}",
                source=where,
                field="name",
            )
        first[tool.name] = index
    return tools


def load_catalog(path: Path) -> tuple[Tool, ...]:
    """The tools of the catalog file at ``path``."""
    return parse_catalog(read_json(path), str(path))
