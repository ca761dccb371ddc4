"""Tool declarations made from typed Python functions, so a tool is written once.

::

    def lookup_order(
        order_id: Annotated[str, Field(description="The order's id", pattern=r"^A-\\d+$")],
        include_items: bool = False,
    ) -> dict[str, Any]:
        \"\"\"Look up an order by its id.

        Use it before any change to an order.\"\"\"

    declare_tool(lookup_order).parameters["required"]  # ["order_id"]

A declaration is the model's view of a tool contract (:mod:`trailcheck.guard.tools`, where the
rules live): its name, its description (the docstring, cleaned, then the instructions of its
argument rules) and the JSON schema of its parameters, which pydantic makes from the signature
with the descriptions and constraints of ``Annotated[T, Field(...)]`` (see
:mod:`trailcheck.guard.arguments`).

The same schema validates a model's arguments before a call (:meth:`ToolSchema.validate`): what
the model got wrong (a missing or unknown argument, a wrong type) is a pydantic
``ValidationError``, and values are converted as pydantic converts them (a nested model's dict
becomes the model). The argument rules are checked by the contract, :meth:`Tool.validate`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from trailcheck.guard.tools import RAW_ARGUMENTS_KEY, Tool, as_tool, as_tools
from trailcheck.models.chat import ToolDeclaration

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "ToolSchema",
    "declaration_of",
    "declare_tool",
    "declare_tools",
    "tool_schema",
    "tool_schemas",
]


@dataclass(frozen=True, slots=True)
class ToolSchema:
    """A tool's declaration and its contract, made from one signature."""

    declaration: ToolDeclaration
    tool: Tool

    @property
    def name(self) -> str:
        return self.declaration.name

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments converted as the signature says; a pydantic ``ValidationError`` names
        each argument that is missing, unknown or of the wrong type."""
        return self.tool.schema.validate(arguments)


def declaration_of(tool: Tool) -> ToolDeclaration:
    """What a model is told about ``tool``."""
    return ToolDeclaration(name=tool.name, description=tool.description, parameters=tool.parameters)


def tool_schema(fn: Callable[..., Any], *, name: str | None = None) -> ToolSchema:
    """``fn``'s declaration (named ``name`` or its ``__name__``) and contract."""
    tool = as_tool(fn, name=name)
    return ToolSchema(declaration_of(tool), tool)


def declare_tool(fn: Callable[..., Any], *, name: str | None = None) -> ToolDeclaration:
    """The declaration a model sees for ``fn`` (see the module docstring)."""
    return declaration_of(as_tool(fn, name=name))


def declare_tools(fns: Iterable[Callable[..., Any]]) -> list[ToolDeclaration]:
    """A declaration for each function, in order; two tools with one name are a UsageError."""
    return [declaration_of(tool) for tool in as_tools(fns)]


def tool_schemas(fns: Iterable[Callable[..., Any]]) -> list[ToolSchema]:
    """:func:`tool_schema` of each function, refusing two tools with one name."""
    return [ToolSchema(declaration_of(tool), tool) for tool in as_tools(fns)]
