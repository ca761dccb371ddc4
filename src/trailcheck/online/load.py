"""Loading an online file: read as dataset files are, and every problem reported at once.

The YAML is read by :func:`~trailcheck.cases.yaml_source.read_yaml` (the YAML 1.2 core schema,
duplicate keys refused, each key's line kept) and validation errors are placed by
:func:`~trailcheck.cases.validate.validation_problems`, so a bad file reads
``online.yaml:7: field 'evaluators[1].sampling': Input should be less than or equal to 1``, as
a bad dataset would. Each evaluator is validated on its own, so one broken evaluator does not
hide the problems of the others; names are checked for repeats over every evaluator's data.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from trailcheck.cases.document import Document
from trailcheck.cases.problems import DatasetError, Problem, in_file_order, problems_message
from trailcheck.cases.rules import duplicate_ids
from trailcheck.cases.validate import locate, validation_problems
from trailcheck.cases.yaml_source import read_yaml
from trailcheck.errors import InputError
from trailcheck.loop import Rule
from trailcheck.online.config import RULES_CONTEXT, Evaluator, OnlineConfig

__all__ = ["OnlineConfigError", "load_online_config", "parse_online_config"]

_TOP_LEVEL = "evaluators"


class OnlineConfigError(InputError):
    """An online file that cannot be read or is not valid. ``problems`` holds every problem
    found, in file order; the message lists them one per line."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        if not problems:
            raise ValueError("an OnlineConfigError reports at least one problem")
        self.problems = in_file_order(problems)
        super().__init__(problems_message(self.problems))


def _evaluators(
    document: Document, raw: list[Any], context: dict[str, Any] | None, problems: list[Problem]
) -> list[Evaluator]:
    evaluators: list[Evaluator] = []
    for index, item in enumerate(raw):
        try:
            evaluators.append(Evaluator.model_validate(item, context=context))
        except ValidationError as error:
            problems += validation_problems(document, error, (_TOP_LEVEL, index))
    names = [item.get("name") if isinstance(item, dict) else None for item in raw]
    for index, first in duplicate_ids(names):
        line = document.line_of((_TOP_LEVEL, first, "name"))
        message = f"duplicate evaluator name {names[index]!r} (first at line {line})"
        problems.append(locate(document, (_TOP_LEVEL, index, "name"), message))
    return evaluators


def _validate(document: Document, rules: Sequence[Rule] | None) -> OnlineConfig:
    problems = [locate(document, f.path, f.message, f.line) for f in document.findings]
    data = document.data
    if not isinstance(data, dict):
        message = "an online file holds a mapping: evaluators, a list of evaluators"
        raise OnlineConfigError([*problems, Problem(document.source, 1, None, None, message)])
    problems += [locate(document, (key,), "unknown field") for key in data if key != _TOP_LEVEL]
    raw = data.get(_TOP_LEVEL)
    if not isinstance(raw, list) or not raw:
        message = "an online file holds evaluators: a list of one or more evaluators"
        problems.append(locate(document, (_TOP_LEVEL,), message))
        raw = []
    context = None if rules is None else {RULES_CONTEXT: list(rules)}
    evaluators = _evaluators(document, raw, context, problems)
    if problems:
        raise OnlineConfigError(problems)
    return OnlineConfig(evaluators=evaluators)


def parse_online_config(
    text: str | bytes, *, source: str = "<online>", rules: Sequence[Rule] | None = None
) -> OnlineConfig:
    """The online evaluators written in ``text``; ``source`` names it in problems.

    ``rule:`` names are checked against ``rules`` (the built-in detection rules when ``None``;
    pass the built-ins and a custom rule file's rules together to allow both). Raises
    OnlineConfigError listing every problem.
    """
    if isinstance(text, bytes):
        try:
            # utf-8-sig: a byte order mark, as some editors on Windows write, is not content.
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            message = f"not UTF-8 text: {error.reason} at byte {error.start}"
            raise OnlineConfigError([Problem(source, None, None, None, message)]) from None
    try:
        document = read_yaml(text, source)
    except DatasetError as error:  # the YAML reader's own problems (syntax, emptiness)
        raise OnlineConfigError(error.problems) from None
    return _validate(document, rules)


def load_online_config(
    path: str | os.PathLike[str], *, rules: Sequence[Rule] | None = None
) -> OnlineConfig:
    """The online evaluators in the YAML file at ``path`` (see :func:`parse_online_config`)."""
    source = os.fspath(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        message = f"cannot read the file: {error.strerror or error}"
        raise OnlineConfigError([Problem(source, None, None, None, message)]) from None
    return parse_online_config(raw, source=source, rules=rules)
