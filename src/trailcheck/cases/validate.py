"""Validating a read document into a Dataset, reporting every problem at once.

The header (every field but ``cases``) and each case are validated separately, so that a broken
case does not hide the problems of the others; the rules that span cases (duplicate ids,
undeclared tools) are checked over the data of every case, valid or not. Pydantic's error
locations are mapped back onto the file: union branch names in a location (``messages``,
``number``) are not in the data and are skipped, and the line is that of the nearest enclosing
key or item.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from trailcheck.cases.case import Case
from trailcheck.cases.dataset import Dataset
from trailcheck.cases.document import DataPath, Document, format_path
from trailcheck.cases.problems import DatasetError, Problem
from trailcheck.cases.rules import duplicate_ids, undeclared_tools
from trailcheck.errors import RecordError
from trailcheck.trace.record import field_parts


def _data_path(data: Any, location: tuple[int | str, ...]) -> DataPath:
    """The part of a pydantic error location that is in the data.

    A missing field's name is kept (the last part, under a mapping): it names the field to add.
    """
    node, path = data, []
    for index, part in enumerate(location):
        in_mapping = isinstance(node, dict) and isinstance(part, str) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if in_mapping or in_list:
            node = node[part]
        elif isinstance(node, dict) and index == len(location) - 1:
            node = None
        else:
            continue
        path.append(part)
    return tuple(path)


def _case_id(data: Any, path: DataPath) -> str | None:
    if len(path) < 2 or path[0] != "cases" or not isinstance(path[1], int):
        return None
    cases = data.get("cases") if isinstance(data, dict) else None
    if not isinstance(cases, list) or not 0 <= path[1] < len(cases):
        return None
    case_id = cases[path[1]].get("id") if isinstance(cases[path[1]], dict) else None
    return case_id if isinstance(case_id, str) and case_id else None


def locate(document: Document, path: DataPath, message: str, line: int | None = None) -> Problem:
    """A problem at ``path`` of the document, with its line, case id and field."""
    if line is None:
        line = document.line_of(path)
    case_id = _case_id(document.data, path)
    field = format_path(path[2:] if case_id is not None else path)
    return Problem(document.source, line, case_id, field or None, message)


def _message(error: ErrorDetails) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown field"
    if error["type"] == "missing":
        return "required field is missing"
    cause = error.get("ctx", {}).get("error")
    if isinstance(cause, RecordError):  # a record inside the case (a message): its own words
        return cause.message
    # Our validators' own messages, without pydantic's "Value error, " prefix.
    return str(cause) if isinstance(cause, ValueError) else error["msg"]


def _inner_field(error: ErrorDetails) -> DataPath:
    """The field inside a record that a problem at the record's place is about (a message's
    ``role``), as path parts; ``()`` for the others."""
    cause = error.get("ctx", {}).get("error")
    return field_parts(cause.field) if isinstance(cause, RecordError) else ()


def validation_problems(
    document: Document, error: ValidationError, prefix: DataPath
) -> list[Problem]:
    """The problems of a pydantic error from validating the part of ``document`` at ``prefix``,
    each at its line and field: shared with the other files read as datasets are (the online
    file)."""
    found: list[Problem] = []
    dropped = {finding.path for finding in document.findings if finding.value_dropped}
    for detail in error.errors(include_url=False):
        path = _data_path(document.data, (*prefix, *detail["loc"], *_inner_field(detail)))
        if path in dropped:
            continue
        problem = locate(document, path, _message(detail))
        if problem not in found:  # one problem can surface through several union branches
            found.append(problem)
    return found


def _header(document: Document, data: dict[str, Any], problems: list[Problem]) -> Dataset | None:
    header = {key: value for key, value in data.items() if key != "cases"}
    try:
        return Dataset.model_validate(header)
    except ValidationError as error:
        problems += validation_problems(document, error, ())
        return None


def _cases(document: Document, raw_cases: list[Any], problems: list[Problem]) -> list[Case]:
    """The cases that are valid; the problems of the others go to ``problems``."""
    cases: list[Case] = []
    for index, raw_case in enumerate(raw_cases):
        try:
            cases.append(Case.model_validate(raw_case))
        except ValidationError as error:
            problems += validation_problems(document, error, ("cases", index))
    raw_ids = [case.get("id") if isinstance(case, dict) else None for case in raw_cases]
    for index, first in duplicate_ids(raw_ids):
        first_line = document.line_of(("cases", first, "id"))
        message = f"duplicate case id {raw_ids[index]!r} (first at line {first_line})"
        problems.append(locate(document, ("cases", index, "id"), message))
    return cases


def validate_document(document: Document) -> Dataset:
    """The dataset the document holds; a DatasetError listing every problem when it is not one."""
    problems = [
        locate(document, finding.path, finding.message, finding.line)
        for finding in document.findings
    ]
    data = document.data
    if not isinstance(data, dict):
        message = "a dataset file holds a mapping (name, cases, ...)"
        root = Problem(document.source, document.line_of(()), None, None, message)
        raise DatasetError([*problems, root])
    raw_cases = data.get("cases", [])
    if not isinstance(raw_cases, list):
        problems.append(locate(document, ("cases",), "must be a list of cases"))
        raw_cases = []
    header = _header(document, data, problems)
    cases = _cases(document, raw_cases, problems)
    declared = data.get("tools")
    if isinstance(declared, list) and all(isinstance(tool, str) for tool in declared):
        # Over the data, not the models: a case (or header) invalid for another reason is
        # checked too.
        raw_mappings = [case if isinstance(case, dict) else {} for case in raw_cases]
        for path, message in undeclared_tools(raw_mappings, declared):
            problems.append(locate(document, path, message))
    if problems:
        raise DatasetError(problems)
    assert header is not None  # a header that failed validation left a problem
    settings = {name: getattr(header, name) for name in Dataset.model_fields if name != "cases"}
    return Dataset(**settings, cases=cases)
