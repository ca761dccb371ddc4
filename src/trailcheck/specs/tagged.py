"""Specs whose kind is named by one field: comparators (``$compare``) and policies (``name``).

The tag field has a default, so ``ForbiddenPolicy(tool="delete_account")`` needs no repetition in
Python, yet a dataset file cannot omit it: the file form is a tagged union, and a spec without its
tag would read back as something else (a comparator spec without ``$compare`` is a literal value).
So the tag is always serialised, even when defaults are excluded, and the JSON Schema marks it
required.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic.config import JsonDict


def _tag_key(model: type[TaggedSpec]) -> str:
    field = model.model_fields[model.tag_field]
    return field.alias or model.tag_field


def _require_tag(schema: JsonDict, model: type[Any]) -> None:
    required = schema.setdefault("required", [])
    key = _tag_key(model)
    if isinstance(required, list) and key not in required:
        required.insert(0, key)


class TaggedSpec(BaseModel):
    """Base of the tagged specs: frozen, strict, unknown fields refused, tag always written."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        strict=True,
        populate_by_name=True,
        json_schema_extra=_require_tag,
    )

    # The Python name of the field that names the kind (its alias, if any, is the file's key).
    tag_field: ClassVar[str]

    @model_serializer(mode="wrap")
    def _serialise_with_tag(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        return self.with_tag(handler(self), by_alias=bool(info.by_alias))

    def with_tag(self, data: dict[str, Any], *, by_alias: bool) -> dict[str, Any]:
        """``data`` with the tag put first (where a reader looks for it)."""
        key = _tag_key(type(self)) if by_alias else self.tag_field
        rest = {name: value for name, value in data.items() if name not in (key, self.tag_field)}
        return {key: getattr(self, self.tag_field), **rest}
