"""Tool declarations made from typed Python functions, so a tool is written once.

::

    def lookup_order(
        order_id: Annotated[str, Field(description="The order's id", pattern=r"^A-\\d+$")],
        include_items: bool = False,
    ) -> dict[str, Any]:
        \"\"\"Look up an order by its id.

        Use it before any change to an order.\"\"\"

    declare_tool(lookup_order).parameters["required"]  # ["order_id"]

The JSON schema of the parameters is pydantic's, for the function's signature (pydantic builds
it from a stand-in with the same parameters; no type is mapped by hand here): descriptions and
constraints come from ``Annotated[T, Field(...)]``, a parameter without a default is required,
defaults appear as ``default``, nested models land in ``$defs``, and unknown arguments are refused
(``additionalProperties: false``) unless the function takes ``**kwargs``. Field titles are left
out: they repeat the names and cost tokens. The description is the docstring, cleaned
(:func:`inspect.getdoc`): its first paragraph says what the tool does, the rest when to use it.

What counts as the parameters: a bound method's ``self`` is already bound; a function defined in
a class and taken from the class skips a first ``self``/``cls``; ``*args`` is left out (a model
passes arguments by name), and a positional-only parameter is refused for the same reason.
Functions wrapped with :func:`functools.wraps` (as ``Recorder.tool`` and ``record_tool`` do) are
declared from the function they wrap.

The same schema validates a model's arguments before a call (:meth:`ToolSchema.validate`): what
the model got wrong (a missing or unknown argument, a wrong type) is a pydantic
``ValidationError`` that an agent loop sends back to the model, and values are converted as
pydantic converts them (a nested model's dict becomes the model).
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from pydantic import PydanticSchemaGenerationError, PydanticUserError, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import ArgsKwargs, CoreSchema

from trailcheck.callables import callable_source
from trailcheck.errors import UsageError
from trailcheck.models.chat import ToolDeclaration

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "ToolSchema",
    "declare_tool",
    "declare_tools",
    "tool_schema",
    "tool_schemas",
]

# The arguments of a tool call whose arguments were not the JSON text of an object are
# ``{RAW_ARGUMENTS_KEY: "<the text>"}``: model clients keep what the model wrote, and an agent
# loop tells the model its arguments were invalid.
RAW_ARGUMENTS_KEY = "_raw_arguments"

# What the OpenAI API accepts as a function name (and most other providers too); checked here so
# a bad name fails when the tool is declared, not as a 400 on every trial.
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_RECEIVERS = frozenset({"self", "cls"})


@dataclass(frozen=True, slots=True)
class ToolSchema:
    """A tool's declaration and the validator of its arguments, made from one signature."""

    declaration: ToolDeclaration
    _adapter: TypeAdapter[Any]

    @property
    def name(self) -> str:
        return self.declaration.name

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments converted as the signature says; a pydantic ``ValidationError`` names
        each argument that is missing, unknown or of the wrong type."""
        validated: dict[str, Any] = self._adapter.validate_python(ArgsKwargs((), dict(arguments)))
        return validated


# Schemas by the function they are made from: a runner makes fresh bound methods (and fresh
# wrappers) for every trial, and building a schema costs about a millisecond. Weak keys: a
# function that goes away takes its schemas with it.
_SCHEMAS: weakref.WeakKeyDictionary[Callable[..., Any], dict[tuple[bool, str], ToolSchema]]
_SCHEMAS = weakref.WeakKeyDictionary()


def tool_schema(fn: Callable[..., Any], *, name: str | None = None) -> ToolSchema:
    """``fn``'s declaration (named ``name`` or its ``__name__``) and arguments validator."""
    tool_name = name or getattr(fn, "__name__", None) or ""
    if not _TOOL_NAME.match(tool_name):
        raise UsageError(
            f"tool {fn!r}: the name {tool_name!r} is not a valid tool name"
            " (1 to 64 letters, digits, '_' or '-'); pass name=..."
        )
    source = callable_source(fn)
    if source is None:
        return _build_schema(fn, tool_name)
    function, bound = source
    by_kind = _SCHEMAS.setdefault(function, {})
    schema = by_kind.get((bound, tool_name))
    if schema is None:
        schema = by_kind[bound, tool_name] = _build_schema(fn, tool_name)
    return schema


def _build_schema(fn: Callable[..., Any], tool_name: str) -> ToolSchema:
    stand_in = _stand_in(fn, tool_name)
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(cast(Any, stand_in))
        parameters = adapter.json_schema(schema_generator=_WithoutFieldTitles)
    except (PydanticSchemaGenerationError, PydanticUserError) as error:
        raise UsageError(
            f"tool {tool_name!r}: its parameters have no JSON schema: {error}"
        ) from None
    declaration = ToolDeclaration(
        name=tool_name, description=inspect.getdoc(fn) or "", parameters=parameters
    )
    return ToolSchema(declaration, adapter)


def declare_tool(fn: Callable[..., Any], *, name: str | None = None) -> ToolDeclaration:
    """The declaration a model sees for ``fn`` (see the module docstring)."""
    return tool_schema(fn, name=name).declaration


def declare_tools(fns: Iterable[Callable[..., Any]]) -> list[ToolDeclaration]:
    """A declaration for each function, in order; two tools with one name are a UsageError."""
    return [schema.declaration for schema in tool_schemas(fns)]


def tool_schemas(fns: Iterable[Callable[..., Any]]) -> list[ToolSchema]:
    """:func:`tool_schema` of each function, refusing two tools with one name."""
    schemas: list[ToolSchema] = []
    seen: dict[str, Callable[..., Any]] = {}
    for fn in fns:
        schema = tool_schema(fn)
        if schema.name in seen:
            raise UsageError(
                f"two tools are named {schema.name!r} ({seen[schema.name]!r} and {fn!r}):"
                " a model could not tell them apart; rename one"
            )
        seen[schema.name] = fn
        schemas.append(schema)
    return schemas


class _WithoutFieldTitles(GenerateJsonSchema):
    """Pydantic's schema without the ``title`` it derives from each field's name."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def generate(self, schema: CoreSchema, mode: Any = "validation") -> dict[str, Any]:
        generated = super().generate(schema, mode=mode)
        generated.pop("title", None)
        return generated


def _stand_in(fn: Callable[..., Any], tool_name: str) -> Callable[..., dict[str, Any]]:
    """A function with ``fn``'s named parameters, that returns its arguments as a dict.

    Pydantic builds its arguments schema from it; validating arguments "calls" it, which hands
    back the converted arguments rather than running the tool."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as error:  # some builtins have none
        raise UsageError(f"tool {tool_name!r}: its signature cannot be read: {error}") from None
    try:
        hints = typing.get_type_hints(_annotated(fn), include_extras=True)
    except NameError as error:  # a string annotation naming what its module does not define
        raise UsageError(
            f"tool {tool_name!r}: its annotations cannot be resolved: {error}"
        ) from None
    parameters = list(signature.parameters.values())
    unwrapped = inspect.unwrap(fn)
    if parameters and inspect.isfunction(unwrapped) and parameters[0].name in _RECEIVERS:
        parameters = parameters[1:]  # a function from a class body, taken from the class
    kept: list[inspect.Parameter] = []
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise UsageError(
                f"tool {tool_name!r}: parameter {parameter.name!r} is positional-only,"
                " but a model passes arguments by name"
            )
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        kind = (
            parameter.kind
            if parameter.kind is inspect.Parameter.VAR_KEYWORD
            else inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        annotation = hints.get(parameter.name, Any)
        kept.append(parameter.replace(kind=kind, annotation=annotation))

    def arguments(**given: Any) -> dict[str, Any]:
        return given

    arguments.__signature__ = inspect.Signature(kept)  # type: ignore[attr-defined]
    arguments.__annotations__ = {parameter.name: parameter.annotation for parameter in kept}
    arguments.__name__ = tool_name
    return arguments


def _annotated(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Where ``fn``'s parameter annotations are: itself, a partial's function, or a callable
    object's ``__call__``."""
    if inspect.isroutine(fn):
        return fn
    if isinstance(fn, functools.partial):
        return _annotated(fn.func)
    return type(fn).__call__
