"""JSON values compared by meaning: the key under which two arguments are "the same"."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any


def canonical_json(value: Any) -> Hashable:
    """A hashable form equal for canonically equal JSON values: key order ignored, numbers by
    value (25 == 25.0), booleans, numbers, text and null kept apart."""
    # Exact types first, in the order arguments hold them: this runs for every call graded.
    kind = type(value)
    if kind is str:
        return ("text", value)
    if kind is dict:
        return _canonical_object(value)
    if kind is int:
        return ("number", value)
    return _canonical_other(value)


def _canonical_object(value: dict[Any, Any]) -> Hashable:
    try:
        # Unique keys: sorting the items compares keys only, never the values.
        items = sorted(value.items())
    except TypeError:  # keys of kinds that do not compare
        return _canonical_other(value)
    pairs: list[tuple[str, Hashable]] = []
    for key, item in items:
        if type(key) is not str:
            return _canonical_other(value)
        # Text and whole numbers inline: the values of most arguments.
        kind = type(item)
        if kind is str:
            pairs.append((key, ("text", item)))
        elif kind is int:
            pairs.append((key, ("number", item)))
        else:
            pairs.append((key, canonical_json(item)))
    return ("object", tuple(pairs))


def _canonical_other(value: Any) -> Hashable:
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return ("number", repr(value))
        return ("number", value)  # 25 and 25.0 are equal and hash alike
    if isinstance(value, str):
        return ("text", value)
    if value is None:
        return ("null",)
    if isinstance(value, dict):
        return ("object", tuple(sorted((str(k), canonical_json(v)) for k, v in value.items())))
    if isinstance(value, list | tuple):
        return ("array", tuple(canonical_json(item) for item in value))
    return ("other", repr(value))
