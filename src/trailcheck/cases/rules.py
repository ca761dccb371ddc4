"""The rules that span cases: unique ids, and tools that the dataset declares.

Written once and used twice: by :class:`~trailcheck.cases.Dataset` when it is built, and by the
loader, which reports each finding at its own file line. Both work on a case's JSON data, so the
loader can check every case, including one that is invalid for other reasons.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from trailcheck.policy import POLICY_TOOL_FIELDS
from trailcheck.specs.naming import closest_hint

# Where something is, inside the dataset or inside a case: ("policies", 0, "before").
Location = tuple[str | int, ...]


def duplicate_ids(ids: Sequence[object]) -> list[tuple[int, int]]:
    """``(index, first_index)`` for each id (that is a string) already seen at ``first_index``."""
    first: dict[str, int] = {}
    duplicates: list[tuple[int, int]] = []
    for index, case_id in enumerate(ids):
        if not isinstance(case_id, str):
            continue
        if case_id in first:
            duplicates.append((index, first[case_id]))
        else:
            first[case_id] = index
    return duplicates


def _items(value: Any) -> list[tuple[int, Any]]:
    return list(enumerate(value)) if isinstance(value, list) else []


def tool_references(case: Mapping[str, Any]) -> list[tuple[Location, str]]:
    """Every tool a case's data names, and where: ``(("policies", 0, "before"), "issue_refund")``.

    Reads what is there and skips what is malformed (validation reports that).
    """
    found: list[tuple[Location, str]] = [
        (("expected_tools", index), tool)
        for index, tool in _items(case.get("expected_tools"))
        if isinstance(tool, str)
    ]
    for index, invocation in _items(case.get("expected_arguments")):
        tool = invocation.get("tool") if isinstance(invocation, dict) else None
        if isinstance(tool, str):
            found.append((("expected_arguments", index, "tool"), tool))
    for index, fault in _items(case.get("faults")):
        tool = fault.get("tool") if isinstance(fault, dict) else None
        if isinstance(tool, str):
            found.append((("faults", index, "tool"), tool))
    for index, policy in _items(case.get("policies")):
        rule = policy.get("name") if isinstance(policy, dict) else None
        for key in POLICY_TOOL_FIELDS.get(rule, ()) if isinstance(rule, str) else ():
            if isinstance(policy.get(key), str):
                found.append((("policies", index, key), policy[key]))
    return found


def undeclared_tool_message(tool: str, declared: Collection[str]) -> str:
    """``tool 'refund' is not a declared tool (did you mean 'issue_refund'?); declared: ...``."""
    if not declared:
        return f"tool {tool!r} is not a declared tool; the dataset declares none"
    ordered = sorted(declared)
    hint = closest_hint(tool, ordered)
    return f"tool {tool!r} is not a declared tool{hint}; declared: {', '.join(ordered)}"


def undeclared_tools(
    cases: Iterable[Mapping[str, Any]], declared: Collection[str]
) -> list[tuple[Location, str]]:
    """Each reference to a tool that ``declared`` lacks, as ``(location in the dataset, message)``
    (``("cases", 2, "expected_tools", 0)``)."""
    return [
        (("cases", index, *where), undeclared_tool_message(tool, declared))
        for index, case in enumerate(cases)
        for where, tool in tool_references(case)
        if tool not in declared
    ]
