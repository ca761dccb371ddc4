"""The base of trailcheck's records (a trace, its spans and messages, a score, a grade): frozen
msgspec structs, each defined once, with the pydantic-style methods their users call.

msgspec decodes JSON straight into the structs at about the cost of parsing it, and checks each
field's type and constraints on the way; a struct's ``__post_init__`` holds the invariants that
span fields (a tool span has ``tool``; span ids are unique in a trace), run whether a record is
decoded, converted or built in code. Built in code, a struct checks its invariants but not its
field types (mypy checks those); :meth:`Record.model_validate` checks everything.

The methods keep the names pydantic gave them, so code written against the earlier models keeps
working: :meth:`~Record.model_validate`, :meth:`~Record.model_validate_json`,
:meth:`~Record.model_dump`, :meth:`~Record.model_dump_json`, :meth:`~Record.model_copy` and
:meth:`~Record.model_json_schema`. A record that does not validate raises
:class:`RecordValidationError` (a :class:`~trailcheck.errors.RecordError` and a ``ValueError``)
with the field at fault (``spans[3].end_ns``) in ``field``. Encoded, a record leaves out the
fields that hold their default; decoding restores them. A pydantic model may hold a record as a
field (``__get_pydantic_core_schema__``): msgspec validates it there too.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, Self

import msgspec
import msgspec.inspect

from trailcheck.errors import RecordError

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import CoreSchema

__all__ = ["Record", "RecordValidationError", "error_field", "field_parts", "record_error"]

# msgspec ends a validation message with the path of the value: ``... - at `$.spans[3].end_ns```.
_AT: Final = re.compile(r" - at `\$(?P<path>[^`]*)`$")
# A missing or unknown field, which msgspec reports at the path of the object holding it.
_NAMED: Final = re.compile(
    r"^Object (?:missing required|contains unknown) field `(?P<name>[^`]*)`$"
)


class RecordValidationError(RecordError, ValueError):
    """A value that is not a valid record: a RecordError naming the field at fault, and a
    ValueError, so that a pydantic model holding the record reports it as its own field's."""


# A part of a field path: ``spans``, ``[3]``.
_PART: Final = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


def field_parts(field: str | None) -> tuple[str | int, ...]:
    """``spans[3].end_ns`` as ``("spans", 3, "end_ns")``; ``()`` for None."""
    if not field:
        return ()
    return tuple(int(index) if index else name for name, index in _PART.findall(field))


def error_field(message: str) -> tuple[str, str | None]:
    """A msgspec validation message split into what is wrong and the field it names:
    ``("Expected `int` >= 0", "spans[3].end_ns")``; a missing or unknown field is named itself,
    not the object that should hold it. ``None``: the record as a whole."""
    found = _AT.search(message)
    path = ""
    if found is not None:
        message, path = message[: found.start()], found["path"].removeprefix(".")
    named = _NAMED.match(message)
    if named is not None:
        path = f"{path}.{named['name']}" if path else named["name"]
        message = "unknown field" if "unknown" in message else "required field is missing"
    return message, path or None


def record_error(error: msgspec.MsgspecError, kind: type[Record]) -> RecordValidationError:
    """A msgspec error met decoding a ``kind`` (a value that does not validate, or text that is
    not JSON) as the rejection of a record, naming the field at fault; a value outside a closed
    vocabulary is told the values it may take."""
    if not isinstance(error, msgspec.ValidationError):
        return RecordValidationError(f"not valid JSON: {error}")
    message, field = error_field(str(error))
    if message.startswith("Invalid enum value"):
        allowed = _literal_values(msgspec.inspect.type_info(kind), field_parts(field))
        if allowed:
            message += f": expected one of {', '.join(map(repr, allowed))}"
    return RecordValidationError(message, field=field)


def _literal_values(info: msgspec.inspect.Type, parts: tuple[str | int, ...]) -> tuple[Any, ...]:
    """The values of the Literal at ``parts`` inside a value of type ``info``; ``()`` when it is
    not one."""
    for part in parts:
        members = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
        if isinstance(part, int):
            lists = [m for m in members if isinstance(m, msgspec.inspect.ListType)]
            if not lists:
                return ()
            info = lists[0].item_type
        else:
            structs = [m for m in members if isinstance(m, msgspec.inspect.StructType)]
            field = next((f for s in structs for f in s.fields if f.name == part), None)
            if field is None:
                return ()
            info = field.type
    members = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
    return tuple(
        value for m in members if isinstance(m, msgspec.inspect.LiteralType) for value in m.values
    )


# Encoders and decoders are built once per record type: building one walks the type.
@functools.cache
def _json_decoder(kind: type[Record], strict: bool) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(kind, strict=strict)


_ENCODE: Final = msgspec.json.Encoder().encode


def _every_field(value: Any) -> Any:
    """``value`` as builtins with every field of every record in it, defaults included (as
    :meth:`Record.model_dump` gives them; encoding leaves the defaults out)."""
    if isinstance(value, msgspec.Struct):
        return {name: _every_field(getattr(value, name)) for name in value.__struct_fields__}
    if isinstance(value, list | tuple):
        return [_every_field(item) for item in value]
    if isinstance(value, dict):
        return {key: _every_field(item) for key, item in value.items()}
    return value


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_none(item) for item in value]
    return value


class Record(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """A frozen record with pydantic-style methods (see the module). ``gc=False``: a record
    holds values, never itself, so the garbage collector need not track the millions a bulk
    read makes; a record with derived views kept on it opts back in."""

    @classmethod
    def model_validate(cls, value: Any, *, strict: bool = False) -> Self:
        """``value`` (a mapping of builtins, or a record of this type) as a record of this type,
        every field checked; RecordValidationError naming the field otherwise. Not strict (the
        default), a number given as text is read as the number, as pydantic did."""
        if isinstance(value, cls):
            return value
        try:
            return msgspec.convert(value, cls, strict=strict)
        except msgspec.ValidationError as error:
            raise record_error(error, cls) from None

    @classmethod
    def model_validate_json(cls, data: bytes | str, *, strict: bool = True) -> Self:
        """The record that JSON ``data`` holds, every field checked; RecordValidationError naming
        the field otherwise (``field`` None for text that is not JSON). Strict (the default),
        text is not a number, as the format's JSON Schema says."""
        try:
            decoded: Self = _json_decoder(cls, strict).decode(data)
        except msgspec.MsgspecError as error:
            raise record_error(error, cls) from None
        except RecursionError:
            raise RecordValidationError("JSON is nested too deeply to read") from None
        return decoded

    def model_dump(
        self,
        *,
        mode: Literal["python", "json"] = "python",
        exclude_defaults: bool = False,
        exclude_none: bool = False,
    ) -> dict[str, Any]:
        """The record as a dict of builtins: every field (defaults too), or with
        ``exclude_defaults`` those that do not hold their default (as encoded). ``mode`` is
        accepted for pydantic's callers: the values are builtins either way."""
        del mode
        dumped: dict[str, Any] = (
            msgspec.to_builtins(self) if exclude_defaults else _every_field(self)
        )
        return _without_none(dumped) if exclude_none else dumped

    def model_dump_json(self, *, indent: int | None = None) -> str:
        """The record as JSON, fields that hold their default left out."""
        encoded = _ENCODE(self)
        if indent is not None:
            encoded = msgspec.json.format(encoded, indent=indent)
        return encoded.decode()

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        """A copy with the fields in ``update`` replaced (records are frozen, so nothing needs a
        deep copy); its invariants are checked again."""
        return msgspec.structs.replace(self, **(update or {}))

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of this record, its nested records under ``$defs``."""
        _, components = msgspec.json.schema_components([cls])
        root: dict[str, Any] = components.pop(cls.__name__)
        return {**root, "$defs": components} if components else root

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """A pydantic model's field of this type: validated by :meth:`model_validate` (a record
        is taken as it is), serialised by :meth:`model_dump`, as the model's own dump asks
        (``exclude_defaults``, ``exclude_none``)."""
        from pydantic_core import core_schema

        def dump(record: Record, info: core_schema.SerializationInfo) -> dict[str, Any]:
            return record.model_dump(
                exclude_defaults=info.exclude_defaults, exclude_none=info.exclude_none
            )

        return core_schema.no_info_plain_validator_function(
            cls.model_validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                dump, info_arg=True, when_used="always"
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """This record's JSON Schema, inlined: its nested records' references resolved."""
        (inline,), components = msgspec.json.schema_components([cls])
        resolved: JsonSchemaValue = _resolved(inline, components)
        return resolved


def _resolved(schema: Any, components: dict[str, Any]) -> Any:
    """``schema`` with every ``{"$ref": "#/$defs/Name"}`` replaced by the component it names
    (records do not contain themselves, so this ends)."""
    if isinstance(schema, dict):
        reference = schema.get("$ref")
        if isinstance(reference, str) and len(schema) == 1:
            return _resolved(components[reference.rsplit("/", 1)[-1]], components)
        return {key: _resolved(value, components) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_resolved(item, components) for item in schema]
    return schema
