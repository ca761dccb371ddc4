"""Reading text attributes: absent is ``None``, anything but text is a RecordError naming the
attribute."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.genai_messages import json_kind


def text_attribute(attributes: Mapping[str, Any], key: str) -> str | None:
    """A text attribute; ``None`` when absent, an error when it is not text."""
    value = attributes.get(key)
    if value is not None and not isinstance(value, str):
        raise RecordError(f"must be a string, not {json_kind(value)}", field=f"attributes.{key}")
    return value


def first_text(attributes: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = text_attribute(attributes, key)
        if value is not None:
            return value
    return None
