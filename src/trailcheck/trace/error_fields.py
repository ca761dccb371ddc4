"""The field a rejected trace names, written one way whichever decoder rejected it:
``spans[3].end_ns`` (``None``: the record as a whole, such as bad JSON or a broken invariant).

msgspec ends its messages with the path (``... - at `$.spans[3].end_ns```); pydantic gives a
location tuple, with the member of a union it tried in it (``('input', 'list[Message]', 0,
'role')``) and an error for each member. Both become the path of the value at fault.
"""

from __future__ import annotations

import re
import types
from typing import Any, Final, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from trailcheck.errors import RecordError

__all__ = [
    "field_path",
    "loc_field",
    "msgspec_error_field",
    "pydantic_error_field",
    "record_error_of",
]

# msgspec ends a validation error with the path of the value: ``... - at `$.spans[3].end_ns```.
_AT: Final = re.compile(r" - at `\$(?P<path>[^`]*)`$")
# Errors about a field of an object, which msgspec reports at the object's path.
_NAMED: Final = re.compile(
    r"^Object (?:missing required|contains unknown) field `(?P<name>[^`]*)`$"
)


def field_path(parts: tuple[str | int, ...] | list[str | int]) -> str | None:
    """``('spans', 3, 'end_ns')`` as ``spans[3].end_ns``; ``None`` for no parts."""
    text = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)
    return text.removeprefix(".") or None


def msgspec_error_field(message: str) -> tuple[str, str | None]:
    """A msgspec validation message split into what is wrong and the field it names:
    ``("Expected `int` >= 0", "spans[3].end_ns")``. A missing or unknown field is named
    itself, not the object that should hold it."""
    found = _AT.search(message)
    path = ""
    if found is not None:
        message, path = message[: found.start()], found["path"].removeprefix(".")
    named = _NAMED.match(message)
    if named is not None:
        path = f"{path}.{named['name']}" if path else named["name"]
    return message, path or None


def pydantic_error_field(error: ValidationError, model: type[BaseModel]) -> str | None:
    """The field the first problem of ``error`` (raised validating ``model``) names. Of the
    errors a union gives for its members, the one that reached deepest: the member the value
    was meant as (``input[0].role`` rather than ``input``, for a list of messages)."""
    return field_path(_first_problem(error, model)[1])


def record_error_of(error: ValidationError, model: type[BaseModel]) -> RecordError:
    """``error`` (raised validating ``model``) as the rejection of a record: its first problem
    (of a union's, the deepest), with the field it names, and how many other problems there
    are."""
    problems = error.errors(include_url=False)
    problem, path = _first_problem(error, model)
    cause = problem.get("ctx", {}).get("error")
    message = str(cause) if isinstance(cause, ValueError) else problem["msg"]
    first = _path(problems[0]["loc"], model)
    others = sum(1 for p in problems if _path(p["loc"], model)[: len(first)] != first)
    if others:
        message += f" (and {others} more problem(s))"
    return RecordError(message, field=field_path(path))


def _first_problem(
    error: ValidationError, model: type[BaseModel]
) -> tuple[ErrorDetails, list[str | int]]:
    """The first problem and its path; of a union's problems, the deepest."""
    problems = error.errors(include_url=False)
    chosen, first = problems[0], _path(problems[0]["loc"], model)
    deepest = first
    for problem in problems[1:]:
        path = _path(problem["loc"], model)
        if path[: len(first)] == first and len(path) > len(deepest):
            chosen, deepest = problem, path
    return chosen, deepest


def loc_field(loc: tuple[str | int, ...], model: type[BaseModel]) -> str | None:
    """The field a pydantic error location names, without union-member tags:
    ``('input', 'list[Message]', 0, 'role')`` in a Trace is ``input[0].role``."""
    return field_path(_path(loc, model))


def _path(loc: tuple[str | int, ...], model: type[BaseModel]) -> list[str | int]:
    """``loc`` without the union-member tags pydantic puts in it, found by walking the
    model's field types along it."""
    path: list[str | int] = []
    kind: Any = model
    position = 0
    while position < len(loc):
        members = _members(kind)
        if len(members) > 1:
            # ``loc[position]`` names the member tried; the part after it says which one.
            position += 1
            after = loc[position] if position < len(loc) else None
            kind = next((m for m in members if _is_list(m) == isinstance(after, int)), Any)
            continue
        kind = members[0] if members else Any
        part = loc[position]
        path.append(part)
        kind = _inner(kind, part)
        position += 1
    return path


def _members(kind: Any) -> list[Any]:
    """The types a value of ``kind`` may be, less ``None``."""
    if get_origin(kind) in (Union, types.UnionType):
        return [member for member in get_args(kind) if member is not type(None)]
    return [kind]


def _is_list(kind: Any) -> bool:
    return get_origin(kind) is list


def _inner(kind: Any, part: str | int) -> Any:
    """The type of the value at ``part`` inside a value of ``kind``."""
    if isinstance(kind, type) and issubclass(kind, BaseModel) and isinstance(part, str):
        field = kind.model_fields.get(part)
        return Any if field is None else field.annotation
    if _is_list(kind) and isinstance(part, int):
        return get_args(kind)[0]
    return Any
