"""Loading an online file: read as dataset files are, and every problem reported at once.

The YAML is read by :func:`~trailcheck.cases.yaml_source.read_yaml` (the YAML 1.2 core schema,
duplicate keys refused, each key's line kept) and validation errors are placed by
:func:`~trailcheck.cases.validate.validation_problems`, so a bad file reads
``online.yaml:7: field 'evaluators[1].sampling': Input should be less than or equal to 1``, as
a bad dataset would. Each evaluator and each alert is validated on its own, so one broken
entry does not hide the problems of the others; names are checked for repeats over every
entry's data, and an alert's evaluator against the names the file gives its evaluators (valid or
not: a broken evaluator's alerts are not reported again).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from trailcheck.cases.document import Document
from trailcheck.cases.problems import DatasetError, Problem, in_file_order, problems_message
from trailcheck.cases.rules import duplicate_ids
from trailcheck.cases.validate import locate, validation_problems
from trailcheck.cases.yaml_source import read_yaml
from trailcheck.errors import InputError
from trailcheck.loop import Rule
from trailcheck.online.alerts import AlertSpec, alert_kind_problem
from trailcheck.online.config import RULES_CONTEXT, Evaluator, OnlineConfig
from trailcheck.specs.naming import unknown_name_message

__all__ = ["OnlineConfigError", "load_online_config", "parse_online_config"]

_EVALUATORS, _ALERTS = "evaluators", "alerts"
_ALERT: TypeAdapter[AlertSpec] = TypeAdapter(AlertSpec)


class OnlineConfigError(InputError):
    """An online file that cannot be read or is not valid. ``problems`` holds every problem
    found, in file order; the message lists them one per line."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        if not problems:
            raise ValueError("an OnlineConfigError reports at least one problem")
        self.problems = in_file_order(problems)
        super().__init__(problems_message(self.problems))


def _names(raw: list[Any], field: str = "name") -> list[Any]:
    return [item.get(field) if isinstance(item, dict) else None for item in raw]


def _repeated_names(document: Document, key: str, raw: list[Any]) -> list[Problem]:
    names, what = _names(raw), key.removesuffix("s")
    problems = []
    for index, first in duplicate_ids(names):
        line = document.line_of((key, first, "name"))
        message = f"duplicate {what} name {names[index]!r} (first at line {line})"
        problems.append(locate(document, (key, index, "name"), message))
    return problems


def _evaluators(
    document: Document, raw: list[Any], context: dict[str, Any] | None, problems: list[Problem]
) -> list[Evaluator]:
    evaluators: list[Evaluator] = []
    for index, item in enumerate(raw):
        try:
            evaluators.append(Evaluator.model_validate(item, context=context))
        except ValidationError as error:
            problems += validation_problems(document, error, (_EVALUATORS, index))
    problems += _repeated_names(document, _EVALUATORS, raw)
    return evaluators


def _alerts(
    document: Document, raw: list[Any], evaluators: list[Any], problems: list[Problem]
) -> list[AlertSpec]:
    alerts: list[AlertSpec] = []
    for index, item in enumerate(raw):
        kind_problem = alert_kind_problem(item)
        if kind_problem is not None:  # at the kind's line: the rule's fields depend on it
            problems.append(locate(document, (_ALERTS, index, "kind"), kind_problem))
            continue
        try:
            alerts.append(_ALERT.validate_python(item))
        except ValidationError as error:
            problems += validation_problems(document, error, (_ALERTS, index))
    problems += _repeated_names(document, _ALERTS, raw)
    known = [name for name in _names(evaluators) if isinstance(name, str)]
    for index, watched in enumerate(_names(raw, "evaluator")):
        if isinstance(watched, str) and watched and watched not in known:
            message = unknown_name_message("evaluator", watched, known)
            problems.append(locate(document, (_ALERTS, index, "evaluator"), message))
    return alerts


def _validate(document: Document, rules: Sequence[Rule] | None) -> OnlineConfig:
    problems = [locate(document, f.path, f.message, f.line) for f in document.findings]
    data = document.data
    if not isinstance(data, dict):
        message = "an online file holds a mapping: evaluators, a list of evaluators"
        raise OnlineConfigError([*problems, Problem(document.source, 1, None, None, message)])
    known = (_EVALUATORS, _ALERTS)
    problems += [locate(document, (key,), "unknown field") for key in data if key not in known]
    raw = data.get(_EVALUATORS)
    if not isinstance(raw, list) or not raw:
        message = "an online file holds evaluators: a list of one or more evaluators"
        problems.append(locate(document, (_EVALUATORS,), message))
        raw = []
    raw_alerts = data.get(_ALERTS, [])
    if not isinstance(raw_alerts, list):
        message = "alerts is a list of alerts, each with a name, an evaluator and a kind"
        problems.append(locate(document, (_ALERTS,), message))
        raw_alerts = []
    context = None if rules is None else {RULES_CONTEXT: list(rules)}
    evaluators = _evaluators(document, raw, context, problems)
    alerts = _alerts(document, raw_alerts, raw, problems)
    if problems:
        raise OnlineConfigError(problems)
    return OnlineConfig(evaluators=evaluators, alerts=alerts)


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
