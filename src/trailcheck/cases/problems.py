"""What is wrong with a dataset file: every problem, each with its file, line, case and field."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trailcheck.errors import InputError


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of a dataset file. ``case_id`` is set when the problem is inside a case whose
    id could be read, and ``field`` is then relative to that case (``expected_arguments[0].tool``);
    otherwise ``field`` is relative to the file (``cases[3].input``, ``tools``)."""

    file: str
    line: int | None
    case_id: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        """``file:line: case 'id': field 'x': message``, with the parts that are known."""
        parts = [self.file if self.line is None else f"{self.file}:{self.line}"]
        if self.case_id is not None:
            parts.append(f"case {self.case_id!r}")
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        return ": ".join([*parts, self.message])


def _sort_key(problem: Problem) -> tuple[bool, int]:
    return (problem.line is None, problem.line or 0)


def in_file_order(problems: Sequence[Problem]) -> list[Problem]:
    """The problems by line, those without a line last."""
    return sorted(problems, key=_sort_key)


def problems_message(problems: Sequence[Problem]) -> str:
    """``file: 2 problems`` and then each problem on its own line."""
    count = len(problems)
    heading = f"{problems[0].file}: {count} problem{'s' if count > 1 else ''}"
    return "\n".join([heading, *(str(problem) for problem in problems)])


class DatasetError(InputError):
    """A dataset file that cannot be read or is not valid. ``problems`` holds every problem found,
    in file order; the message lists them one per line."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        if not problems:
            raise ValueError("a DatasetError reports at least one problem")
        self.problems = in_file_order(problems)
        super().__init__(problems_message(self.problems))
