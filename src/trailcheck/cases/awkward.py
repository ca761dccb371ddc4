"""Awkward tool results: correct output that an agent can easily misread, by kind.

A case's fault may return a result that is right but awkward (``ToolFault.awkward``), to test
the agent's reading of it. Each kind has a shape a result must have to be that kind, checked
when the dataset loads, so that a label cannot drift from what the fault returns:

- ``empty_list``: nothing found. ``[]``, or an object whose lists are all empty
  (``{"orders": [], "next_page": null}``).
- ``partial_match``: something close to what was asked for, not it (a near-miss email, a
  similar name). Not empty: a partial match has a match.
- ``stale``: a value as it was, not as it is (a cached record, an estimate already past). It
  carries a date or a timestamp, since staleness is read from one.
- ``paginated``: a first page of several. An object with a page marker that says more follows:
  ``next_page``, ``next_page_token``, ``next_cursor`` or ``next`` set, or ``has_more: true``,
  at its top level or in an object inside it.
- ``reads_like_error``: a success whose words sound like a failure (``{"status":
  "error_code_0", "ok": true}``): an error word in a key or a text. Not the error envelope
  ``{"error": "..."}`` alone, which *is* an error: a fault's ``error`` says that.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final, Literal, get_args

AwkwardKind = Literal["empty_list", "partial_match", "stale", "paginated", "reads_like_error"]
"""The kinds of correct but awkward results a fault may declare."""

AWKWARD_KINDS: Final[tuple[AwkwardKind, ...]] = get_args(AwkwardKind)

AWKWARD_DESCRIPTIONS: Final[dict[AwkwardKind, str]] = {
    "empty_list": "an empty list",
    "partial_match": "a partial match",
    "stale": "a stale value",
    "paginated": "a first page of several",
    "reads_like_error": "a success that reads like an error",
}
"""Each kind in words, as evidence and reports say it."""

PAGE_MARKERS: Final = ("next_page", "next_page_token", "next_cursor", "next", "has_more")
_ERROR_WORDS: Final = re.compile(
    r"error|fail|invalid|denied|declined|not found|unavailable|exception", re.IGNORECASE
)
_DATE: Final = re.compile(r"\b\d{4}-\d{2}-\d{2}")


def _leaves(value: Any) -> Iterator[Any]:
    """The scalars of a JSON value, and its objects' keys."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _is_empty(result: Any) -> bool:
    if result == []:
        return True
    lists = (
        [item for item in result.values() if isinstance(item, list)]
        if isinstance(result, dict)
        else []
    )
    return bool(lists) and all(not item for item in lists)


def _has_page_marker(result: Any) -> bool:
    if not isinstance(result, dict):
        return False
    inner = [item for item in result.values() if isinstance(item, dict)]
    return any(
        marker in level and level[marker] not in (None, False, "", 0)
        for level in (result, *inner)
        for marker in PAGE_MARKERS
    )


def _reads_like_error(result: Any) -> bool:
    if isinstance(result, dict) and set(result) == {"error"}:
        return False
    return any(isinstance(leaf, str) and _ERROR_WORDS.search(leaf) for leaf in _leaves(result))


def _has_date(result: Any) -> bool:
    return any(isinstance(leaf, str) and _DATE.search(leaf) for leaf in _leaves(result))


def _has_something(result: Any) -> bool:
    return result not in (None, [], {}, "")


_SHAPES: Final[dict[AwkwardKind, tuple[Any, str]]] = {
    "empty_list": (_is_empty, "[] or an object whose lists are all empty"),
    "partial_match": (_has_something, "a result that is not empty: a partial match has a match"),
    "stale": (_has_date, "a result with a date or a timestamp (YYYY-MM-DD...) to be stale by"),
    "paginated": (
        _has_page_marker,
        f"an object with a page marker for more: one of {', '.join(PAGE_MARKERS)} set",
    ),
    "reads_like_error": (
        _reads_like_error,
        "a success with an error word in a key or a text, and not only an error field",
    ),
}


def awkward_shape_problem(kind: AwkwardKind, result: Any) -> str | None:
    """Why ``result`` is not an awkward result of ``kind``; ``None`` when it is one."""
    fits, needs = _SHAPES[kind]
    return None if fits(result) else f"an awkward result of kind {kind} is {needs}"
