"""Rule files: detection rules as YAML data, read with every problem's file, line and field.

A file holds ``rules:``, a list of rules, each ``{name, label, severity, kind, ...settings}``::

    rules:
      - name: refund_without_identity_check
        label: refund_without_identity_check
        severity: high
        kind: policy
        policy: {name: must_precede, tool: verify_identity, before: issue_refund}

``kind`` is one of :data:`RULE_KINDS`; the settings are the kind's (:mod:`.call_rules`,
:mod:`.answer_rules`). Rule names are unique across the rules given together, since a finding's
source names its rule. The built-in rules (:func:`builtin_rules`) are such a file, shipped in
the package (``trailcheck/loop/rules/builtin.yaml``). The YAML is read as dataset files are
(:func:`~trailcheck.cases.yaml_source.read_yaml`: core schema, duplicate keys refused, lines
kept), and problems are :class:`~trailcheck.cases.Problem` values.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Discriminator, Tag, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from trailcheck.cases import DatasetError, Problem
from trailcheck.cases.document import DataPath, Document, format_path
from trailcheck.cases.yaml_source import read_yaml
from trailcheck.errors import InputError
from trailcheck.loop.answer_rules import (
    AgentOutcomeRule,
    ErrorIgnoredRule,
    FinalAnswerRule,
    GroundingRule,
    UnsupportedClaimRule,
)
from trailcheck.loop.call_rules import (
    DateArgumentRule,
    EfficiencyRule,
    PolicyRule,
    RateLimitRetryRule,
)
from trailcheck.specs.naming import unknown_name_message

_KINDS = (
    PolicyRule,
    EfficiencyRule,
    RateLimitRetryRule,
    DateArgumentRule,
    UnsupportedClaimRule,
    ErrorIgnoredRule,
    GroundingRule,
    FinalAnswerRule,
    AgentOutcomeRule,
)
RULE_KINDS: tuple[str, ...] = tuple(str(kind.model_fields["kind"].default) for kind in _KINDS)
BUILTIN_RULES_FILE = "builtin.yaml"


def _named_kind(value: Any) -> Any:
    if isinstance(value, _KINDS):
        return value
    if not isinstance(value, dict) or "kind" not in value:
        raise ValueError(f"a rule is a mapping with a kind: one of {', '.join(RULE_KINDS)}")
    if value["kind"] not in RULE_KINDS:
        raise ValueError(unknown_name_message("rule kind", value["kind"], RULE_KINDS))
    return value


def _kind_tag(value: Any) -> str | None:
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return kind if isinstance(kind, str) else None


Rule = Annotated[
    Annotated[PolicyRule, Tag("policy")]
    | Annotated[EfficiencyRule, Tag("efficiency")]
    | Annotated[RateLimitRetryRule, Tag("rate_limit_retry")]
    | Annotated[DateArgumentRule, Tag("date_argument")]
    | Annotated[UnsupportedClaimRule, Tag("unsupported_claim")]
    | Annotated[ErrorIgnoredRule, Tag("error_ignored")]
    | Annotated[GroundingRule, Tag("grounding")]
    | Annotated[FinalAnswerRule, Tag("final_answer")]
    | Annotated[AgentOutcomeRule, Tag("agent_outcome")],
    Discriminator(_kind_tag),
    BeforeValidator(_named_kind),
]
"""Any detection rule, chosen by its ``kind``."""

_RULE = TypeAdapter(Rule)


class RuleFileError(InputError):
    """A rule file that cannot be read or is not valid; ``problems`` lists every problem."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        count = len(self.problems)
        heading = f"{self.problems[0].file}: {count} problem{'s' if count > 1 else ''}"
        super().__init__("\n".join([heading, *(str(problem) for problem in self.problems)]))


def _data_path(data: Any, location: tuple[int | str, ...]) -> DataPath:
    """The part of a pydantic error location that is in the data (kind tags are not); a
    missing field's name is kept, as the field to add."""
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


def _message(error: ErrorDetails) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown setting"
    if error["type"] == "missing":
        return "required field is missing"
    cause = error.get("ctx", {}).get("error")
    return str(cause) if isinstance(cause, ValueError) else error["msg"]


def _problem(document: Document, path: DataPath, message: str, line: int | None = None) -> Problem:
    return Problem(
        document.source,
        line if line is not None else document.line_of(path),
        None,
        format_path(path) or None,
        message,
    )


def _rule(document: Document, index: int, raw: Any, problems: list[Problem]) -> Rule | None:
    try:
        return _RULE.validate_python(raw)
    except ValidationError as error:
        for detail in error.errors(include_url=False):
            path = _data_path(document.data, ("rules", index, *detail["loc"]))
            problem = _problem(document, path, _message(detail))
            if problem not in problems:
                problems.append(problem)
        return None


def _validate(document: Document) -> list[Rule]:
    problems = [_problem(document, f.path, f.message, f.line) for f in document.findings]
    data = document.data
    raw_rules = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(raw_rules, list):
        problems.append(_problem(document, ("rules",), "a rule file holds rules: a list of rules"))
        raise RuleFileError(problems)
    extra = sorted(key for key in data if key != "rules")
    problems += [_problem(document, (key,), "unknown field") for key in extra]
    rules = [_rule(document, index, raw, problems) for index, raw in enumerate(raw_rules)]
    valid = [rule for rule in rules if rule is not None]
    problems += _duplicate_names(document, rules)
    if problems:
        raise RuleFileError(sorted(problems, key=lambda p: (p.line is None, p.line or 0)))
    return valid


def _duplicate_names(document: Document, rules: Sequence[Rule | None]) -> list[Problem]:
    first: dict[str, int] = {}
    found: list[Problem] = []
    for index, rule in enumerate(rules):
        if rule is None:
            continue
        if rule.name in first:
            line = document.line_of(("rules", first[rule.name]))
            message = f"duplicate rule name {rule.name!r} (first at line {line})"
            found.append(_problem(document, ("rules", index, "name"), message))
        else:
            first[rule.name] = index
    return found


def parse_rules(text: str, *, source: str = "<rules>") -> list[Rule]:
    """The rules written in ``text``; RuleFileError listing every problem when it is not valid."""
    try:
        document = read_yaml(text, source)
    except DatasetError as error:  # the YAML reader's own problems (syntax, emptiness)
        raise RuleFileError(error.problems) from None
    return _validate(document)


def load_rules(path: str | os.PathLike[str]) -> list[Rule]:
    """The rules in the YAML file at ``path``."""
    source = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else error.reason
        problem = Problem(source, None, None, None, f"cannot read the file: {reason or error}")
        raise RuleFileError([problem]) from None
    return parse_rules(text, source=source)


@cache
def builtin_rules() -> tuple[Rule, ...]:
    """The rules shipped with trailcheck, one per built-in label (see docs/loop.md)."""
    data = resources.files("trailcheck.loop").joinpath("rules").joinpath(BUILTIN_RULES_FILE)
    return tuple(parse_rules(data.read_text(encoding="utf-8"), source=f"<{BUILTIN_RULES_FILE}>"))


def combined_rules(*rule_sets: Iterable[Rule]) -> list[Rule]:
    """Several rule sets as one; a name given twice is a usage error (findings name rules)."""
    rules: list[Rule] = []
    seen: set[str] = set()
    for rule in (rule for rule_set in rule_sets for rule in rule_set):
        if rule.name in seen:
            raise RuleFileError(
                [Problem("<rules>", None, None, None, f"rule {rule.name!r} is given twice")]
            )
        seen.add(rule.name)
        rules.append(rule)
    return rules
