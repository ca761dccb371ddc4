"""Loading redaction rules: ``--redact FILE`` or ``--redact builtin``, every problem of a file
reported at once with its file, line and field, as a bad dataset's are.

The YAML is read by :func:`~trailcheck.cases.yaml_source.read_yaml` (the YAML 1.2 core schema,
duplicate keys refused, each key's line kept) and validation errors are placed by
:func:`~trailcheck.cases.validate.validation_problems`::

    redact.yaml:9: field 'patterns[1].regex': not a regular expression: missing ), unterminated
    subpattern at position 4

Beyond the model (:mod:`trailcheck.redaction.rules`), the file is checked as a whole: rule
names are unique and none is a built-in detector's; a field rule that hashes needs a key, given
once (``hash_key`` or ``hash_key_env``); and the environment variable ``hash_key_env`` names is
set, to at least 16 characters, when the file is loaded (so a server never starts hashing with
no key, or with another key than the one it was meant to have).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from trailcheck.cases.document import Document
from trailcheck.cases.problems import DatasetError, Problem, in_file_order, problems_message
from trailcheck.cases.rules import duplicate_ids
from trailcheck.cases.validate import locate, validation_problems
from trailcheck.cases.yaml_source import read_yaml
from trailcheck.errors import InputError
from trailcheck.redaction.redactor import Redactor
from trailcheck.redaction.rules import BUILTIN_RULES, MIN_HASH_KEY_CHARS, RedactionRules

__all__ = [
    "BUILTIN_SPEC",
    "RedactionRulesError",
    "builtin_redactor",
    "load_redaction_rules",
    "load_redactor",
    "parse_redaction_rules",
]

# What ``--redact`` takes for the built-in detectors alone, with no file.
BUILTIN_SPEC: Final = "builtin"


class RedactionRulesError(InputError):
    """A redaction rules file that cannot be read or is not valid. ``problems`` holds every
    problem found, in file order; the message lists them one per line."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        if not problems:
            raise ValueError("a RedactionRulesError reports at least one problem")
        self.problems = in_file_order(problems)
        super().__init__(problems_message(self.problems))


def _names(data: dict[str, Any]) -> list[tuple[tuple[str | int, ...], Any]]:
    """Each rule's name in the file's data, with the path it is (or would be) written at."""
    named: list[tuple[tuple[str | int, ...], Any]] = []
    for key in ("patterns", "fields"):
        items = data.get(key)
        for index, item in enumerate(items if isinstance(items, list) else []):
            if not isinstance(item, dict):
                continue
            name = item.get("name")
            action, field = item.get("action"), item.get("field")
            if name is None and isinstance(action, str) and isinstance(field, str):
                name = f"{action}:{field}"  # a field rule's default name
            named.append(((key, index, "name"), name))
    return named


def _name_problems(document: Document, data: dict[str, Any]) -> list[Problem]:
    named = _names(data)
    problems = [
        locate(document, path, f"{name!r} is a built-in detector's name; choose another")
        for path, name in named
        if name in BUILTIN_RULES
    ]
    names = [name for _, name in named]
    for index, first in duplicate_ids(names):
        line = document.line_of(named[first][0])
        message = f"duplicate rule name {names[index]!r} (first at line {line})"
        problems.append(locate(document, named[index][0], message))
    return problems


def _hash_key(
    document: Document, rules: RedactionRules, environ: Mapping[str, str], problems: list[Problem]
) -> bytes | None:
    """The hash key the rules name, or None (with a problem when one is needed)."""
    if rules.hash_key is not None and rules.hash_key_env is not None:
        problems.append(
            locate(document, ("hash_key_env",), "give hash_key or hash_key_env, not both")
        )
        return None
    if rules.hash_key is not None:
        return rules.hash_key.encode()
    if rules.hash_key_env is not None:
        value = environ.get(rules.hash_key_env, "")
        if len(value) < MIN_HASH_KEY_CHARS:
            state = (
                "is not set" if not value else f"holds fewer than {MIN_HASH_KEY_CHARS} characters"
            )
            message = (
                f"the environment variable {rules.hash_key_env} {state}: it holds the hash key"
            )
            problems.append(locate(document, ("hash_key_env",), message))
            return None
        return value.encode()
    if rules.hashes:
        message = "a field rule hashes: give the key in hash_key or hash_key_env"
        problems.append(locate(document, ("fields",), message))
    return None


def _validate(document: Document, environ: Mapping[str, str]) -> Redactor:
    problems = [locate(document, f.path, f.message, f.line) for f in document.findings]
    data = document.data
    if not isinstance(data, dict):
        message = "a redaction rules file holds a mapping: builtin, patterns, fields, hash_key_env"
        raise RedactionRulesError([*problems, Problem(document.source, 1, None, None, message)])
    problems += _name_problems(document, data)
    try:
        rules = RedactionRules.model_validate(data)
    except ValidationError as error:
        problems += validation_problems(document, error, ())
        raise RedactionRulesError(problems) from None
    key = _hash_key(document, rules, environ, problems)
    if problems:
        raise RedactionRulesError(problems)
    return rules.redactor(key)


def parse_redaction_rules(
    text: str | bytes, *, source: str = "<redact>", environ: Mapping[str, str] | None = None
) -> Redactor:
    """The redactor of the rules written in ``text``; ``source`` names it in problems and
    ``environ`` is where ``hash_key_env`` is looked up (the process's environment by default).
    Raises RedactionRulesError listing every problem."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            message = f"not UTF-8 text: {error.reason} at byte {error.start}"
            raise RedactionRulesError([Problem(source, None, None, None, message)]) from None
    try:
        document = read_yaml(text, source)
    except DatasetError as error:  # the YAML reader's own problems (syntax, emptiness)
        raise RedactionRulesError(error.problems) from None
    return _validate(document, os.environ if environ is None else environ)


def load_redaction_rules(
    path: str | os.PathLike[str], *, environ: Mapping[str, str] | None = None
) -> Redactor:
    """The redactor of the rules file at ``path`` (see :func:`parse_redaction_rules`)."""
    source = os.fspath(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        message = f"cannot read the file: {error.strerror or error}"
        raise RedactionRulesError([Problem(source, None, None, None, message)]) from None
    return parse_redaction_rules(raw, source=source, environ=environ)


@cache
def builtin_redactor() -> Redactor:
    """The built-in detectors alone (every one, and secret-named keys): ``--redact builtin``,
    and what promotion to a candidate case applies."""
    return RedactionRules().redactor()


def load_redactor(spec: str, *, environ: Mapping[str, str] | None = None) -> Redactor:
    """What ``--redact`` asks for: ``builtin``, the built-in detectors alone; anything else, a
    rules file's path (``./builtin`` for a file of that name)."""
    if spec == BUILTIN_SPEC:
        return builtin_redactor()
    return load_redaction_rules(spec, environ=environ)
