"""The fields of OTLP/JSON objects as trailcheck reads them: omitted or null is protobuf's
default, anything of the wrong type a RecordError naming the field's path."""

from __future__ import annotations

from typing import Any

from trailcheck.importing.transport.otlp_ids import IdEncoding, json_id
from trailcheck.importing.transport.otlp_values import (
    JSON_SYNTAX,
    UINT32_MAX,
    UINT64_MAX,
    decode_key_values,
    field_error,
    json_integer,
    json_list,
    json_object,
)


def attributes(owner: dict[str, Any], path: str) -> dict[str, Any]:
    items = json_list(owner.get("attributes"), f"{path}.attributes")
    return decode_key_values(JSON_SYNTAX, items, f"{path}.attributes")


def timestamp(owner: dict[str, Any], key: str, path: str) -> int:
    value = owner.get(key)
    if value is None:
        return 0
    return json_integer(value, f"{path}.{key}", name=key, minimum=0, maximum=UINT64_MAX)


def uint32(owner: dict[str, Any], key: str, path: str) -> int:
    value = owner.get(key)
    if value is None:
        return 0
    return json_integer(value, f"{path}.{key}", name=key, minimum=0, maximum=UINT32_MAX)


def count(owner: dict[str, Any], path: str) -> int:
    """The ``droppedAttributesCount`` of a span, event, link, scope or resource."""
    return uint32(owner, "droppedAttributesCount", path)


def id_field(owner: dict[str, Any], key: str, size: int, path: str, ids: IdEncoding) -> str:
    """The required id at ``key`` of a span or link, as lowercase hex."""
    return json_id(required_str(owner, key, path), size, f"{path}.{key}", ids)


def required_str(owner: dict[str, Any], key: str, path: str) -> str:
    if owner.get(key) is None:
        raise field_error(f"{path}.{key}", "is missing")
    return optional_str(owner, key, path)


def optional_str(owner: dict[str, Any], key: str, path: str) -> str:
    """The string at ``key``; omitted or null is the protobuf default, the empty string."""
    value = owner.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise field_error(f"{path}.{key}", f"must be a string, got {type(value).__name__}")
    return value


def optional_object(owner: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    value = owner.get(key)
    return {} if value is None else json_object(value, f"{path}.{key}")
