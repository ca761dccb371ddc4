"""Each comparator against the values a call may carry."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from pydantic import TypeAdapter

from trailcheck.cases import Comparator
from trailcheck.scorers import compare_field, parse_date

_COMPARATOR: TypeAdapter[Any] = TypeAdapter(Comparator)


def _check(spec: Any, value: Any) -> str | None:
    arguments = {} if value is _MISSING else {"f": value}
    mismatch = compare_field(_COMPARATOR.validate_python(spec), arguments, "f")
    return None if mismatch is None else str(mismatch)


_MISSING = object()


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        (25, 25, None),
        (25, 25.0, "expected 25, got 25.0"),
        ({"$compare": "exact", "value": 25, "int_equals_float": True}, 25.0, None),
        (25, "25", "expected 25, got 25 (str, not int)"),
        (True, 1, "expected true, got 1"),
        ({"a": [1, 2]}, {"a": [1, 2]}, None),
        ({"a": [1, 2]}, {"a": [2, 1]}, 'expected {"a":[1,2]}, got {"a":[2,1]}'),
        ("A-1", _MISSING, "expected A-1, got nothing (missing)"),
    ],
)
def test_exact(spec: Any, value: Any, expected: str | None) -> None:
    assert _check(spec, value) == expected


def test_text_folds_case_accents_whitespace() -> None:
    spec = {"$compare": "text", "value": "Crème  Brûlée"}
    assert _check(spec, "  creme brulee ") is None
    assert _check(spec, "creme brule") == "expected Crème  Brûlée, got creme brule"
    assert _check({**spec, "case_sensitive": True}, "crème brûlée") is not None
    assert _check({**spec, "accent_sensitive": True}, "Creme Brulee") is not None
    assert _check(spec, 3) == "expected Crème  Brûlée, got 3 (int, not text)"


def test_number_tolerances() -> None:
    assert _check({"$compare": "number", "value": 25}, 25.0) is None
    assert _check({"$compare": "number", "value": 25, "abs_tol": 0.01}, 25.009) is None
    assert _check({"$compare": "number", "value": 25, "abs_tol": 0.01}, 25.02) == (
        "expected 25 ±0.01, got 25.02 (off by 0.02)"
    )
    assert _check({"$compare": "number", "value": 100, "rel_tol": 0.1}, 109) is None
    assert _check({"$compare": "number", "value": 25}, "25") == (
        "expected 25, got 25 (str, not a number)"
    )
    assert _check({"$compare": "number", "value": 1}, True) is not None


@pytest.mark.parametrize(
    ("text", "day_first", "expected"),
    [
        ("June 19, 2026", False, date(2026, 6, 19)),
        ("jun 19th 2026", False, date(2026, 6, 19)),
        ("19 June 2026", False, date(2026, 6, 19)),
        ("2026-06-19", False, date(2026, 6, 19)),
        ("2026-06-19T10:00:00+02:00", False, date(2026, 6, 19)),
        ("19/06/2026", True, date(2026, 6, 19)),
        ("06/19/2026", False, date(2026, 6, 19)),
        ("19/06/2026", False, None),
        ("June 31, 2026", False, None),
        ("next Friday", False, None),
    ],
)
def test_parse_date(text: str, day_first: bool, expected: date | None) -> None:
    assert parse_date(text, day_first=day_first) == expected


def test_date_comparator() -> None:
    spec = {"$compare": "date", "value": "2026-06-19", "day_first": True}
    assert _check(spec, "19/06/2026") is None
    assert _check(spec, "June 19, 2026") is None
    assert _check(spec, "2026-06-17") == "expected 2026-06-19, got 2026-06-17 (read as 2026-06-17)"
    assert _check(spec, "soon") == "expected 2026-06-19, got soon (not a date)"


def test_datetime_comparator_compares_instants() -> None:
    spec = {"$compare": "datetime", "value": "2026-06-19T10:00:00+02:00"}
    assert _check(spec, "2026-06-19T08:00:00Z") is None
    assert _check(spec, "2026-06-19T08:00:00") == (
        "expected 2026-06-19T10:00:00+02:00, got 2026-06-19T08:00:00 (no time zone)"
    )
    assert _check(spec, "2026-06-19T08:00:30Z") is not None
    assert _check({**spec, "tolerance_seconds": 60}, "2026-06-19T08:00:30Z") is None


def test_regex_one_of_present_absent() -> None:
    assert _check({"$compare": "regex", "pattern": r"A-\d+"}, "A-1001") is None
    assert _check({"$compare": "regex", "pattern": r"A-\d+"}, "order A-1001") is not None
    assert (
        _check(
            {"$compare": "regex", "pattern": r"a-\d+", "full_match": False, "ignore_case": True},
            "order A-1",
        )
        is None
    )
    assert _check({"$compare": "one_of", "values": ["card", "cash"]}, "cash") is None
    assert _check({"$compare": "one_of", "values": ["card", "cash"]}, "iou") == (
        "expected one of card, cash, got iou"
    )
    assert _check({"$compare": "present"}, None) is None
    assert _check({"$compare": "present"}, _MISSING) == "expected present, got nothing (missing)"
    assert _check({"$compare": "absent"}, _MISSING) is None
    assert _check({"$compare": "absent"}, 5) == "expected absent, got 5 (given)"


def test_subset_objects_and_lists() -> None:
    spec = {"$compare": "subset", "value": {"address": {"city": "Lyon"}}}
    assert _check(spec, {"address": {"city": "Lyon", "zip": "69001"}, "name": "x"}) is None
    assert _check(spec, {"address": {"zip": "69001"}}) is not None
    items = {"$compare": "subset", "value": [{"sku": "a"}, {"sku": "a", "qty": 2}]}
    # Optimal pairing, not first fit: {"sku": "a"} must not take the only item with qty 2.
    assert _check(items, [{"sku": "a", "qty": 2}, {"sku": "a", "qty": 1}]) is None
    assert _check(items, [{"sku": "a", "qty": 2}]) is not None
    assert _check({"$compare": "subset", "value": [1, 1]}, [1, 2]) is not None
