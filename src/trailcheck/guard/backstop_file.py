"""Backstop rules from a YAML (or JSON) file, with errors that name the file, line and field.

::

    backstop = load_backstop(Path("claims-backstop.yaml"))
    # InputError: claims-backstop.yaml:7: rules[1].when[0].op: Input should be '>=', ...

The file is parsed with PyYAML's safe loader and validated by :class:`~.backstop.Backstop`;
each validation error is placed on the line of the value it is about (its YAML node), or of
the nearest enclosing one when the value is missing.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from trailcheck.errors import InputError
from trailcheck.guard.backstop import Backstop

__all__ = ["load_backstop", "parse_backstop"]


def _node_at(root: yaml.Node, location: tuple[int | str, ...]) -> yaml.Node:
    """The deepest node of ``root`` along ``location`` (keys and list indices)."""
    node = root
    for part in location:
        if isinstance(node, yaml.MappingNode):
            found = [value for key, value in node.value if key.value == str(part)]
            if not found:
                return node
            node = found[0]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                return node
            node = node.value[part]
        else:
            return node
    return node


def _problems(error: ValidationError, root: yaml.Node | None, source: str) -> str:
    lines = []
    for problem in error.errors(include_url=False):
        location = tuple(part for part in problem["loc"] if isinstance(part, int | str))
        field = ".".join(
            f"[{part}]" if isinstance(part, int) else str(part) for part in location
        ).replace(".[", "[")
        line = _node_at(root, location).start_mark.line + 1 if root is not None else 1
        lines.append(f"{source}:{line}: {field or 'backstop'}: {problem['msg']}")
    return "\n".join(lines)


def parse_backstop(text: str, source: str = "<backstop>") -> Backstop:
    """The backstop in ``text`` (YAML, or JSON, which YAML reads); InputError names
    ``source``, the line and the field of each problem."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise InputError(f"{source}:{line}: not valid YAML: {error}") from None
    try:
        return Backstop.model_validate(data)
    except ValidationError as error:
        raise InputError(_problems(error, root, source)) from None


def load_backstop(path: Path) -> Backstop:
    """The backstop in the file at ``path``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"{path}: cannot read the backstop file: {error.strerror}") from None
    return parse_backstop(text, str(path))
