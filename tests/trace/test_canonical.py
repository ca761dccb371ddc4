from __future__ import annotations

import math

from trailcheck.trace import canonical_json


def test_key_order_and_number_form_do_not_matter() -> None:
    assert canonical_json({"a": 1, "b": [2.0]}) == canonical_json({"b": [2], "a": 1.0})
    assert hash(canonical_json({"a": 1})) == hash(canonical_json({"a": 1.0}))


def test_types_stay_apart() -> None:
    assert canonical_json(True) != canonical_json(1)
    assert canonical_json("25") != canonical_json(25)
    assert canonical_json(None) != canonical_json("null")
    assert canonical_json([1, 2]) != canonical_json([2, 1])
    assert canonical_json({"a": [1]}) != canonical_json({"a": 1})


def test_non_finite_numbers_are_keys_too() -> None:
    assert canonical_json(math.inf) == canonical_json(float("inf"))
    assert canonical_json(math.inf) != canonical_json(-math.inf)
