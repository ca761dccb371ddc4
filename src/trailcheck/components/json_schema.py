"""A value checked against a JSON Schema: the subset that tool declarations use.

trailcheck's core has no JSON Schema validator among its dependencies, and the schemas met here
are small (a tool's parameters, its result, a sub-agent's output), so this module checks the
keywords they are written with and says which it does not check:

- ``type`` (one or a list; ``integer`` is a whole number, ``true`` is no number), ``enum``,
  ``const``;
- objects: ``properties``, ``required``, ``additionalProperties`` (``false`` or a schema),
  ``minProperties``, ``maxProperties``;
- arrays: ``items`` (a schema), ``prefixItems``, ``minItems``, ``maxItems``, ``uniqueItems``;
- strings: ``minLength``, ``maxLength``, ``pattern`` (Python's ``re.search``, which agrees with
  ECMA-262 on the patterns schemas use);
- numbers: ``minimum``, ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``, ``multipleOf``;
- ``allOf``, ``anyOf``, ``oneOf``, ``not``; ``$ref`` to ``#/$defs/...`` or ``#/definitions/...``
  of the same schema; ``nullable: true`` (OpenAPI's, which some declarations use); the boolean
  schemas ``true`` and ``false``.

Every other keyword is an annotation here (``format``, ``description``, ``default``,
``title``...), as ``format`` is in the specification. A schema that is not an object or a
boolean, or a ``$ref`` that leads nowhere, checks nothing (a declaration is data from traffic:
its faults are not the call's). Problems name where in the value they are (``$.items[2].sku``)
and what was expected, the first :data:`MAX_PROBLEMS` of them.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeGuard

__all__ = ["MAX_PROBLEMS", "json_type", "schema_problems"]

MAX_PROBLEMS: Final = 5
# $ref chains deeper than this are taken for a cycle and check nothing more.
_MAX_DEPTH: Final = 64


def schema_problems(value: Any, schema: Any) -> list[str]:
    """What is wrong with ``value`` against ``schema`` (see the module): empty when it conforms,
    else the first :data:`MAX_PROBLEMS` problems, each ``$.path: what was expected``."""
    problems: list[str] = []
    root = schema if isinstance(schema, Mapping) else {}
    _check(value, schema, "$", root, problems, 0)
    return problems[:MAX_PROBLEMS]


def json_type(value: Any) -> str:
    """The JSON type of a decoded value: ``null``, ``boolean``, ``integer``, ``number``,
    ``string``, ``array``, ``object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _is_type(value: Any, wanted: str) -> bool:
    actual = json_type(value)
    if wanted == "number":
        return actual in ("integer", "number")
    if wanted == "integer":
        return actual == "integer" or (actual == "number" and float(value).is_integer())
    return actual == wanted


def _check(
    value: Any, schema: Any, path: str, root: Mapping[str, Any], out: list[str], depth: int
) -> None:
    if len(out) >= MAX_PROBLEMS or depth > _MAX_DEPTH:
        return
    if schema is False:
        out.append(f"{path}: no value is allowed here")
        return
    if not isinstance(schema, Mapping):
        return  # true, or not a schema: checks nothing
    reference = schema.get("$ref")
    if isinstance(reference, str):
        _check(value, _resolve(reference, root), path, root, out, depth + 1)
    if value is None and schema.get("nullable") is True:
        return
    if not _type_and_values(value, schema, path, out):
        return  # the other keywords would only repeat that the type is wrong
    _by_type(value, schema, path, root, out, depth)
    _combinators(value, schema, path, root, out, depth)


def _by_type(
    value: Any,
    schema: Mapping[str, Any],
    path: str,
    root: Mapping[str, Any],
    out: list[str],
    depth: int,
) -> None:
    if isinstance(value, Mapping):
        _object(value, schema, path, root, out, depth)
    elif isinstance(value, list | tuple):
        _array(list(value), schema, path, root, out, depth)
    elif isinstance(value, str):
        _string(value, schema, path, out)
    elif _is_number(value):
        _number(value, schema, path, out)


def _type_and_values(value: Any, schema: Mapping[str, Any], path: str, out: list[str]) -> bool:
    wanted = schema.get("type")
    names = [wanted] if isinstance(wanted, str) else wanted if isinstance(wanted, list) else []
    names = [name for name in names if isinstance(name, str)]
    if names and not any(_is_type(value, name) for name in names):
        out.append(f"{path}: expected {' or '.join(names)}, not {json_type(value)}")
        return False
    if "const" in schema and not _equal(value, schema["const"]):
        out.append(f"{path}: expected {schema['const']!r}, not {value!r}")
    choices = schema.get("enum")
    if isinstance(choices, list) and not any(_equal(value, choice) for choice in choices):
        shown = ", ".join(repr(choice) for choice in choices[:8])
        out.append(f"{path}: {value!r} is not one of {shown}")
    return True


def _equal(left: Any, right: Any) -> bool:
    """JSON equality: ``1`` equals ``1.0``; ``true`` is not ``1``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(_equal(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(map(_equal, left, right))
    return bool(left == right)


def _object(
    value: Mapping[str, Any],
    schema: Mapping[str, Any],
    path: str,
    root: Mapping[str, Any],
    out: list[str],
    depth: int,
) -> None:
    required = schema.get("required")
    if isinstance(required, list):
        for name in required:
            if isinstance(name, str) and name not in value:
                out.append(f"{path}: {name!r} is required")
    _bounds(len(value), schema, "minProperties", "maxProperties", f"{path}: properties", out)
    properties = schema.get("properties")
    declared = properties if isinstance(properties, Mapping) else {}
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        where = f"{path}.{name}"
        if name in declared:
            _check(item, declared[name], where, root, out, depth + 1)
        elif extra is False:
            out.append(f"{path}: {name!r} is not an allowed property")
        else:
            _check(item, extra, where, root, out, depth + 1)


def _array(
    value: list[Any],
    schema: Mapping[str, Any],
    path: str,
    root: Mapping[str, Any],
    out: list[str],
    depth: int,
) -> None:
    _bounds(len(value), schema, "minItems", "maxItems", f"{path}: items", out)
    prefix = schema.get("prefixItems")
    leading = prefix if isinstance(prefix, list) else []
    for index, item in enumerate(value):
        where = f"{path}[{index}]"
        if index < len(leading):
            _check(item, leading[index], where, root, out, depth + 1)
        elif "items" in schema:
            _check(item, schema["items"], where, root, out, depth + 1)
    if schema.get("uniqueItems") is True:
        for index, item in enumerate(value):
            if any(_equal(item, earlier) for earlier in value[:index]):
                out.append(f"{path}[{index}]: repeats an earlier item")
                break


def _string(value: str, schema: Mapping[str, Any], path: str, out: list[str]) -> None:
    _bounds(len(value), schema, "minLength", "maxLength", f"{path}: length", out)
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        compiled = _compiled(pattern)
        if compiled is not None and compiled.search(value) is None:
            out.append(f"{path}: {value!r} does not match {pattern!r}")


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None  # a pattern Python cannot read checks nothing


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(value: float, schema: Mapping[str, Any], path: str, out: list[str]) -> None:
    checks: tuple[tuple[str, Callable[[float], bool], str], ...] = (
        ("minimum", lambda bound: value >= bound, ">="),
        ("maximum", lambda bound: value <= bound, "<="),
        ("exclusiveMinimum", lambda bound: value > bound, ">"),
        ("exclusiveMaximum", lambda bound: value < bound, "<"),
    )
    for keyword, holds, sign in checks:
        bound = schema.get(keyword)
        if _is_number(bound) and not holds(bound):
            out.append(f"{path}: {value!r} is not {sign} {bound!r}")
    step = schema.get("multipleOf")
    if _is_number(step) and step > 0:
        quotient = value / step
        if not math.isclose(quotient, round(quotient), rel_tol=1e-9, abs_tol=1e-9):
            out.append(f"{path}: {value!r} is not a multiple of {step!r}")


def _bounds(
    size: int, schema: Mapping[str, Any], low: str, high: str, what: str, out: list[str]
) -> None:
    least, most = schema.get(low), schema.get(high)
    if isinstance(least, int) and not isinstance(least, bool) and size < least:
        out.append(f"{what} {size} < {low} {least}")
    if isinstance(most, int) and not isinstance(most, bool) and size > most:
        out.append(f"{what} {size} > {high} {most}")


def _combinators(
    value: Any,
    schema: Mapping[str, Any],
    path: str,
    root: Mapping[str, Any],
    out: list[str],
    depth: int,
) -> None:
    every = schema.get("allOf")
    if isinstance(every, list):
        for part in every:
            _check(value, part, path, root, out, depth + 1)
    for keyword in ("anyOf", "oneOf"):
        parts = schema.get(keyword)
        if not isinstance(parts, list) or not parts:
            continue
        matching = sum(not _fails(value, part, path, root, depth) for part in parts)
        if matching == 0:
            out.append(f"{path}: matches none of the {len(parts)} alternatives of {keyword}")
        elif keyword == "oneOf" and matching > 1:
            out.append(f"{path}: matches {matching} alternatives of oneOf, not exactly one")
    if "not" in schema and not _fails(value, schema["not"], path, root, depth):
        out.append(f"{path}: matches the schema under 'not'")


def _fails(value: Any, schema: Any, path: str, root: Mapping[str, Any], depth: int) -> bool:
    found: list[str] = []
    _check(value, schema, path, root, found, depth + 1)
    return bool(found)


def _resolve(reference: str, root: Mapping[str, Any]) -> Any:
    """The part of ``root`` a local ``$ref`` names (``#/$defs/Item``); ``True`` (checks
    nothing) for any other reference."""
    if not reference.startswith("#"):
        return True
    target: Any = root
    for part in reference.removeprefix("#").split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, Mapping) and key in target:
            target = target[key]
        else:
            return True
    return target
