"""Reading datasets that must fail, and the places of their problems, for the loading tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.cases import DatasetError, DatasetFormat, Problem, load_dataset, parse_dataset


def problems_of(path: Path) -> list[Problem]:
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    return caught.value.problems


def places(problems: list[Problem]) -> list[tuple[int | None, str | None, str | None]]:
    return [(problem.line, problem.case_id, problem.field) for problem in problems]


def parse_problems(text: str, format: DatasetFormat = "yaml") -> list[Problem]:
    with pytest.raises(DatasetError) as caught:
        parse_dataset(text, format=format, source="mem.yaml")
    return caught.value.problems
