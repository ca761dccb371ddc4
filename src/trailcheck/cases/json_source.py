"""Reading a JSON dataset file into a :class:`~trailcheck.cases.document.Document`.

The standard parser checks the syntax (its messages give line and column); a second pass over the
now-valid text builds the values with the line of every object key and array item, and catches a
key given twice, which the standard parser resolves silently by keeping the last. The second pass
decodes each string token with the standard parser, so both read strings alike.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_right
from typing import Any

from trailcheck.cases.document import NESTED_TOO_DEEPLY, DataPath, Document, SourceFinding
from trailcheck.cases.problems import DatasetError, Problem

_WHITESPACE = re.compile(r"[ \t\n\r]*")
# Tokens of text already known to be valid JSON: these need not reject anything.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (JSON has no infinity or NaN)")


class _Scanner:
    """Walks valid JSON text, building values and the line of each key and item."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0, *(match.end() for match in re.finditer("\n", text))]
        self.lines: dict[DataPath, int] = {}
        self.findings: list[SourceFinding] = []

    def line(self, position: int) -> int:
        return bisect_right(self.line_starts, position)

    def skip(self, position: int) -> int:
        match = _WHITESPACE.match(self.text, position)
        assert match is not None  # the pattern matches the empty string
        return match.end()

    def value(self, position: int, path: DataPath) -> tuple[Any, int]:
        position = self.skip(position)
        char = self.text[position]
        if char == "{":
            return self._object(position + 1, path)
        if char == "[":
            return self._array(position + 1, path)
        if char == '"':
            return self._string(position)
        for literal, value in _LITERALS.items():
            if self.text.startswith(literal, position):
                return value, position + len(literal)
        return self._number(position, path)

    def _string(self, position: int) -> tuple[str, int]:
        match = _STRING.match(self.text, position)
        assert match is not None  # the text was parsed once already
        text: str = json.loads(match.group())
        return text, match.end()

    def _number(self, position: int, path: DataPath) -> tuple[Any, int]:
        match = _NUMBER.match(self.text, position)
        assert match is not None  # the text was parsed once already
        fraction, exponent = match.groups()
        if not (fraction or exponent):
            return int(match.group()), match.end()
        value = float(match.group())
        if not math.isfinite(value):
            message = f"{match.group()} is too large for a number"
            line = self.line(position)
            self.findings.append(SourceFinding(path, message, line, value_dropped=True))
            return None, match.end()
        return value, match.end()

    def _array(self, position: int, path: DataPath) -> tuple[list[Any], int]:
        items: list[Any] = []
        position = self.skip(position)
        if self.text[position] == "]":
            return items, position + 1
        while True:
            item_path = (*path, len(items))
            self.lines[item_path] = self.line(self.skip(position))
            item, position = self.value(position, item_path)
            items.append(item)
            position = self.skip(position)
            if self.text[position] == "]":
                return items, position + 1
            position += 1  # the comma

    def _skip_value(self, position: int) -> int:
        # A duplicate's value is not in the data, so neither are its lines and findings.
        kept = self.lines, self.findings
        self.lines, self.findings = {}, []
        try:
            _, position = self.value(position, ())
        finally:
            self.lines, self.findings = kept
        return position

    def _object(self, position: int, path: DataPath) -> tuple[dict[str, Any], int]:
        result: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        position = self.skip(position)
        if self.text[position] == "}":
            return result, position + 1
        while True:
            position = self.skip(position)
            line = self.line(position)
            key, position = self._string(position)
            position = self.skip(position) + 1  # the colon
            if key in first_line:
                message = f"duplicate key {key!r} (first at line {first_line[key]})"
                self.findings.append(SourceFinding((*path, key), message, line))
                position = self._skip_value(position)
            else:
                first_line[key] = line
                self.lines[(*path, key)] = line
                result[key], position = self.value(position, (*path, key))
            position = self.skip(position)
            if self.text[position] == "}":
                return result, position + 1
            position += 1  # the comma


def read_json(text: str, source: str) -> Document:
    """The document of ``text``; a DatasetError when it is not valid JSON."""
    try:
        json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        problem = Problem(source, error.lineno, None, None, f"not valid JSON: {error.msg}")
        raise DatasetError([problem]) from None
    except ValueError as error:
        raise DatasetError([Problem(source, None, None, None, str(error))]) from None
    except RecursionError:
        raise DatasetError([Problem(source, None, None, None, NESTED_TOO_DEEPLY)]) from None
    scanner = _Scanner(text)
    try:
        data, _ = scanner.value(0, ())
    except RecursionError:
        raise DatasetError([Problem(source, None, None, None, NESTED_TOO_DEEPLY)]) from None
    scanner.lines[()] = scanner.line(scanner.skip(0))
    return Document(source, data, scanner.lines, scanner.findings)
