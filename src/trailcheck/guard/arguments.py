"""The arguments of a typed function as a model sees them: a JSON schema and its validator.

The JSON schema of the parameters is pydantic's, for the function's signature (pydantic builds
it from a stand-in with the same parameters; no type is mapped by hand here): descriptions and
constraints come from ``Annotated[T, Field(description=..., ge=..., pattern=...)]``, a
parameter without a default is required, defaults appear as ``default``, nested models land in
``$defs``, and unknown arguments are refused (``additionalProperties: false``) unless the
function takes ``**kwargs``. Field titles are left out: they repeat the names and cost tokens.

What counts as the parameters: a bound method's ``self`` is already bound; a function defined in
a class and taken from the class skips a first ``self``/``cls``; ``*args`` is left out (a model
passes arguments by name), and a positional-only parameter is refused for the same reason.
Functions wrapped with :func:`functools.wraps` (as ``Recorder.tool`` does) are read through to
the function they wrap.

The same schema validates a model's arguments (:meth:`ArgumentsSchema.validate`): what the model
got wrong (a missing or unknown argument, a wrong type, a broken constraint) is a pydantic
``ValidationError``, and values are converted as pydantic converts them.
"""

from __future__ import annotations

import functools
import inspect
import typing
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from pydantic import PydanticSchemaGenerationError, PydanticUserError, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import ArgsKwargs, CoreSchema

from trailcheck.callables import callable_source
from trailcheck.errors import UsageError

__all__ = ["ArgumentsSchema", "arguments_schema"]

_RECEIVERS = frozenset({"self", "cls"})


@dataclass(frozen=True, slots=True)
class ArgumentsSchema:
    """The JSON schema of a function's parameters, and the validator it stands for."""

    parameters: dict[str, Any]
    _adapter: TypeAdapter[Any]

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments converted as the signature says; a pydantic ``ValidationError`` names
        each argument that is missing, unknown or of the wrong type."""
        validated: dict[str, Any] = self._adapter.validate_python(ArgsKwargs((), dict(arguments)))
        return validated


# Schemas by the function they are made from: a runner makes fresh bound methods (and fresh
# wrappers) for every trial, and building a schema costs about a millisecond. Weak keys: a
# function that goes away takes its schemas with it.
_SCHEMAS: weakref.WeakKeyDictionary[Callable[..., Any], dict[tuple[bool, str], ArgumentsSchema]]
_SCHEMAS = weakref.WeakKeyDictionary()


def arguments_schema(fn: Callable[..., Any], tool_name: str) -> ArgumentsSchema:
    """The schema of ``fn``'s arguments; ``tool_name`` names it in errors and in the schema."""
    source = callable_source(fn)
    if source is None:
        return _build_schema(fn, tool_name)
    function, bound = source
    by_kind = _SCHEMAS.setdefault(function, {})
    schema = by_kind.get((bound, tool_name))
    if schema is None:
        schema = by_kind[bound, tool_name] = _build_schema(fn, tool_name)
    return schema


def _build_schema(fn: Callable[..., Any], tool_name: str) -> ArgumentsSchema:
    stand_in = _stand_in(fn, tool_name)
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(cast(Any, stand_in))
        parameters = adapter.json_schema(schema_generator=_WithoutFieldTitles)
    except (PydanticSchemaGenerationError, PydanticUserError) as error:
        raise UsageError(
            f"tool {tool_name!r}: its parameters have no JSON schema: {error}"
        ) from None
    return ArgumentsSchema(parameters, adapter)


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
