"""The state scorer: the case's ``expected_state`` against the trace's ``state_after``.

Matching is partial and recursive:

- an object matches key by key; keys the expectation does not name are not checked;
- a non-empty list is a multiset of expected items, each paired with at most one item of the
  actual list by an optimal assignment (the pairing that matches the most leaves in all, ties
  broken by position); extra actual items are allowed;
- ``[]`` means the list must be empty;
- ``{"$exact": value}`` (alone in its object) means the value must equal ``value`` exactly, as
  JSON: an exact list has the same items in the same order, an exact object no other keys;
- anything else (text, number, boolean, null) must be equal, type-aware (``25`` equals
  ``25.0`` unless ``int_equals_float`` is off).

A *leaf* is a scalar, an ``[]``, an ``{}`` (an object must be there) or an ``$exact``. Value =
matched leaves / expected leaves. A missing ``state_after`` is a failing score (value 0), and an
absent ``expected_state`` produces no Score.

Differences are listed as JSON paths, list indices counting the *expected* items:
``refunds[0].amount: expected 129.0, got 12.9``.

With ``complete=True`` (the replay state scorer, whose expectation is a whole snapshot) nothing
extra is allowed either: a key or a list item the expectation does not have is a difference, and
counts its leaves in the denominator.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson

from trailcheck.cases import Case, ScorerSpec
from trailcheck.scorers.assignment import pair_most_matched
from trailcheck.scorers.comparison import json_equal
from trailcheck.scorers.registry import scorer_to_spec
from trailcheck.scorers.score import Score, ratio
from trailcheck.trace import Trace

EXACT = "$exact"
_MISSING: Any = object()
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_RENDER_LIMIT = 80


@dataclass(frozen=True, slots=True)
class WrongValue:
    """A leaf present in the state with another value than expected, and the difference as the
    reason says it (failure attribution looks for where that value came from:
    :mod:`trailcheck.scorers.attribute`)."""

    path: str
    expected: Any
    actual: Any
    difference: str


@dataclass(frozen=True, slots=True)
class StateComparison:
    """Matched and expected leaves under one expectation, each difference found, and the
    differences that are a value present but wrong."""

    matched: int
    total: int
    differences: tuple[str, ...] = ()
    wrong_values: tuple[WrongValue, ...] = ()

    @classmethod
    def combine(cls, parts: Sequence[StateComparison]) -> StateComparison:
        return cls(
            matched=sum(part.matched for part in parts),
            total=sum(part.total for part in parts),
            differences=tuple(d for part in parts for d in part.differences),
            wrong_values=tuple(w for part in parts for w in part.wrong_values),
        )


def _render(value: Any) -> str:
    if value is _MISSING:
        return "nothing (missing)"
    text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str).decode()
    return text if len(text) <= _RENDER_LIMIT else text[: _RENDER_LIMIT - 1] + "…"


def _key_path(path: str, key: str) -> str:
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{orjson.dumps(key).decode()}]"


def _exact_target(expected: dict[str, Any], path: str) -> tuple[bool, Any]:
    """``(True, value)`` for ``{"$exact": value}``; raises when ``$exact`` has company."""
    if EXACT not in expected:
        return False, None
    if len(expected) != 1:
        raise ValueError(f"{path or 'expected_state'}: {EXACT!r} stands alone in its object")
    return True, expected[EXACT]


def leaf_count(expected: Any) -> int:
    """How many leaves an expectation has (the denominator of the value)."""
    if isinstance(expected, dict):
        if EXACT in expected:
            return 1
        return sum(leaf_count(item) for item in expected.values()) or 1
    if isinstance(expected, list):
        return sum(leaf_count(item) for item in expected) or 1
    return 1


def _miss(expected: Any, difference: str) -> StateComparison:
    return StateComparison(0, leaf_count(expected), (difference,))


def _wrong(expected: Any, wanted: Any, actual: Any, path: str, difference: str) -> StateComparison:
    """A leaf of ``expected`` that is there with a value other than ``wanted`` (a missing one is
    a :func:`_miss`)."""
    if actual is _MISSING:
        return _miss(expected, difference)
    wrong = (WrongValue(path, wanted, actual, difference),)
    return StateComparison(0, leaf_count(expected), (difference,), wrong)


@dataclass(frozen=True, slots=True)
class _Comparer:
    int_equals_float: bool
    complete: bool = False

    def compare(self, expected: Any, actual: Any, path: str) -> StateComparison:
        if isinstance(expected, dict):
            return self._compare_object(expected, actual, path)
        if isinstance(expected, list):
            return self._compare_list(expected, actual, path)
        if actual is not _MISSING and json_equal(
            expected, actual, int_equals_float=self.int_equals_float
        ):
            return StateComparison(1, 1)
        difference = f"{path}: expected {_render(expected)}, got {_render(actual)}"
        return _wrong(expected, expected, actual, path, difference)

    def _compare_object(self, expected: dict[str, Any], actual: Any, path: str) -> StateComparison:
        is_exact, target = _exact_target(expected, path)
        if is_exact:
            if actual is not _MISSING and json_equal(
                target, actual, int_equals_float=self.int_equals_float
            ):
                return StateComparison(1, 1)
            difference = f"{path}: expected exactly {_render(target)}, got {_render(actual)}"
            return _wrong(expected, target, actual, path, difference)
        if not isinstance(actual, dict):
            return _miss(expected, f"{path}: expected an object, got {_render(actual)}")
        if not expected and not self.complete:
            return StateComparison(1, 1)
        parts = [
            self.compare(item, actual.get(key, _MISSING), _key_path(path, key))
            for key, item in expected.items()
        ]
        if self.complete:
            parts += [
                _miss(value, f"{_key_path(path, key)}: not expected, got {_render(value)}")
                for key, value in actual.items()
                if key not in expected
            ]
        return StateComparison.combine(parts) if parts else StateComparison(1, 1)

    def _compare_list(self, expected: list[Any], actual: Any, path: str) -> StateComparison:
        if not isinstance(actual, list):
            return _miss(expected, f"{path}: expected a list, got {_render(actual)}")
        if not expected:
            if not actual:
                return StateComparison(1, 1)
            return _miss(
                expected, f"{path}: expected an empty list, got {len(actual)}: {_render(actual)}"
            )
        results = [
            [self.compare(item, candidate, f"{path}[{i}]") for candidate in actual]
            for i, item in enumerate(expected)
        ]
        pairing = pair_most_matched([[r.matched for r in row] for row in results])
        parts = [
            results[i][pairing[i]]
            if i in pairing
            else _miss(
                item,
                f"{path}[{i}]: no item to pair with"
                f" ({len(expected)} expected, {len(actual)} present)",
            )
            for i, item in enumerate(expected)
        ]
        if self.complete:
            paired = set(pairing.values())
            parts += [
                _miss(candidate, f"{path}: not expected, got {_render(candidate)}")
                for j, candidate in enumerate(actual)
                if j not in paired
            ]
        return StateComparison.combine(parts)


def compare_state(
    expected: dict[str, Any],
    actual: dict[str, Any],
    *,
    int_equals_float: bool = True,
    complete: bool = False,
) -> StateComparison:
    """``actual`` against ``expected`` by the rules the module describes."""
    return _Comparer(int_equals_float, complete).compare(expected, actual, "")


@dataclass(frozen=True)
class StateScorer:
    """``expected_state`` against ``state_after``; passed iff value >= ``threshold``.

    ``int_equals_float``: whether ``25`` and ``25.0`` are equal (state dumps disagree on it).
    """

    name: ClassVar[str] = "state"
    version: ClassVar[str] = "1"

    threshold: float = 1.0
    int_equals_float: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold is between 0 and 1, got {self.threshold}")

    def to_spec(self) -> ScorerSpec:
        return scorer_to_spec(self)

    def score(self, trace: Trace, case: Case) -> Score | None:
        if case.expected_state is None:
            return None
        expected: dict[str, Any] = dict(case.expected_state)
        if trace.state_after is None:
            total = leaf_count(expected)
            return Score(
                scorer=self.name,
                value=0.0,
                passed=False,
                threshold=self.threshold,
                reason=(
                    f"state {ratio(0, total)}; the trace records no state_after to check"
                    f" (expected {', '.join(sorted(expected))})"
                ),
            )
        result = compare_state(expected, trace.state_after, int_equals_float=self.int_equals_float)
        return comparison_score(
            self.name, result, self.threshold, when_equal="every expected value present"
        )


def comparison_score(
    scorer: str,
    result: StateComparison,
    threshold: float,
    *,
    notes: Sequence[str] = (),
    when_equal: str,
) -> Score:
    """The Score of a state comparison: matched leaves over expected ones, each difference
    (or ``when_equal``) in the reason after ``notes``."""
    value = result.matched / result.total
    details = list(result.differences) or [when_equal]
    return Score(
        scorer=scorer,
        value=value,
        passed=value >= threshold,
        threshold=threshold,
        reason="; ".join([f"{scorer} {ratio(result.matched, result.total)}", *notes, *details]),
    )
