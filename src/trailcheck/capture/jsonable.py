"""Turning the values a live run passes around into JSON values, without losing any silently.

Tool arguments and results, snapshots, outputs and metadata are stored in a Trace, which must
round-trip through JSON. Each value goes through pydantic's JSON serializer and back, so what is
recorded is exactly what a JSON file will hold:

- what pydantic knows is converted as its JSON mode does: models and dataclasses become objects,
  tuples and sets become arrays, dates and times ISO 8601 text, ``Decimal``, ``UUID`` and paths
  text, enums their value, non-string dict keys text;
- bytes become URL-safe base64 text, and non-finite floats the text ``"NaN"``, ``"Infinity"`` or
  ``"-Infinity"`` (JSON has no such numbers);
- anything else (an open file, a client object, a cycle) becomes its ``repr()`` text, and the
  caller is told, so the span can say which fields hold a ``repr`` instead of the value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from pydantic_core import PydanticSerializationError, to_json

_JSON_AS_IS = frozenset({str, int, bool})


@dataclass(frozen=True, slots=True)
class JsonValue:
    """A value converted for JSON; ``used_repr`` is True when some part of it is a ``repr()``."""

    value: Any
    used_repr: bool


def to_json_value(value: Any) -> JsonValue:
    """``value`` as JSON data (see the module docstring for what each kind of value becomes)."""
    # Text, whole numbers, booleans and null are JSON as they are: the common case, and the
    # serializer round trip costs a few microseconds per value.
    if value is None or type(value) in _JSON_AS_IS:
        return JsonValue(value, used_repr=False)
    used_repr = False

    def unknown_as_repr(unknown: Any) -> str:
        nonlocal used_repr
        used_repr = True
        return repr(unknown)

    try:
        encoded = to_json(
            value, bytes_mode="base64", inf_nan_mode="strings", fallback=unknown_as_repr
        )
    except (PydanticSerializationError, ValueError):
        # A circular reference, or a value whose own serializer failed: keep the whole value's
        # repr rather than nothing.
        return JsonValue(repr(value), used_repr=True)
    return JsonValue(orjson.loads(encoded), used_repr=used_repr)


def to_json_dict(values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Each value of ``values`` converted; also the keys whose value holds a ``repr()``."""
    converted: dict[str, Any] = {}
    with_repr: list[str] = []
    for key, value in values.items():
        json_value = to_json_value(value)
        converted[key] = json_value.value
        if json_value.used_repr:
            with_repr.append(key)
    return converted, with_repr
