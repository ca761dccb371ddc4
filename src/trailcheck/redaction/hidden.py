"""What a value becomes when a rule hides it whole, its type and shape kept: a secret-named
key's value (masked) and a dropping field rule's (dropped); and a redacted key kept apart from
another that redacts alike."""

from __future__ import annotations

from typing import Any

from trailcheck.redaction.detectors import marker

__all__ = ["dropped", "masked", "unique_key"]


def masked(value: Any, rule: str) -> Any:
    """``value`` hidden whole, its shape kept: text becomes the marker, a number ``null``,
    each value of a list or mapping likewise; booleans, ``null`` and empty text stay."""
    if isinstance(value, str):
        return marker(rule) if value else value
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return None
    if isinstance(value, dict):
        return {key: masked(item, rule) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [masked(item, rule) for item in value]
    return None


def dropped(value: Any, rule: str) -> Any:
    """``value`` dropped, its type kept: text becomes the marker, a list or mapping an empty
    one, anything else ``null``."""
    if isinstance(value, str):
        return marker(rule)
    if isinstance(value, dict):
        return {}
    if isinstance(value, list | tuple):
        return []
    return None


def unique_key(key: str, mapping: dict[Any, Any]) -> str:
    """``key``, or, where a redacted key is already in ``mapping``, ``key#2``, ``key#3``..."""
    if key not in mapping:
        return key
    number = 2
    while f"{key}#{number}" in mapping:
        number += 1
    return f"{key}#{number}"
