"""Comparators: how one expected argument field is compared with the value a tool was called with.

In a dataset file a field's expectation is either a plain JSON value, which is shorthand for
``{"$compare": "exact", "value": ...}``, or a comparator spec: an object with a ``$compare`` key
naming one of :data:`COMPARATOR_NAMES`, and that comparator's settings::

    arguments:
      order_id: A-1001                                   # exact
      amount: {$compare: number, value: 25, abs_tol: 0.01}
      date: {$compare: date, value: "2026-06-19", day_first: true}

``$compare`` is reserved: a literal object that itself has a ``$compare`` key is written out in
full, ``{"$compare": "exact", "value": {...}}``. The set is closed; these models are the settings
only, and the arguments scorer evaluates them.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BeforeValidator,
    Discriminator,
    Field,
    FieldSerializationInfo,
    GetJsonSchemaHandler,
    JsonValue,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    Tag,
    field_serializer,
    field_validator,
    model_serializer,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from trailcheck.specs.naming import unknown_name_message
from trailcheck.specs.patterns import valid_regex
from trailcheck.specs.tagged import TaggedSpec

COMPARE_KEY = "$compare"
# Serialisation context key under which the canonical form (the version hash) is produced.
CANONICAL_CONTEXT = "trailcheck.canonical"
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class ExactComparator(TaggedSpec):
    """Equal as JSON values, types included: ``"25"`` is never ``25``, and ``25`` is not ``25.0``
    unless ``int_equals_float`` is set. Objects compare key by key, lists item by item."""

    tag_field = "compare"
    compare: Literal["exact"] = Field("exact", alias=COMPARE_KEY, title="Comparator")
    value: JsonValue
    int_equals_float: bool = False

    @model_serializer(mode="wrap")
    def _serialise_with_tag(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        # The shorthand form, when it reads back as this same spec: files stay as people write them.
        if self.is_shorthand:
            return handler(self)["value"]
        return self.with_tag(handler(self), by_alias=bool(info.by_alias))

    @property
    def is_shorthand(self) -> bool:
        """Whether the plain value stands for this spec (default settings, no ``$compare`` key)."""
        reserved = isinstance(self.value, dict) and COMPARE_KEY in self.value
        return not self.int_equals_float and not reserved


class TextComparator(TaggedSpec):
    """Equal as text after folding case, accents and runs of whitespace (each unless asked not
    to)."""

    tag_field = "compare"
    compare: Literal["text"] = Field("text", alias=COMPARE_KEY, title="Comparator")
    value: str
    case_sensitive: bool = False
    accent_sensitive: bool = False
    whitespace_sensitive: bool = False


class NumberComparator(TaggedSpec):
    """A number within ``abs_tol`` or within ``rel_tol`` of ``value`` (both 0: equal as numbers,
    so 25 matches 25.0). Numeric text in the call is not a number."""

    tag_field = "compare"
    compare: Literal["number"] = Field("number", alias=COMPARE_KEY, title="Comparator")
    value: float = Field(allow_inf_nan=False)
    abs_tol: float = Field(0.0, ge=0, allow_inf_nan=False)
    rel_tol: float = Field(0.0, ge=0, allow_inf_nan=False)


def _iso_date_text(value: Any) -> Any:
    # Pydantic would also take timestamps and midnight datetimes; an expectation is written plainly.
    if isinstance(value, str) and not _ISO_DATE.fullmatch(value):
        raise ValueError(f"expected a date as YYYY-MM-DD, got {value!r}")
    if not isinstance(value, str | date):
        raise ValueError(f"expected a date as YYYY-MM-DD text, got {type(value).__name__}")
    return value


class DateComparator(TaggedSpec):
    """The same calendar day. ``value`` is ISO (``2026-06-19``); the call's value may be written in
    common forms (``June 19, 2026``, ``2026-06-19``, ``19/06/2026``); ``day_first`` says how to read
    an all-numeric form."""

    tag_field = "compare"
    compare: Literal["date"] = Field("date", alias=COMPARE_KEY, title="Comparator")
    value: Annotated[date, BeforeValidator(_iso_date_text), Field(strict=False)]
    day_first: bool = False


def _datetime_text(value: Any) -> Any:
    if not isinstance(value, str | datetime):
        raise ValueError(f"expected an ISO 8601 date-time text, got {type(value).__name__}")
    return value


class DatetimeComparator(TaggedSpec):
    """The same instant, within ``tolerance_seconds``. ``value`` carries its time zone."""

    tag_field = "compare"
    compare: Literal["datetime"] = Field("datetime", alias=COMPARE_KEY, title="Comparator")
    value: Annotated[AwareDatetime, BeforeValidator(_datetime_text), Field(strict=False)]
    tolerance_seconds: float = Field(0.0, ge=0, allow_inf_nan=False)

    @field_serializer("value", mode="wrap")
    def _instant(
        self, value: datetime, handler: SerializerFunctionWrapHandler, info: FieldSerializationInfo
    ) -> Any:
        # The same instant written in another zone means the same: the canonical form is in UTC.
        canonical = isinstance(info.context, dict) and info.context.get(CANONICAL_CONTEXT)
        return handler(value.astimezone(UTC) if canonical else value)


class RegexComparator(TaggedSpec):
    """Text matching ``pattern`` (Python syntax): the whole text, or anywhere when ``full_match``
    is false."""

    tag_field = "compare"
    compare: Literal["regex"] = Field("regex", alias=COMPARE_KEY, title="Comparator")
    pattern: str
    ignore_case: bool = False
    full_match: bool = True

    _compiles = field_validator("pattern")(valid_regex)


class OneOfComparator(TaggedSpec):
    """Exactly equal (as ``exact``) to one of ``values``."""

    tag_field = "compare"
    compare: Literal["one_of"] = Field("one_of", alias=COMPARE_KEY, title="Comparator")
    values: list[JsonValue] = Field(min_length=1)


class PresentComparator(TaggedSpec):
    """The argument is given, whatever its value (``null`` included)."""

    tag_field = "compare"
    compare: Literal["present"] = Field("present", alias=COMPARE_KEY, title="Comparator")


class AbsentComparator(TaggedSpec):
    """The argument is not given at all."""

    tag_field = "compare"
    compare: Literal["absent"] = Field("absent", alias=COMPARE_KEY, title="Comparator")


class SubsetComparator(TaggedSpec):
    """Containment: an object whose keys include ``value``'s, with those values equal (recursively
    contained); a list that contains each of ``value``'s items."""

    tag_field = "compare"
    compare: Literal["subset"] = Field("subset", alias=COMPARE_KEY, title="Comparator")
    value: dict[str, JsonValue] | list[JsonValue]


_COMPARATORS: tuple[type[TaggedSpec], ...] = (
    ExactComparator,
    TextComparator,
    NumberComparator,
    DateComparator,
    DatetimeComparator,
    RegexComparator,
    OneOfComparator,
    PresentComparator,
    AbsentComparator,
    SubsetComparator,
)
COMPARATOR_NAMES: tuple[str, ...] = tuple(
    str(model.model_fields["compare"].default) for model in _COMPARATORS
)


def _as_spec(value: Any) -> Any:
    """A plain value becomes an exact spec; a spec's ``$compare`` must name a comparator."""
    if isinstance(value, TaggedSpec):
        return value
    if not (isinstance(value, dict) and COMPARE_KEY in value):
        return {COMPARE_KEY: "exact", "value": value}
    name = value[COMPARE_KEY]
    if name not in COMPARATOR_NAMES:
        raise ValueError(unknown_name_message("comparator", name, COMPARATOR_NAMES))
    return value


def _comparator_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        name = value.get(COMPARE_KEY)
        return name if isinstance(name, str) else None
    name = getattr(value, "compare", None)
    return name if isinstance(name, str) else None


class _WithShorthandSchema:
    """JSON Schema of a field expectation: a comparator spec, or any value that is not an object
    with ``$compare`` (the exact shorthand)."""

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        shorthand = {
            "description": "Shorthand for an exact comparison with this value.",
            "not": {"type": "object", "required": [COMPARE_KEY]},
        }
        return {"anyOf": [handler(core_schema), shorthand]}


Comparator = Annotated[
    Annotated[ExactComparator, Tag("exact")]
    | Annotated[TextComparator, Tag("text")]
    | Annotated[NumberComparator, Tag("number")]
    | Annotated[DateComparator, Tag("date")]
    | Annotated[DatetimeComparator, Tag("datetime")]
    | Annotated[RegexComparator, Tag("regex")]
    | Annotated[OneOfComparator, Tag("one_of")]
    | Annotated[PresentComparator, Tag("present")]
    | Annotated[AbsentComparator, Tag("absent")]
    | Annotated[SubsetComparator, Tag("subset")],
    Discriminator(_comparator_tag),
    BeforeValidator(_as_spec),
    _WithShorthandSchema(),
]
"""One field's expectation: any comparator spec (a plain value validates as ``exact``)."""
