"""The redaction rules file, as data: which built-in detectors, which custom patterns, which
fields to drop or hash, and where the hash key comes from.

::

    builtin: true                   # every built-in detector (the default); or a list of them;
                                    # or false for none
    hash_key_env: TRAILCHECK_REDACT_KEY   # the environment variable holding the hash key
    # hash_key: "..."               # or the key itself (at least 16 characters)
    patterns:
      - name: employee_id           # the rule's name in the counts and the marker
        regex: 'EMP-[0-9]{6}'       # replaced whole, or only its group named `secret`
    fields:
      - field: user.id              # a key, or the last keys of a path; * and ? are globs
        action: hash                # drop or hash
      - field: "*ssn"
        action: drop
        name: ssn                   # default: <action>:<field>

Rule names are unique, and no pattern or field rule takes a built-in detector's name. The
file is read by :mod:`trailcheck.redaction.rules_file`; ``docs/redaction.md`` at length.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    StringConstraints,
)

from trailcheck.redaction.detectors import DETECTOR_KINDS, DetectorKind
from trailcheck.redaction.redactor import (
    SECRET_FIELD,
    FieldAction,
    FieldRule,
    PatternRule,
    Redactor,
)
from trailcheck.specs.naming import unknown_name_message

__all__ = ["BUILTIN_RULES", "MIN_HASH_KEY_CHARS", "FieldSpec", "PatternSpec", "RedactionRules"]

# The built-in rules by name: the detectors, and secret-named keys.
BUILTIN_RULES: Final[tuple[str, ...]] = (*DETECTOR_KINDS, SECRET_FIELD)
MIN_HASH_KEY_CHARS: Final = 16

RuleName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.:-]+$")]


def _builtin(value: Any) -> bool | tuple[str, ...]:
    """``builtin``: true, false, or a list of built-in rule names."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ValueError("builtin is true, false, or a list of built-in detector names")
    for name in value:
        if name not in BUILTIN_RULES:
            raise ValueError(unknown_name_message("built-in detector", name, BUILTIN_RULES))
    return tuple(value)


def _compiled(regex: str) -> str:
    try:
        re.compile(regex)
    except re.error as error:
        raise ValueError(f"not a regular expression: {error}") from None
    if re.compile(regex).fullmatch("") is not None:
        raise ValueError("the expression matches empty text: it would redact nothing")
    return regex


class PatternSpec(BaseModel):
    """A custom pattern: what ``regex`` matches in text is replaced by ``[REDACTED:<name>]``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: RuleName
    regex: Annotated[str, AfterValidator(_compiled)]


class FieldSpec(BaseModel):
    """A field rule: the values of the keys ``field`` names are dropped or hashed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: Annotated[str, StringConstraints(min_length=1)]
    action: FieldAction
    name: RuleName | None = None

    @property
    def rule_name(self) -> str:
        return self.name or f"{self.action}:{self.field}"


class RedactionRules(BaseModel):
    """A redaction rules file (see the module)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    builtin: Annotated[bool | tuple[str, ...], PlainValidator(_builtin)] = True
    hash_key: Annotated[str, StringConstraints(min_length=MIN_HASH_KEY_CHARS)] | None = None
    hash_key_env: Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] | None = (
        None
    )
    patterns: list[PatternSpec] = Field(default_factory=list)
    fields: list[FieldSpec] = Field(default_factory=list)

    @property
    def builtin_rules(self) -> tuple[str, ...]:
        if self.builtin is True:
            return BUILTIN_RULES
        return tuple(self.builtin) if self.builtin else ()

    @property
    def hashes(self) -> bool:
        return any(spec.action == "hash" for spec in self.fields)

    def redactor(self, hash_key: bytes | None = None) -> Redactor:
        """The redactor of these rules; ``hash_key`` is the key (``hash_key`` or the value of
        ``hash_key_env``), needed when a field rule hashes."""
        builtin = self.builtin_rules
        detectors: list[DetectorKind] = [kind for kind in DETECTOR_KINDS if kind in builtin]
        return Redactor(
            detectors,
            secret_fields=SECRET_FIELD in builtin,
            patterns=[PatternRule(spec.name, re.compile(spec.regex)) for spec in self.patterns],
            fields=[FieldRule(spec.rule_name, spec.field, spec.action) for spec in self.fields],
            hash_key=hash_key,
        )
