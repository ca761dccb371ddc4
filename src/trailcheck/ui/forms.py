"""Reading a posted HTML form (``application/x-www-form-urlencoded``, what a plain ``<form
method="post">`` sends) without a multipart parser: the UI's forms carry only short text."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qs

from trailcheck.errors import UsageError

__all__ = ["FormFields", "parse_form", "required"]

FormFields = Mapping[str, str]


def parse_form(body: bytes) -> dict[str, str]:
    """The fields of a urlencoded body; a field given twice keeps its first value, and a field
    that is not UTF-8 has its bad bytes replaced (it is shown back, never trusted)."""
    parsed = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
    return {name: values[0] for name, values in parsed.items()}


def required(form: FormFields, name: str) -> str:
    """The field ``name``, stripped; UsageError when it is missing or blank."""
    value = form.get(name, "").strip()
    if not value:
        raise UsageError(f"{name} is required")
    return value
