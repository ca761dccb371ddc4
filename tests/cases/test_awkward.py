"""Awkward results a fault declares: each kind checked against the result's shape when the
dataset loads, with the problem's line; the kinds a case's faults return, once each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from trailcheck.cases import AWKWARD_KINDS, DatasetError, ToolFault, awkward_kinds, load_dataset


@pytest.mark.parametrize(
    ("kind", "fits", "does_not_fit"),
    [
        ("empty_list", [], [{"order_id": "A-1"}]),
        ("empty_list", {"orders": [], "next_page": None}, {"orders": [], "items": [1]}),
        ("empty_list", {"orders": [], "total": 0}, {"total": 0}),  # an object with no list
        ("paginated", {"orders": [1], "next_page": 2}, {"orders": [1], "next_page": None}),
        ("paginated", {"data": [1], "meta": {"has_more": True}}, {"data": [1], "has_more": False}),
        ("paginated", {"items": [1], "next_cursor": "c2"}, [1, 2, 3]),
        ("reads_like_error", {"status": "error_code_0", "ok": True}, {"status": "done"}),
        ("reads_like_error", {"verified": True, "error": None}, {"error": "boom"}),
        ("stale", {"eta": "2026-06-12", "as_of": "2026-06-01T08:00:00Z"}, {"eta": "soon"}),
        ("partial_match", [{"email": "p.nat@example.com"}], []),
        ("partial_match", {"name": "Priya N."}, None),
    ],
)
def test_each_kind_needs_a_result_of_its_shape(kind: str, fits: Any, does_not_fit: Any) -> None:
    fault = ToolFault.model_validate({"tool": "t", "result": fits, "awkward": kind})
    assert (fault.awkward, fault.result, fault.replaces_result) == (kind, fits, True)
    with pytest.raises(ValidationError, match=f"an awkward result of kind {kind} is"):
        ToolFault.model_validate({"tool": "t", "result": does_not_fit, "awkward": kind})


def test_an_error_is_not_an_awkward_result_and_unknown_kinds_are_refused() -> None:
    with pytest.raises(ValidationError, match="awkward names a kind of result: it needs result"):
        ToolFault.model_validate({"tool": "t", "error": "boom", "awkward": "reads_like_error"})
    with pytest.raises(ValidationError, match="'empty_list', 'partial_match', 'stale'"):
        ToolFault.model_validate({"tool": "t", "result": [], "awkward": "empty"})
    assert ToolFault.model_validate({"tool": "t", "result": []}).awkward is None


def test_a_cases_kinds_come_once_each_in_the_order_of_its_faults() -> None:
    faults = [
        ToolFault.model_validate(data)
        for data in (
            {"tool": "a", "first": 1, "result": {"x": [1], "next_page": 2}, "awkward": "paginated"},
            {"tool": "b", "error": "rate limited"},
            {"tool": "c", "result": [], "awkward": "empty_list"},
            {"tool": "a", "result": {"x": [2], "next_page": 3}, "awkward": "paginated"},
        )
    ]
    assert awkward_kinds(faults) == ["paginated", "empty_list"]
    assert awkward_kinds([]) == []
    assert AWKWARD_KINDS == (
        "empty_list",
        "partial_match",
        "stale",
        "paginated",
        "reads_like_error",
    )


def test_a_dataset_file_names_the_line_of_a_fault_whose_result_is_not_its_kind(
    tmp_path: Path,
) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        "name: d\n"
        "tools: [search_orders]\n"
        "cases:\n"
        "  - id: c\n"
        "    input: hi\n"
        "    faults:\n"
        "      - {tool: search_orders, result: {orders: [A-1]}, awkward: paginated}\n"
        "      - {tool: search_orders, result: [], awkward: empty_list}\n"
    )
    with pytest.raises(DatasetError) as caught:
        load_dataset(str(path))
    message = str(caught.value)
    assert f"{path}:7: case 'c': field 'faults[0]': an awkward result of kind paginated" in message
    assert "1 problem" in message
    path.write_text(path.read_text().replace("[A-1]}", "[A-1], next_page: 2}"))
    [case] = load_dataset(str(path)).cases
    assert awkward_kinds(case.faults) == ["paginated", "empty_list"]
