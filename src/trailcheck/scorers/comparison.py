"""Evaluating the comparators of :mod:`trailcheck.cases.comparators` against a call's argument.

:func:`compare_field` checks one expected field of one call. Each comparator has one function
here, ``(comparator, value) -> note``, called only when the argument is given: ``None`` when the
value matches, else a note on the mismatch (``""`` when "got <value>" says it all). A missing
argument matches only ``absent``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import orjson

from trailcheck.cases import (
    AbsentComparator,
    Comparator,
    DateComparator,
    DatetimeComparator,
    ExactComparator,
    NumberComparator,
    OneOfComparator,
    PresentComparator,
    RegexComparator,
    SubsetComparator,
    TextComparator,
)
from trailcheck.scorers.assignment import min_cost_assignment
from trailcheck.scorers.dates import parse_date


@dataclass(frozen=True, slots=True)
class Mismatch:
    """``expected 2026-06-19, got 2026-06-17`` for one field."""

    expected: str
    got: str

    def __str__(self) -> str:
        return f"expected {self.expected}, got {self.got}"


def render(value: Any) -> str:
    """A value as a reason shows it: text as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, date):  # datetime too
        return value.isoformat()
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def json_equal(expected: Any, actual: Any, *, int_equals_float: bool = False) -> bool:
    """Equal as JSON values, types included (``True`` is not ``1``; ``25`` is ``25.0`` only
    with ``int_equals_float``)."""
    kind = type(expected)
    if kind is type(actual) and (kind is str or kind is int or kind is float or kind is bool):
        return bool(expected == actual)  # the common case, decided without the walk below
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        same_type = type(expected) is type(actual)
        return (same_type or int_equals_float) and expected == actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(
            json_equal(v, actual[k], int_equals_float=int_equals_float) for k, v in expected.items()
        )
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(
            json_equal(e, a, int_equals_float=int_equals_float)
            for e, a in zip(expected, actual, strict=True)
        )
    return type(expected) is type(actual) and bool(expected == actual)


def _check_exact(comparator: ExactComparator, value: Any) -> str | None:
    if json_equal(comparator.value, value, int_equals_float=comparator.int_equals_float):
        return None
    # "expected 25, got 25" would be unreadable: name the types when the renderings agree.
    if render(comparator.value) == render(value):
        return f"{type(value).__name__}, not {type(comparator.value).__name__}"
    return ""


def fold_text(
    text: str, *, case_sensitive: bool, accent_sensitive: bool, whitespace_sensitive: bool
) -> str:
    """Text with case, accents and runs of whitespace folded, each unless asked to keep it."""
    # ASCII has no accents and is its own normal form: skip the per-character pass.
    if not text.isascii():
        if not accent_sensitive:
            decomposed = unicodedata.normalize("NFKD", text)
            text = "".join(c for c in decomposed if not unicodedata.combining(c))
        text = unicodedata.normalize("NFC", text)
    if not case_sensitive:
        text = text.casefold()
    if not whitespace_sensitive:
        text = " ".join(text.split())
    return text


def _check_text(comparator: TextComparator, value: Any) -> str | None:
    if not isinstance(value, str):
        return f"{type(value).__name__}, not text"
    if value == comparator.value:
        return None  # equal text is equal folded
    case, accent, space = (
        comparator.case_sensitive,
        comparator.accent_sensitive,
        comparator.whitespace_sensitive,
    )
    folded = fold_text(
        value, case_sensitive=case, accent_sensitive=accent, whitespace_sensitive=space
    )
    expected = fold_text(
        comparator.value, case_sensitive=case, accent_sensitive=accent, whitespace_sensitive=space
    )
    return None if folded == expected else ""


def _check_number(comparator: NumberComparator, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{type(value).__name__}, not a number"
    close = math.isclose(
        value, comparator.value, rel_tol=comparator.rel_tol, abs_tol=comparator.abs_tol
    )
    return None if close else f"off by {abs(value - comparator.value):g}"


def _check_date(comparator: DateComparator, value: Any) -> str | None:
    if not isinstance(value, str):
        return f"{type(value).__name__}, not a date"
    parsed = parse_date(value, day_first=comparator.day_first)
    if parsed is None:
        return "not a date"
    return None if parsed == comparator.value else f"read as {parsed.isoformat()}"


def _check_datetime(comparator: DatetimeComparator, value: Any) -> str | None:
    if not isinstance(value, str):
        return f"{type(value).__name__}, not a date-time"
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return "not an ISO 8601 date-time"
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return "no time zone"
    difference = abs((parsed - comparator.value).total_seconds())
    return None if difference <= comparator.tolerance_seconds else f"off by {difference:g}s"


def _check_regex(comparator: RegexComparator, value: Any) -> str | None:
    if not isinstance(value, str):
        return f"{type(value).__name__}, not text"
    flags = re.IGNORECASE if comparator.ignore_case else 0
    search = re.fullmatch if comparator.full_match else re.search
    return None if search(comparator.pattern, value, flags) else ""


def _check_one_of(comparator: OneOfComparator, value: Any) -> str | None:
    return None if any(json_equal(option, value) for option in comparator.values) else ""


def _check_present(comparator: PresentComparator, value: Any) -> str | None:
    return None


def _check_absent(comparator: AbsentComparator, value: Any) -> str | None:
    return "given"


def contains(expected: Any, actual: Any) -> bool:
    """``actual`` contains ``expected``: objects by key (recursively), lists as multisets of
    containing items (paired by an optimal assignment, not first fit), anything else equal."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and contains(item, actual[key]) for key, item in expected.items()
        )
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) < len(expected):
            return False
        if not expected:
            return True
        fits = [[0 if contains(e, a) else 1 for a in actual] for e in expected]
        return all(fits[e][a] == 0 for e, a in min_cost_assignment(fits))
    return json_equal(expected, actual)


def _check_subset(comparator: SubsetComparator, value: Any) -> str | None:
    return None if contains(comparator.value, value) else ""


_CHECKS: Mapping[type[Any], Callable[[Any, Any], str | None]] = {
    ExactComparator: _check_exact,
    TextComparator: _check_text,
    NumberComparator: _check_number,
    DateComparator: _check_date,
    DatetimeComparator: _check_datetime,
    RegexComparator: _check_regex,
    OneOfComparator: _check_one_of,
    PresentComparator: _check_present,
    AbsentComparator: _check_absent,
    SubsetComparator: _check_subset,
}


def describe_expected(comparator: Comparator) -> str:
    """What a comparator asks for, as a reason's ``expected ...`` shows it."""
    if isinstance(comparator, NumberComparator):
        tolerances = [f"±{comparator.abs_tol:g}"] if comparator.abs_tol else []
        tolerances += [f"±{comparator.rel_tol:.2%}"] if comparator.rel_tol else []
        return " ".join([f"{comparator.value:g}", *tolerances])
    if isinstance(comparator, RegexComparator):
        return f"text matching /{comparator.pattern}/"
    if isinstance(comparator, OneOfComparator):
        return "one of " + ", ".join(render(option) for option in comparator.values)
    if isinstance(comparator, PresentComparator | AbsentComparator):
        return comparator.compare
    if isinstance(comparator, SubsetComparator):
        return f"containing {render(comparator.value)}"
    return render(comparator.value)


def compare_field(
    comparator: Comparator, arguments: Mapping[str, Any], key: str
) -> Mismatch | None:
    """``None`` when ``arguments[key]`` satisfies ``comparator``, else the mismatch."""
    if key not in arguments:
        if isinstance(comparator, AbsentComparator):
            return None
        return Mismatch(describe_expected(comparator), "nothing (missing)")
    value = arguments[key]
    note = _CHECKS[type(comparator)](comparator, value)
    if note is None:
        return None
    return Mismatch(describe_expected(comparator), render(value) + (f" ({note})" if note else ""))
