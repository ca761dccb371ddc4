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
    if kind is dict and all(type(k) is str for k in value):
        # Unique keys: sorting the items compares keys only, never the values.
        return ("object", tuple([(k, canonical_json(v)) for k, v in sorted(value.items())]))
    if kind is int:
        return ("number", value)
    return _canonical_other(value)


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
