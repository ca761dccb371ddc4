"""A dataset file as read, before validation: its data, where each part of it is, and what was
wrong with it as text (duplicate keys, values JSON cannot hold).

Both readers (YAML, JSON) produce one, so validation and its messages do not depend on the format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# Where a value is in the data: ("cases", 2, "expected_arguments", 0, "tool").
DataPath = tuple[str | int, ...]
# Both readers recurse once per level of nesting; a deeper document is refused with this.
NESTED_TOO_DEEPLY = "the document is nested too deeply to read"


def format_path(path: DataPath) -> str:
    """``expected_arguments[0].arguments.date``: how problems name a field."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


@dataclass(frozen=True, slots=True)
class SourceFinding:
    """A problem of the text itself. ``line`` is where it is (for a duplicate key, its own line:
    the line table holds the first occurrence's)."""

    path: DataPath
    message: str
    line: int | None = None
    # The value at ``path`` could not be read and stands as null; validation's complaints about
    # that null would only repeat this finding.
    value_dropped: bool = False


@dataclass(frozen=True, slots=True)
class Document:
    """``data`` holds only JSON values (dicts with text keys, lists, text, numbers, booleans,
    ``None``). ``lines`` maps the path of each mapping key and list item to its 1-based line."""

    source: str
    data: Any
    lines: Mapping[DataPath, int] = field(default_factory=dict)
    findings: Sequence[SourceFinding] = ()

    def line_of(self, path: DataPath) -> int | None:
        """The line of ``path``, or of its nearest enclosing part that has one."""
        for end in range(len(path), -1, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return None
