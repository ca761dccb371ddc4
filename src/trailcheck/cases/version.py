"""The version of a dataset: a hash of its canonical content, shown as ``name@<12 hex>``.

The canonical form is the dataset's JSON form with what carries no meaning taken away:

- key order (keys are sorted) and case order (cases are sorted by id, which is unique);
- whether a default was written or left out: a field of the dataset or of a case at its default
  is left out of the canonical form, so a release that adds an optional field changes no
  existing dataset's version;
- shorthand against its spelled-out form (an argument ``25`` is
  ``{"$compare": "exact", "value": 25}``): both load to the same model;
- the order of lists that are sets: the dataset's ``tools``, a case's ``failure_modes`` and
  ``source_trace_ids``;
- the time zone an instant is written in (``datetime`` comparators are hashed in UTC);
- ``25`` against ``25.0`` where the field is a number (``number`` comparators, thresholds).

Everything else is meaning, including ordered lists (expected tools, rubrics, policies) and the
types of literal values (exact comparison tells ``25`` from ``25.0``): changing it changes the
version. Review fields and notes are content too, so approving a case makes a new version.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

from pydantic import BaseModel

from trailcheck.cases.case import Case
from trailcheck.cases.comparators import CANONICAL_CONTEXT

DIGEST_CHARS = 12
_SET_FIELDS_OF_CASE = ("failure_modes", "source_trace_ids")


def canonical_form(dataset: BaseModel) -> dict[str, Any]:
    """The dataset (a :class:`~trailcheck.cases.Dataset`; typed by its base so that this module
    need not import the one that imports it) as plain JSON data in its canonical form (described
    in the module doc)."""
    data: dict[str, Any] = dataset.model_dump(
        mode="json", by_alias=True, context={CANONICAL_CONTEXT: True}
    )
    if data["tools"] is not None:
        data["tools"] = sorted(data["tools"])
    cases: list[dict[str, Any]] = data["cases"]
    for case in cases:
        for field in _SET_FIELDS_OF_CASE:
            case[field] = sorted(case[field])
    data["cases"] = sorted(
        (_without_defaults(case, Case) for case in cases),
        key=lambda case: str(case["id"]),
    )
    return _without_defaults(data, type(dataset), keep={"cases"})


@cache
def _defaults(model: type[BaseModel]) -> dict[str, Any]:
    # Once per model: a dataset of many cases would otherwise rebuild these for every case.
    return {
        name: field.get_default(call_default_factory=True)
        for name, field in model.model_fields.items()
        if not field.is_required()
    }


def _without_defaults(
    data: dict[str, Any], model: type[BaseModel], keep: frozenset[str] | set[str] = frozenset()
) -> dict[str, Any]:
    """``data`` without the fields whose value is the field's default (compared as JSON)."""
    defaults = _defaults(model)
    return {
        key: value
        for key, value in data.items()
        if key in keep or key not in defaults or value != defaults[key]
    }


def canonical_bytes(dataset: BaseModel) -> bytes:
    """The canonical form as compact JSON with sorted keys: the bytes that are hashed."""
    text = json.dumps(
        canonical_form(dataset),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )
    return text.encode()


def dataset_digest(dataset: BaseModel) -> str:
    """The full sha256 of the canonical form, in hex."""
    return hashlib.sha256(canonical_bytes(dataset)).hexdigest()


def dataset_version(dataset: BaseModel) -> str:
    """``name@<first 12 hex digits of the digest>``."""
    name = dataset.model_dump(include={"name"})["name"]
    return f"{name}@{dataset_digest(dataset)[:DIGEST_CHARS]}"
