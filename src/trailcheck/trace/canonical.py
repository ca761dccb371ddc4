"""JSON values compared by meaning: the key under which two arguments are "the same"."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any


def canonical_json(value: Any) -> Hashable:
    """A hashable form equal for canonically equal JSON values: key order ignored, numbers by
    value (25 == 25.0), booleans, numbers, text and null kept apart."""
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
