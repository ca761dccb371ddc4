"""Reading a YAML dataset file into a :class:`~trailcheck.cases.document.Document`.

The text is composed into a node tree (safe: no constructor runs, no object is built from a tag)
and the values are built from the nodes here, which gives each mapping key and list item its line
and catches what PyYAML would let pass silently: a key given twice (PyYAML keeps the last), keys
that are not text, tags other than the core schema's, and numbers JSON cannot hold. Aliases are
followed (with a cap on the values they expand to) and merge keys (``<<``) applied, explicit keys
winning over merged ones.
"""

from __future__ import annotations

import math
from typing import Any

import yaml

from trailcheck.cases.document import NESTED_TOO_DEEPLY, DataPath, Document, SourceFinding
from trailcheck.cases.problems import DatasetError, Problem
from trailcheck.cases.yaml_core import (
    BOOL_TAG,
    COMPOSING_LOADER,
    FLOAT_TAG,
    INT_TAG,
    MAP_TAG,
    MERGE_TAG,
    NULL_TAG,
    SEQ_TAG,
    STR_TAG,
)

# Values built per document, aliases expanded: far above any real dataset, far below what a
# "billion laughs" document of nested aliases expands to.
MAX_VALUES = 1_000_000


class _TooLargeError(Exception):
    """The document expands to more than MAX_VALUES values."""


def _short_tag(tag: str) -> str:
    return tag.replace("tag:yaml.org,2002:", "!!")


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _number(tag: str, text: str) -> int | float:
    """An int or float scalar; ValueError when it is not one, or is not finite."""
    if tag == INT_TAG:
        sign = -1 if text.startswith("-") else 1
        digits = text.lstrip("+-")
        if digits[:2] in ("0o", "0x"):
            return sign * int(digits[2:], 8 if digits[1] == "o" else 16)
        return int(text)
    value = float(text.replace(".inf", "inf").replace(".Inf", "inf").replace(".INF", "inf"))
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number; JSON has no infinity or NaN")
    return value


class _Builder:
    """Builds the values of one document, recording lines and findings as it goes."""

    def __init__(self) -> None:
        self.lines: dict[DataPath, int] = {}
        self.findings: list[SourceFinding] = []
        self._budget = MAX_VALUES
        self._open: set[int] = set()  # collections being built: an alias back to one is a cycle

    def value(self, node: yaml.Node, path: DataPath) -> Any:
        self._budget -= 1
        if self._budget < 0:
            raise _TooLargeError
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, path)
        if id(node) in self._open:
            self._find(path, "an alias refers to a value that contains it", node)
            return None
        self._open.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode) and node.tag == SEQ_TAG:
                return self._sequence(node, path)
            if isinstance(node, yaml.MappingNode) and node.tag == MAP_TAG:
                return self._mapping(node, path)
            self._find(path, f"unsupported YAML tag {_short_tag(node.tag)}", node)
            return None
        finally:
            self._open.discard(id(node))

    def _find(self, path: DataPath, message: str, node: yaml.Node, *, dropped: bool = True) -> None:
        self.findings.append(SourceFinding(path, message, _line(node), value_dropped=dropped))

    def _scalar(self, node: yaml.ScalarNode, path: DataPath) -> Any:
        text = str(node.value)
        if node.tag == STR_TAG:
            return text
        if node.tag == NULL_TAG:
            return None
        if node.tag == BOOL_TAG and text.lower() in ("true", "false"):
            return text.lower() == "true"
        if node.tag in (INT_TAG, FLOAT_TAG):
            try:
                return _number(node.tag, text)
            except ValueError as error:
                self._find(path, str(error), node)
                return None
        if node.tag == BOOL_TAG:
            self._find(path, f"{text!r} is not a valid {_short_tag(node.tag)} value", node)
        else:
            self._find(path, f"unsupported YAML tag {_short_tag(node.tag)}", node)
        return None

    def _sequence(self, node: yaml.SequenceNode, path: DataPath) -> list[Any]:
        items: list[Any] = []
        for index, item in enumerate(node.value):
            self.lines[(*path, index)] = _line(item)
            items.append(self.value(item, (*path, index)))
        return items

    def _mapping(self, node: yaml.MappingNode, path: DataPath) -> dict[str, Any]:
        # Merged keys first, so that explicit keys (and their lines) replace them.
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:
                result.update(self._merged(value_node, path))
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:
                continue
            key = self._key(key_node, path)
            if key is None:
                continue
            line = _line(key_node)
            if key in first_line:
                message = f"duplicate key {key!r} (first at line {first_line[key]})"
                self.findings.append(SourceFinding((*path, key), message, line))
                continue
            first_line[key] = line
            self.lines[(*path, key)] = line
            result[key] = self.value(value_node, (*path, key))
        return result

    def _merged(self, node: yaml.Node, path: DataPath) -> dict[str, Any]:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        merged: dict[str, Any] = {}
        # Earlier sources win over later ones, as YAML merge keys specify.
        for source in reversed(sources):
            built = self.value(source, path)
            if isinstance(built, dict):
                merged.update(built)
            else:
                message = "a merge key (<<) takes a mapping or a list of mappings"
                self._find(path, message, source, dropped=False)
        return merged

    def _key(self, node: yaml.Node, path: DataPath) -> str | None:
        if isinstance(node, yaml.ScalarNode) and node.tag == STR_TAG:
            return str(node.value)
        shown = repr(node.value) if isinstance(node, yaml.ScalarNode) else "a collection"
        self._find(path, f"a key must be text (quote it): {shown}", node, dropped=False)
        return None


def _syntax_problem(source: str, error: yaml.YAMLError) -> Problem:
    if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
        context = f"{error.context}: " if error.context else ""
        line = int(error.problem_mark.line) + 1
        return Problem(source, line, None, None, f"not valid YAML: {context}{error.problem}")
    return Problem(source, None, None, None, f"not valid YAML: {error}")


def read_yaml(
    text: str, source: str, *, loader: type[yaml.SafeLoader] = COMPOSING_LOADER
) -> Document:
    """The document of ``text``; a DatasetError when it is not one YAML document."""
    builder = _Builder()
    try:
        root = yaml.compose(text, Loader=loader)
        if root is None:
            raise DatasetError([Problem(source, None, None, None, "the file holds no document")])
        builder.lines[()] = _line(root)
        data = builder.value(root, ())
    except yaml.YAMLError as error:
        raise DatasetError([_syntax_problem(source, error)]) from None
    except _TooLargeError:
        message = f"the document expands (through aliases) to more than {MAX_VALUES:,} values"
        raise DatasetError([Problem(source, None, None, None, message)]) from None
    except RecursionError:
        # Both PyYAML's composer and the builder recurse once per level of nesting.
        raise DatasetError([Problem(source, None, None, None, NESTED_TOO_DEEPLY)]) from None
    return Document(source, data, builder.lines, builder.findings)
