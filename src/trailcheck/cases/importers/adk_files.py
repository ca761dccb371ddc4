"""Reading ADK's JSON files: the file being read, its criteria, the lines it reports, and
checked access to its fields (ADK's models accept snake_case and camelCase keys; so does this).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trailcheck.errors import InputError
from trailcheck.text_files import read_text_file


@dataclass
class AdkSource:
    """One evalset file being read, with its criteria and the lines found so far."""

    path: Path
    criteria: dict[str, dict[str, Any]]
    criteria_source: str
    num_runs: int
    unmapped: list[str]
    traps: list[str]
    # The traps by case id ("*": every case of the file), kept in each case's metadata too, so
    # an audit of the dataset file finds them without the source.
    traps_by_case: dict[str, list[str]] = field(default_factory=dict)
    # The criteria file's user_simulator_config: how ADK plays a conversation_scenario's user.
    simulator: dict[str, Any] = field(default_factory=dict)

    def fail(self, where: str, message: str) -> InputError:
        return InputError(f"{self.path}: {where}: {message}")

    def note(self, case: str, what: str) -> None:
        self.unmapped.append(f"{self.path}: {case}: {what}")

    def trap(self, case: str, what: str) -> None:
        self.traps.append(f"{self.path}: {case}: {what}")
        self.traps_by_case.setdefault(case, []).append(what)


def evalset_files(paths: Sequence[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.glob("*.evalset.json"))
            if not found:
                raise InputError(f"{path}: no *.evalset.json file in this folder")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise InputError(f"{path}: no such file or folder")
    if not files:
        raise InputError("no ADK evalset given")
    return files


def load_json(path: Path) -> Any:
    text = read_text_file(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"{path}: not JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None


def get_key(obj: dict[str, Any], name: str) -> Any:
    """``obj[name]``, or its camelCase spelling (ADK's models accept both), or None."""
    if name in obj:
        return obj[name]
    head, *rest = name.split("_")
    return obj.get(head + "".join(part.title() for part in rest))


def expect_object(value: Any, source: AdkSource, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise source.fail(where, f"expected an object, got {kind_of(value)}")
    return value


def expect_list(value: Any, source: AdkSource, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise source.fail(where, f"expected a list, got {kind_of(value)}")
    return value


def expect_string(value: Any, source: AdkSource, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise source.fail(where, f"expected a non-empty string, got {kind_of(value)}")
    return value


def kind_of(value: Any) -> str:
    return "nothing" if value is None else type(value).__name__
